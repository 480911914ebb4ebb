//! `engine check`: verifies every container (items parse, index entries and counters match the
//! items, partitions tile the hash space); a report line per container, non-zero on any problem.

use engine::Engine;

use crate::error::CliError;
use crate::output::out;

pub fn run(engine: &Engine) -> Result<(), CliError> {
    let reports = engine.check()?;
    for r in &reports {
        out(&serde_json::to_string(r).unwrap_or_default());
    }
    match engine::check_failed(&reports) {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}
