//! `engine get`: a point read of one item, as the SDKs' `read_item`.

use engine::{Engine, PartitionKey};
use serde_json::Value;

use crate::error::CliError;
use crate::output::{charge_line, out, parse_pk, Target};

#[derive(clap::Args)]
pub struct Args {
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
}

pub async fn run(engine: &Engine, args: Args) -> Result<(), CliError> {
    let c = args.target.client(engine);
    let pk = match args.pk {
        Some(raw) if !args.pk_none => parse_pk(&raw)?,
        // A hierarchical key is one value per path: each of them absent.
        _ => match c.read_container()?.partition_key().paths.len() {
            1 => PartitionKey::None,
            levels => PartitionKey::Hierarchical(vec![PartitionKey::None; levels]),
        },
    };
    let r = c.charged().read_item::<Value>(&args.id, pk, None).await?;
    out(&serde_json::to_string_pretty(&r.resource).unwrap_or_default());
    charge_line(r.request_charge, &r.diagnostics);
    Ok(())
}
