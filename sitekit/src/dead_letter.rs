//! Changes a change-feed worker cannot handle, set aside instead of stopping it. A document the
//! worker cannot decode will never decode: retrying it forever (what a failing batch does) stops
//! the lease — and every later change of its partitions — for good. It is written to the
//! worker's lease container instead, under the partition `deadLetter:<processor>`, where the
//! Data Explorer's item browser shows it with the error, and the worker goes on.

use cosmos::Container;
use serde_json::{json, Value};

/// The lease-container partition holding `processor`'s set-aside changes.
pub fn partition(processor: &str) -> String {
    format!("deadLetter:{processor}")
}

/// Records `change` (which failed with `error`) for `processor`; idempotent per document
/// version (a redelivered batch writes the same item again).
pub async fn set_aside(
    leases: &Container,
    processor: &str,
    change: &Value,
    error: &str,
) -> cosmos::Result<()> {
    let id = format!(
        "{}@{}",
        change["id"].as_str().unwrap_or("unknown"),
        change["_lsn"]
            .as_u64()
            .or_else(|| change["_ts"].as_u64())
            .unwrap_or(0)
    );
    tracing::warn!(processor, id, error, "change set aside (dead letter)");
    leases
        .upsert_item(
            &json!({
                "id": id,
                "processor": partition(processor),
                "error": error,
                "change": change,
                "setAsideAt": crate::time::now(),
            }),
            None,
            None,
        )
        .await?;
    Ok(())
}
