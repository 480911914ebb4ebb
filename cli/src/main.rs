//! `engine`: inspect and load an engine directory by hand.
//!
//! Results go to stdout as JSON; request charges, diagnostics and progress go to stderr; errors
//! exit non-zero with the message.

mod commands;
mod crash;
mod error;
mod output;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use engine::{Engine, EngineOptions};

use commands::{
    backup, check, delete_partition, export, get, import, list, patch, query, serve, stats,
};
use error::CliError;

#[derive(Parser)]
#[command(
    name = "engine",
    version,
    about = "Inspect and load an embedded Cosmos-style document engine"
)]
struct Cli {
    /// The engine's data directory.
    #[arg(long, global = true, default_value = "data")]
    data: PathBuf,
    /// Read without LMDB's lock file, for a copy this user may read but not write (taken by
    /// itself when lock.mdb cannot be written). Only safe when no process writes the directory.
    #[arg(long, global = true)]
    no_lock: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Load a JSON array or JSON lines file (creates the database and container when missing).
    Import(import::Args),
    /// Point read of one item.
    Get(get::Args),
    /// Every item of a container (or of one logical partition with --pk), as JSON lines.
    Export(export::Args),
    /// Physical partitions: ranges, sizes, item counts, load and the largest logical partitions.
    Stats(stats::Args),
    /// Runs a query; every page merged into one JSON array.
    Query(query::Args),
    /// Patch one item (set, add, replace, remove, incr, move), optionally only if it matches a
    /// condition.
    Patch(patch::Args),
    /// Delete every item of one logical partition.
    DeletePartition(delete_partition::Args),
    /// Databases and containers.
    List,
    /// A consistent, compacted copy of the data in OUT/data.mdb, safe while an app writes the
    /// directory. Restore: stop the app, put OUT/data.mdb in place of DATA/data.mdb.
    Backup(backup::Args),
    /// Verify every container: items parse, index entries and counters match the items,
    /// partitions tile the hash space. Prints a report per container; exits non-zero on any problem.
    Check,
    /// Serve the directory over the Cosmos DB REST API, for the official SDKs and tools
    /// (`AccountEndpoint=http://ADDR/`); Ctrl-C stops. Writes, so it needs the directory to
    /// itself.
    Serve(serve::Args),
}

impl Command {
    /// What needs LMDB's lock and a writable directory.
    fn writes(&self) -> bool {
        matches!(
            self,
            Command::Import(_) | Command::Patch(_) | Command::DeletePartition(_)
        )
    }

    fn name(&self) -> &'static str {
        match self {
            Command::Import(_) => "import",
            Command::Patch(_) => "patch",
            Command::DeletePartition(_) => "delete-partition",
            _ => "this command",
        }
    }
}

async fn run(cli: Cli) -> Result<(), CliError> {
    let command = match cli.command {
        Command::Serve(args) => return serve::run(&cli.data, cli.no_lock, args).await,
        other => other,
    };
    // The input file is opened first: a missing one must not create the store, database or
    // container.
    let input = match &command {
        Command::Import(args) => Some(import::open(&args.file)?),
        _ => None,
    };
    if cli.no_lock && command.writes() {
        return Err(engine::Error::bad(
            "--no-lock",
            format!(
                "--no-lock is for reading: {} writes, which needs LMDB's lock",
                command.name()
            ),
        )
        .into());
    }
    // Commands that only read run beside any process writing the directory.
    let storage = engine::StorageOptions {
        read_only: !command.writes(),
        no_lock: cli.no_lock,
        ..Default::default()
    };
    let data_file = cli.data.join("data.mdb");
    crash::install(&data_file);
    if let Command::Backup(args) = &command {
        crash::remove_on_crash(&Engine::backup_staging(&args.out).join("data.mdb"));
    }
    let engine = Engine::open(
        &cli.data,
        EngineOptions {
            storage,
            ..Default::default()
        },
    )?;
    crash::watch_map(&data_file);
    if let Some(why) = engine.read_without_lock() {
        eprintln!(
            "engine: reading {} without LMDB's lock: {why}; a process writing it meanwhile could make these reads inconsistent",
            cli.data.display()
        );
    }
    match command {
        Command::Import(args) => import::command(&engine, args, input.expect("opened above")).await,
        Command::Get(args) => get::run(&engine, args).await,
        Command::Export(args) => export::run(&engine, args).await,
        Command::Stats(args) => stats::run(&engine, args).await,
        Command::Query(args) => query::run(&engine, args).await,
        Command::Patch(args) => patch::run(&engine, args).await,
        Command::DeletePartition(args) => delete_partition::run(&engine, args).await,
        Command::List => list::run(&engine),
        Command::Backup(args) => backup::run(&engine, args),
        Command::Check => check::run(&engine),
        Command::Serve(_) => unreachable!("served above"),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
