//! `engine`: inspect and load an engine directory by hand.
//!
//! Results go to stdout as JSON; request charges, diagnostics and progress go to stderr; errors
//! exit non-zero with the message.

mod crash;
mod import;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use engine::{Engine, EngineOptions, PartitionKey};
use serde_json::{json, Value};

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

#[derive(clap::Args)]
struct Target {
    /// The database (e.g. `webstore`, `blog` in the demo's data).
    #[arg(long)]
    db: String,
    /// The container in that database (e.g. `customer`, `posts`).
    #[arg(long)]
    container: String,
}

#[derive(Subcommand)]
enum Command {
    /// Load a JSON array or JSON lines file (creates the database and container when missing).
    Import {
        #[command(flatten)]
        target: Target,
        /// Partition key path of the container, if it has to be created (e.g. /customerId), or up
        /// to three for a hierarchical key (/tenantId,/userId,/sessionId).
        #[arg(long)]
        partition_key: Option<String>,
        /// Physical partitions of a new container (default 4); given for an existing container,
        /// it must be the count the container has.
        #[arg(long)]
        partitions: Option<u32>,
        /// A unique key of a new container: its paths, comma separated (/email, or
        /// /type,/userId); repeat for several. No two items of one logical partition may share
        /// a key's values (a missing path counts as null); fixed once the container exists.
        #[arg(long = "unique-key", value_name = "PATHS")]
        unique_keys: Vec<String>,
        /// `create` fails on existing ids; `upsert` overwrites them.
        #[arg(long, default_value = "upsert", value_parser = ["create", "upsert"])]
        mode: String,
        /// Requests in flight at once.
        #[arg(long, default_value_t = 64)]
        concurrency: usize,
        /// Write every line that failed here (as it was), to fix and import again.
        #[arg(long)]
        rejects: Option<PathBuf>,
        /// Stop at the first failure (everything sent before it is still awaited and reported).
        #[arg(long)]
        stop_on_error: bool,
        /// The file to load: JSON lines, or one JSON array (streamed either way).
        file: PathBuf,
    },
    /// Point read of one item.
    Get {
        #[command(flatten)]
        target: Target,
        /// Partition key value: read as JSON when it parses as JSON, else as a string; a
        /// hierarchical key's values as a JSON array (`'["contoso","alice"]'`), where `{}` is a
        /// value the item lacks (`'["contoso",{}]'`: no /userId).
        #[arg(long, allow_hyphen_values = true, required_unless_present = "pk_none")]
        pk: Option<String>,
        /// The item has no partition key property (Cosmos DB's PartitionKey.None); on a
        /// hierarchical container, none of its properties (`'[{},{}]'`).
        #[arg(long, conflicts_with = "pk")]
        pk_none: bool,
        /// The item's id.
        id: String,
    },
    /// Every item of a container (or of one logical partition with --pk), as JSON lines.
    Export {
        #[command(flatten)]
        target: Target,
        /// Only this logical partition (read as JSON when it parses as JSON, else a string).
        #[arg(long, allow_hyphen_values = true)]
        pk: Option<String>,
        /// Print one JSON array instead of JSON lines.
        #[arg(long)]
        array: bool,
    },
    /// Physical partitions: ranges, sizes, item counts, load and the largest logical partitions.
    Stats {
        #[command(flatten)]
        target: Target,
        /// How many of the largest logical partitions to list per physical partition.
        #[arg(long, default_value_t = 5)]
        top: usize,
    },
    /// Runs a query; every page merged into one JSON array.
    Query {
        #[command(flatten)]
        target: Target,
        /// Confine the query to one logical partition (read as JSON when it parses as JSON), or
        /// to a hierarchical key's prefix (`'["contoso"]'`).
        #[arg(long, allow_hyphen_values = true)]
        pk: Option<String>,
        /// A parameter, `@name=JSON`: the value must be JSON (a string is written `'"text"'`,
        /// or use --param-str). Repeatable.
        #[arg(long = "param", value_name = "@NAME=JSON", allow_hyphen_values = true)]
        params: Vec<String>,
        /// A string parameter, `@name=text`, taken as it is. Repeatable.
        #[arg(
            long = "param-str",
            value_name = "@NAME=TEXT",
            allow_hyphen_values = true
        )]
        string_params: Vec<String>,
        /// Results per page, at least 1 (the RU and metrics on stderr are per page).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
        max_item_count: Option<u32>,
        /// Read the query from this file (`-` for standard input) instead of the SQL argument:
        /// for queries too long for a shell.
        #[arg(
            short = 'f',
            long = "file",
            value_name = "FILE",
            conflicts_with = "sql"
        )]
        sql_file: Option<PathBuf>,
        /// The query, e.g. "SELECT * FROM c WHERE c.type = 'post'".
        #[arg(required_unless_present = "sql_file")]
        sql: Option<String>,
    },
    /// Databases and containers.
    List,
    /// A consistent, compacted copy of the data in OUT/data.mdb, safe while an app writes the
    /// directory. Restore: stop the app, put OUT/data.mdb in place of DATA/data.mdb.
    Backup {
        /// The directory to write `data.mdb` into (must not hold one already).
        out: PathBuf,
    },
    /// Verify every container: items parse, index entries and counters match the items,
    /// partitions tile the hash space. Prints a report per container; exits non-zero on any problem.
    Check,
    /// Serve the directory over the Cosmos DB REST API, for the official SDKs and tools
    /// (`AccountEndpoint=http://ADDR/`); Ctrl-C stops. Writes, so it needs the directory to
    /// itself.
    Serve {
        /// Where to listen.
        #[arg(long, default_value = "127.0.0.1:8083")]
        addr: std::net::SocketAddr,
        /// The account key, base64 (default: the Cosmos DB emulator's well-known key, refused
        /// on a non-loopback address).
        #[arg(long, env = "GATEWAY_KEY", hide_env_values = true)]
        key: Option<String>,
        /// Serve https with a self-signed certificate for localhost and 127.0.0.1, made on the
        /// first start and kept in the data directory (its path is printed).
        #[arg(long)]
        tls: bool,
        /// A host name answered besides localhost, 127.0.0.1, [::1] and the address served
        /// (any other `Host`, and any other web page's `Origin`, is refused: DNS rebinding);
        /// repeat or separate with commas.
        #[arg(long = "host", env = "GATEWAY_HOST", value_delimiter = ',', value_parser = gateway::parse_host_name)]
        hosts: Vec<String>,
    },
}

