//! Transactional batch: `POST …/docs` with `x-ms-cosmos-is-batch-request`, a JSON array of up
//! to 100 operations in one logical partition, all committed or none. A failed batch answers
//! 207 with the failing operation's status and 424 for the others, which the SDKs turn into
//! their batch error. A non-atomic batch is bulk (`bulk.rs`).

use actix_web::HttpResponse;
use engine::TransactionalBatch;
use serde_json::{json, Value};

use super::batch_ops::{add, if_none_match, MAX_OPERATIONS};
use crate::error::{GatewayError, Result};
use crate::headers::{self, Reply};
use crate::request::Ctx;

pub fn is_batch(ctx: &Ctx) -> bool {
    headers::flag(ctx.headers(), "x-ms-cosmos-is-batch-request")
}

/// A read whose item still has the etag its `ifNoneMatch` names (or any, for `*`) is 304 and
/// carries no body, as a point read with If-None-Match is; it does not fail the batch (the
/// service commits a batch whatever its reads' conditions: azure-cosmos-dotnet-v3 issue 1581).
fn not_modified(op: &Value, result: &mut Value) {
    let (Some(want), Some(have)) = (if_none_match(op), result["eTag"].as_str()) else {
        return;
    };
    if op.get("operationType").and_then(Value::as_str) == Some("Read")
        && result["statusCode"] == 200
        && (want == "*" || want == have)
    {
        result["statusCode"] = json!(304);
        if let Some(o) = result.as_object_mut() {
            o.remove("resourceBody");
        }
    }
}

pub async fn execute(ctx: &Ctx<'_>, db: &str, c: &str) -> Result<HttpResponse> {
    let (client, def) = ctx.container(db, c)?;
    let pk = headers::partition_key(ctx.headers())?.ok_or_else(|| {
        GatewayError::BadRequest("A batch needs the partition key header of its operations.".into())
    })?;
    let body = ctx.json()?;
    let ops = body.as_array().ok_or_else(|| {
        GatewayError::BadRequest("A batch body is a JSON array of operations.".into())
    })?;
    // The service's own messages first (the SDKs' tests look for them), then ours.
    if ops.is_empty() {
        return Err(GatewayError::BadRequest(format!(
            "Batch request has no operations. A batch holds 1 to {MAX_OPERATIONS}."
        )));
    }
    if ops.len() > MAX_OPERATIONS {
        return Err(GatewayError::BadRequest(format!(
            "Batch request has more operations than what is supported. A batch holds 1 to \
             {MAX_OPERATIONS}; this one has {}.",
            ops.len()
        )));
    }
    let mut batch = TransactionalBatch::new(pk.clone());
    for (i, op) in ops.iter().enumerate() {
        batch = add(batch, i, op)?;
    }
    let r = client.execute_batch(batch).await?;
    let results: Vec<Value> = r
        .results
        .iter()
        .zip(ops)
        .map(|(o, op)| {
            let mut v = json!({"statusCode": o.status_code, "requestCharge": o.request_charge});
            if let Some(e) = &o.etag {
                v["eTag"] = json!(e);
            }
            if let Some(b) = &o.resource {
                v["resourceBody"] = b.clone();
            }
            not_modified(op, &mut v);
            v
        })
        .collect();
    let status = if r.is_success() { 200 } else { 207 };
    let mut reply = Reply::new(status, r.request_charge);
    // `lsn`: the partition's LSN once the batch is in (the Python SDK's
    // `test_cosmos_responses.py` compares it with the writes before it). The engine gives each
    // write of a batch its own LSN, where the service gives the batch one.
    if let Some(lsn) = crate::session::key_lsn(&client, &def, &pk) {
        reply = reply.session(lsn);
    }
    Ok(reply.json(Value::Array(results).to_string()))
}
