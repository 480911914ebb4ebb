//! `engine delete-partition`: deletes every item of one logical partition (Cosmos DB's
//! `DeleteAllItemsByPartitionKey`), in transactional batches of 100; prints what it cost.

use engine::Engine;
use serde_json::json;

use crate::error::CliError;
use crate::output::{parse_pk, rounded, Target};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: Target,
    /// The logical partition to empty (read as JSON when it parses as JSON, else a string).
    #[arg(long, allow_hyphen_values = true)]
    pk: String,
}

pub async fn run(engine: &Engine, args: Args) -> Result<(), CliError> {
    let pk = parse_pk(&args.pk)?;
    let r = args
        .target
        .client(engine)
        .charged()
        .delete_all_items_by_partition_key(pk)
        .await?;
    eprintln!(
        "{}",
        json!({"deleted": r.diagnostics.items_written, "requestCharge": rounded(r.request_charge)})
    );
    Ok(())
}