/// `--pk` values: JSON when they parse as JSON (`5`, `true`, `null`, `"5"`, `["a","b"]` for a
/// hierarchical key), else a string.
pub fn parse_pk(raw: &str) -> Result<PartitionKey, engine::Error> {
    PartitionKey::from_text(raw, "--pk")
}

/// Writes a result line to stdout; a closed pipe (`engine export | head`) ends the process quietly.
fn out(line: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = writeln!(stdout, "{line}") {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: writing to stdout: {e}");
        std::process::exit(1);
    }
}

fn charge_line(charge: f64, diagnostics: &engine::Diagnostics) {
    eprintln!(
        "{}",
        json!({"requestCharge": charge, "diagnostics": diagnostics})
    );
}

async fn run(cli: Cli) -> Result<(), import::ImportError> {
    if let Command::Serve {
        addr,
        key,
        tls,
        hosts,
    } = &cli.command
    {
        if cli.no_lock {
            return Err(engine::Error::bad(
                "--no-lock",
                "--no-lock is for reading: serve writes, which needs LMDB's lock",
            )
            .into());
        }
        return serve(&cli.data, *addr, key.clone(), *tls, hosts.clone()).await;
    }
    // Only `import` writes; everything else reads, beside any process writing the directory.
    let read_only = !matches!(cli.command, Command::Import { .. });
    // The input file is opened first: a missing one must not create the store, database or
    // container.
    let input = match &cli.command {
        Command::Import { file, .. } => Some(import::open(file)?),
        _ => None,
    };
    if cli.no_lock && !read_only {
        return Err(engine::Error::bad(
            "--no-lock",
            "--no-lock is for reading: import writes, which needs LMDB's lock",
        )
        .into());
    }
    let storage = engine::StorageOptions {
        read_only,
        no_lock: cli.no_lock,
        ..Default::default()
    };
    let data_file = cli.data.join("data.mdb");
    crash::install(&data_file);
    if let Command::Backup { out } = &cli.command {
        crash::remove_on_crash(&Engine::backup_staging(out).join("data.mdb"));
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
    match cli.command {
        Command::Import {
            target,
            partition_key,
            partitions,
            unique_keys,
            mode,
            concurrency,
            rejects,
            stop_on_error,
            file: _,
        } => {
            import::run(
                &engine,
                import::ImportOptions {
                    db: &target.db,
                    container: &target.container,
                    partition_key: partition_key.as_deref(),
                    partitions,
                    unique_keys: unique_keys
                        .iter()
                        .map(|k| k.split(',').map(|p| p.trim().to_owned()).collect())
                        .collect(),
                    upsert: mode == "upsert",
                    concurrency,
                    rejects,
                    stop_on_error,
                },
                input.expect("opened above"),
            )
            .await
        }
        Command::Get {
            target,
            pk,
            pk_none,
            id,
        } => {
            let c = engine.database(&target.db).container(&target.container);
            let pk = match pk {
                Some(raw) if !pk_none => parse_pk(&raw)?,
                // A hierarchical key is one value per path: each of them absent.
                _ => match c.read_container()?.partition_key().paths.len() {
                    1 => PartitionKey::None,
                    levels => PartitionKey::Hierarchical(vec![PartitionKey::None; levels]),
                },
            };
            let r = c.charged().read_item::<Value>(&id, pk, None).await?;
            out(&serde_json::to_string_pretty(&r.resource).unwrap_or_default());
            charge_line(r.request_charge, &r.diagnostics);
            Ok(())
        }
        Command::Export { target, pk, array } => {
            let c = engine.database(&target.db).container(&target.container);
            let mut collected = Vec::new();
            let mut total = 0.0;
            let mut emit = |items: Vec<Value>| {
                for item in items {
                    if array {
                        collected.push(item);
                    } else {
                        out(&item.to_string());
                    }
                }
            };
            let mut count = 0;
            let pk = pk.as_deref().map(parse_pk).transpose()?;
            let version = c.write_version()?;
            if let Some(pk) = pk.clone() {
                let r = c.read_all_items_in_partition::<Value>(pk).await?;
                total += r.request_charge;
                count += r.items.len();
                emit(r.items);
            } else {
                let mut continuation = None;
                loop {
                    let r = c
                        .read_all_items::<Value>(1000, continuation.as_deref())
                        .await?;
                    total += r.request_charge;
                    count += r.items.len();
                    emit(r.items);
                    match r.continuation {
                        // Keys only grow: a continuation that does not is a damaged B-tree
                        // leading the scan back over itself (it would never end).
                        Some(next) if continuation.as_ref().is_some_and(|c| next <= *c) => {
                            return Err(not_advancing("export").into());
                        }
                        Some(next) => continuation = Some(next),
                        None => break,
                    }
                }
            }
            if array {
                out(&serde_json::to_string_pretty(&collected).unwrap_or_default());
            }
            eprintln!(
                "{}",
                json!({"items": count, "requestCharge": (total * 100.0f64).round() / 100.0})
            );
            complete(&c, pk.as_ref(), version, count as u64)?;
            Ok(())
        }
        Command::Serve { .. } => unreachable!("served above"),
        Command::Check => {
            let reports = engine.check()?;
            for r in &reports {
                out(&serde_json::to_string(r).unwrap_or_default());
            }
            match engine::check_failed(&reports) {
                Some(e) => Err(e.into()),
                None => Ok(()),
            }
        }
        Command::Backup { out: dir } => {
            let bytes = engine.backup(&dir)?;
            eprintln!(
                "{}",
                json!({"backup": dir.join("data.mdb"), "bytes": bytes})
            );
            Ok(())
        }
        Command::Stats { target, top } => {
            let c = engine.database(&target.db).container(&target.container);
            let stats = c.stats(top).await?;
            out(&serde_json::to_string_pretty(&stats).unwrap_or_default());
            Ok(())
        }
        Command::Query {
            target,
            pk,
            params,
            string_params,
            max_item_count,
            sql_file,
            sql,
        } => {
            let c = engine.database(&target.db).container(&target.container);
            let sql = match (sql, sql_file) {
                (Some(sql), _) => sql,
                (None, Some(file)) => read_query(&file)?,
                (None, None) => unreachable!("clap requires one"),
            };
            let mut all_params = Vec::new();
            for p in &params {
                let (name, raw) = p.split_once('=').ok_or_else(|| {
                    engine::Error::bad("--param", format!("'{p}' is not @name=JSON"))
                })?;
                let value = serde_json::from_str(raw).map_err(|e| {
                    engine::Error::bad(
                        "--param",
                        format!(
                            "{name}: {raw} is not JSON ({e}); write a string as '\"text\"' or use --param-str {name}=text"
                        ),
                    )
                })?;
                all_params.push((name.to_owned(), value));
            }
            for p in &string_params {
                let (name, raw) = p.split_once('=').ok_or_else(|| {
                    engine::Error::bad("--param-str", format!("'{p}' is not @name=text"))
                })?;
                all_params.push((name.to_owned(), Value::String(raw.to_owned())));
            }
            let params = all_params;
            let mut opts = engine::QueryOptions {
                partition_key: pk.as_deref().map(parse_pk).transpose()?,
                max_item_count: max_item_count.map(|n| n as usize),
                ..Default::default()
            };
            let mut all = Vec::new();
            let mut total = 0.0;
            let mut seen = std::collections::HashSet::new();
            loop {
                // A refused page says what it and the pages before it cost.
                let page = c
                    .charged()
                    .query_items::<Value>(&sql, &params, opts.clone())
                    .await
                    .map_err(|f| f.after(total))?;
                total += page.request_charge;
                eprintln!(
                    "{}",
                    json!({"page": {"items": page.items.len(), "requestCharge": page.request_charge, "metrics": page.query_metrics}})
                );
                all.extend(page.items);
                match page.continuation {
                    // A continuation seen before: the pages would go round for ever (a damaged
                    // B-tree whose keys lead a scan back over itself).
                    Some(next) if !seen.insert(next.clone()) => {
                        return Err(not_advancing("query").into());
                    }
                    Some(next) => opts.continuation = Some(next),
                    None => break,
                }
            }
            out(&serde_json::to_string_pretty(&all).unwrap_or_default());
            eprintln!(
                "{}",
                json!({"items": all.len(), "requestCharge": (total * 100.0f64).round() / 100.0})
            );
            Ok(())
        }
        Command::List => {
            let list: Vec<Value> = engine
                .databases()
                .into_iter()
                .map(|d| {
                    let containers: Vec<Value> = engine
                        .database(&d.id)
                        .containers()
                        .iter()
                        .map(|c| json!({"id": c.id(), "partitionKey": c.partition_key().paths.join(","), "partitions": c.totals().0, "throughput": c.throughput(), "defaultTtl": c.default_ttl(), "uniqueKeys": c.unique_keys()}))
                        .collect();
                    json!({"id": d.id, "containers": containers})
                })
                .collect();
            out(&serde_json::to_string_pretty(&list).unwrap_or_default());
            Ok(())
        }
    }
}

/// Fails an export that read fewer items than the container's own counters record: a damaged
/// B-tree page hides items from every scan without an error, so the counters (other pages,
/// kept by every write) are compared with a walk of the items in one snapshot, and, when nothing
/// was written meanwhile, with what the export itself read.
fn complete(
    c: &engine::ContainerClient,
    pk: Option<&PartitionKey>,
    version: u64,
    exported: u64,
) -> Result<(), engine::Error> {
    let n = c.count_items(pk)?;
    let unchanged = n.version == version;
    let short_read = if unchanged {
        n.live.saturating_sub(exported)
    } else {
        0
    };
    let missing = n.missing().max(short_read);
    if missing == 0 {
        return Ok(());
    }
    let what = match pk {
        Some(pk) => format!("logical partition {}", pk.to_json().unwrap_or(Value::Null)),
        None => "container".to_owned(),
    };
    Err(engine::Error::Corrupt(format!(
        "export incomplete: {missing} items missing (the {what} counts {} items, {exported} were read); the data file is damaged: run `engine check`, restore from a backup",
        n.expected
    )))
}

fn not_advancing(what: &str) -> engine::Error {
    engine::Error::Corrupt(format!(
        "the {what} stopped: its pages went back over items already read, so the data file is damaged; run `engine check`, restore from a backup"
    ))
}

/// A query from a file, or from standard input for `-`.
fn read_query(file: &std::path::Path) -> Result<String, engine::Error> {
    use std::io::Read;
    let mut sql = String::new();
    let read = if file.as_os_str() == "-" {
        std::io::stdin().read_to_string(&mut sql)
    } else {
        std::fs::File::open(file).and_then(|mut f| f.read_to_string(&mut sql))
    };
    read.map_err(|e| engine::Error::bad("--file", format!("{}: {e}", file.display())))?;
    Ok(sql)
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

/// `engine serve`: the gateway over a directory of its own. A 429 goes back to the client at
/// once (the SDKs wait `x-ms-retry-after-ms` and retry themselves), so the engine's own client
/// does not retry on top of them.
async fn serve(
    data: &std::path::Path,
    addr: std::net::SocketAddr,
    key: Option<String>,
    tls: bool,
    hosts: Vec<String>,
) -> Result<(), import::ImportError> {
    let failed = |e: &dyn std::fmt::Display| import::ImportError::Failed(e.to_string());
    if key.is_none() && !addr.ip().is_loopback() {
        return Err(failed(&format!(
            "--addr {addr} is not a loopback address: the default key is the emulator's \
             well-known one, so pass --key KEY (GATEWAY_KEY)"
        )));
    }
    let engine = Engine::open(
        data,
        EngineOptions {
            retry: engine::RetryOptions {
                max_retry_attempts_on_throttled: 0,
                ..Default::default()
            },
            ..Default::default()
        },
    )?;
    let mut options = gateway::GatewayOptions::new(addr);
    options.key = key.clone();
    options.tls = tls;
    options.allowed_hosts = hosts;
    let (server, bound) = gateway::Gateway::start(&engine, options).map_err(|e| failed(&e))?;
    let shown = match key {
        Some(_) => "AccountKey=<your --key>".to_owned(),
        None => format!("AccountKey={} (the emulator's key)", gateway::EMULATOR_KEY),
    };
    let scheme = if tls { "https" } else { "http" };
    println!("Serving {} over the Cosmos DB REST API", data.display());
    println!("  AccountEndpoint={scheme}://{bound}/;{shown}");
    if tls {
        println!(
            "  certificate (self-signed; have clients trust it): {}",
            gateway::tls::cert_path(engine.path()).display()
        );
    }
    println!("Ctrl-C stops.");
    let handle = server.handle();
    let running = tokio::spawn(server);
    tokio::signal::ctrl_c().await.map_err(|e| failed(&e))?;
    handle.stop(true).await;
    let _ = running.await;
    drop(engine);
    Ok(())
}
