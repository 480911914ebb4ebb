//! `engine stats`: physical partitions — ranges, sizes, item counts, load and the largest
//! logical partitions (the partition heat a learner reads beside the partitioning article).

use engine::Engine;

use crate::error::CliError;
use crate::output::{out, Target};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: Target,
    /// How many of the largest logical partitions to list per physical partition.
    #[arg(long, default_value_t = 5)]
    top: usize,
}

pub async fn run(engine: &Engine, args: Args) -> Result<(), CliError> {
    let stats = args.target.client(engine).stats(args.top).await?;
    out(&serde_json::to_string_pretty(&stats).unwrap_or_default());
    Ok(())
}
