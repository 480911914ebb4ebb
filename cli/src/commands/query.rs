//! `engine query`: runs a query of the engine's SQL dialect and prints every page merged into one
//! JSON array; each page's charge and metrics go to stderr.

use std::path::{Path, PathBuf};

use engine::Engine;
use serde_json::{json, Value};

use crate::error::{not_advancing, CliError};
use crate::output::{out, parse_pk, rounded, Target};

#[derive(clap::Args)]
pub struct Args {
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
}

pub async fn run(engine: &Engine, args: Args) -> Result<(), CliError> {
    let c = args.target.client(engine);
    let sql = match (args.sql, args.sql_file) {
        (Some(sql), _) => sql,
        (None, Some(file)) => read_query(&file)?,
        (None, None) => unreachable!("clap requires one"),
    };
    let params = parameters(&args.params, &args.string_params)?;
    let mut opts = engine::QueryOptions {
        partition_key: args.pk.as_deref().map(parse_pk).transpose()?,
        max_item_count: args.max_item_count.map(|n| n as usize),
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
        json!({"items": all.len(), "requestCharge": rounded(total)})
    );
    Ok(())
}

/// `--param @name=JSON` and `--param-str @name=text`, in that order.
fn parameters(json: &[String], strings: &[String]) -> Result<Vec<(String, Value)>, engine::Error> {
    let mut all = Vec::new();
    for p in json {
        let (name, raw) = p
            .split_once('=')
            .ok_or_else(|| engine::Error::bad("--param", format!("'{p}' is not @name=JSON")))?;
        let value = serde_json::from_str(raw).map_err(|e| {
            engine::Error::bad(
                "--param",
                format!(
                    "{name}: {raw} is not JSON ({e}); write a string as '\"text\"' or use --param-str {name}=text"
                ),
            )
        })?;
        all.push((name.to_owned(), value));
    }
    for p in strings {
        let (name, raw) = p
            .split_once('=')
            .ok_or_else(|| engine::Error::bad("--param-str", format!("'{p}' is not @name=text")))?;
        all.push((name.to_owned(), Value::String(raw.to_owned())));
    }
    Ok(all)
}

/// A query from a file, or from standard input for `-`.
fn read_query(file: &Path) -> Result<String, engine::Error> {
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
