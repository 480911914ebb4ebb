//! One operation of a batch request (`operationType`, `id`, `resourceBody`, `ifMatch`,
//! `ifNoneMatch`) added to the engine's batch: the same for a transactional batch (`batch.rs`)
//! and for bulk, which runs each operation as a batch of one (`bulk.rs`).

use engine::{PatchOperation, TransactionalBatch};
use serde_json::Value;

use crate::error::{GatewayError, Result};

/// The most operations one request carries, batch or bulk.
pub const MAX_OPERATIONS: usize = 100;

fn bad(i: usize, why: impl std::fmt::Display) -> GatewayError {
    GatewayError::BadRequest(format!("Batch operation {i} is invalid: {why}."))
}

/// Adds operation `i` of the request to `batch`; a malformed one is a 400 that names it.
pub fn add(batch: TransactionalBatch, i: usize, op: &Value) -> Result<TransactionalBatch> {
    let kind = op
        .get("operationType")
        .and_then(Value::as_str)
        .unwrap_or("");
    let id = || {
        op.get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| bad(i, "it needs a string 'id'"))
    };
    let body = || {
        op.get("resourceBody")
            .filter(|b| b.is_object())
            .ok_or_else(|| bad(i, "it needs a 'resourceBody' object"))
    };
    let if_match = op.get("ifMatch").and_then(Value::as_str).map(str::to_owned);
    if if_match.is_some() && matches!(kind, "Create" | "Upsert" | "Read") {
        return Err(bad(i, format!("ifMatch does not apply to {kind} here")));
    }
    let batch = match kind {
        "Create" => batch.create_item(body()?),
        "Upsert" => batch.upsert_item(body()?),
        "Replace" => batch.replace_item(id()?, body()?, if_match),
        "Delete" => batch.delete_item(id()?, if_match),
        "Read" => batch.read_item(id()?),
        "Patch" => {
            let b = body()?;
            let ops: Vec<PatchOperation> =
                serde_json::from_value(b.get("operations").cloned().unwrap_or(Value::Null))
                    .map_err(|e| bad(i, format!("its patch operations: {e}")))?;
            match b.get("condition") {
                None | Some(Value::Null) => batch.patch_item(id()?, ops, if_match),
                Some(Value::String(condition)) => {
                    batch.patch_item_if(id()?, ops, condition, if_match)
                }
                Some(_) => return Err(bad(i, "its patch condition must be a string")),
            }
        }
        other => {
            return Err(bad(
                i,
                format!(
                    "operationType '{other}' is not Create, Upsert, Replace, Delete, Read or Patch"
                ),
            ))
        }
    };
    // `ifNoneMatch` (the SDKs' `if_none_match_etag` / `IfNoneMatchEtag`): a write applies only
    // if the item's etag is another (`*`: only if there is none), else 412, checked by the
    // engine in the batch's transaction; a read's is answered after it (`not_modified`).
    Ok(match if_none_match(op) {
        Some(etag) if kind != "Read" => batch.if_none_match(etag),
        _ => batch,
    })
}

pub fn if_none_match(op: &Value) -> Option<&str> {
    op.get("ifNoneMatch").and_then(Value::as_str)
}
