//! `engine list`: databases and their containers, with each container's settings.

use engine::Engine;
use serde_json::{json, Value};

use crate::error::CliError;
use crate::output::out;

pub fn run(engine: &Engine) -> Result<(), CliError> {
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
