//! `engine backup`: a consistent, compacted, verified copy of the data file.

use std::path::PathBuf;

use engine::Engine;
use serde_json::json;

use crate::error::CliError;

#[derive(clap::Args)]
pub struct Args {
    /// The directory to write `data.mdb` into (must not hold one already).
    pub out: PathBuf,
}

pub fn run(engine: &Engine, args: Args) -> Result<(), CliError> {
    let bytes = engine.backup(&args.out)?;
    eprintln!(
        "{}",
        json!({"backup": args.out.join("data.mdb"), "bytes": bytes})
    );
    Ok(())
}
