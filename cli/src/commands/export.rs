//! `engine export`: every item of a container (or of one logical partition), as JSON lines or
//! one array, refused when it read fewer items than the container's counters record.

use engine::{Engine, PartitionKey};
use serde_json::{json, Value};

use crate::error::{not_advancing, CliError};
use crate::output::{out, parse_pk, rounded, Target};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: Target,
    /// Only this logical partition (read as JSON when it parses as JSON, else a string).
    #[arg(long, allow_hyphen_values = true)]
    pk: Option<String>,
    /// Print one JSON array instead of JSON lines.
    #[arg(long)]
    array: bool,
}

pub async fn run(engine: &Engine, args: Args) -> Result<(), CliError> {
    let c = args.target.client(engine);
    let mut collected = Vec::new();
    let mut total = 0.0;
    let mut emit = |items: Vec<Value>| {
        for item in items {
            if args.array {
                collected.push(item);
            } else {
                out(&item.to_string());
            }
        }
    };
    let mut count = 0;
    let pk = args.pk.as_deref().map(parse_pk).transpose()?;
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
    if args.array {
        out(&serde_json::to_string_pretty(&collected).unwrap_or_default());
    }
    eprintln!(
        "{}",
        json!({"items": count, "requestCharge": rounded(total)})
    );
    complete(&c, pk.as_ref(), version, count as u64)?;
    Ok(())
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
