//! Bulk: a non-atomic batch (`x-ms-cosmos-is-batch-request` with `x-ms-cosmos-batch-atomic:
//! False`), how the JavaScript SDK's `items.bulk()` / `executeBulkOperations()` and the other
//! SDKs' bulk executors send up to 100 operations of one partition key range (its id in
//! `x-ms-documentdb-partitionkeyrangeid`, each operation's key in its own `partitionKey`, a JSON
//! array as text). Unlike a transactional batch, each operation commits or fails on its own: the
//! answer has one result per operation (its status, etag, body and RU), the ones after a failure
//! are still run unless `x-ms-cosmos-batch-continue-on-error` is false (then they answer 424, as
//! in a failed batch), and the request's charge is the sum of the operations'. Any failed
//! operation makes it a 207, which the SDKs read per operation (a 429 one is retried alone).

use actix_web::HttpResponse;
use engine::TransactionalBatch;
use serde_json::{json, Value};

use super::batch_ops::{self, MAX_OPERATIONS};
use crate::error::{GatewayError, Result};
use crate::headers::{self, Reply};
use crate::request::Ctx;

pub fn is_bulk(ctx: &Ctx) -> bool {
    headers::get(ctx.headers(), "x-ms-cosmos-batch-atomic")
        .is_some_and(|v| v.eq_ignore_ascii_case("false"))
}

/// One operation alone: a batch of one in its own logical partition.
fn single(i: usize, op: &Value) -> Result<TransactionalBatch> {
    let raw = op
        .get("partitionKey")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            GatewayError::BadRequest(format!(
            "Batch operation {i} is invalid: a bulk operation needs its 'partitionKey' (a JSON \
             array as text, e.g. \"[\\\"value\\\"]\")."
        ))
        })?;
    let pk = headers::parse_partition_key(raw, "partitionKey")?;
    batch_ops::add(TransactionalBatch::new(pk), i, op)
}

pub async fn execute(ctx: &Ctx<'_>, db: &str, c: &str) -> Result<HttpResponse> {
    let (client, def) = ctx.container(db, c)?;
    // The range the SDK computed the operations' keys into: gone after a split (410/1002, and
    // the SDK sorts the operations into the new ranges).
    super::scope::addressed(ctx, &def)?;
    let body = ctx.json()?;
    let ops = body.as_array().ok_or_else(|| {
        GatewayError::BadRequest("A batch body is a JSON array of operations.".into())
    })?;
    if ops.is_empty() || ops.len() > MAX_OPERATIONS {
        return Err(GatewayError::BadRequest(format!(
            "Batch request has {} operations. A batch holds 1 to {MAX_OPERATIONS}.",
            ops.len()
        )));
    }
    // Every operation is read before any runs: a malformed one refuses the request whole.
    let batches = ops
        .iter()
        .enumerate()
        .map(|(i, op)| single(i, op))
        .collect::<Result<Vec<_>>>()?;
    let continue_on_error = !headers::get(ctx.headers(), "x-ms-cosmos-batch-continue-on-error")
        .is_some_and(|v| v.eq_ignore_ascii_case("false"));
    let (mut results, mut total, mut failed) = (Vec::with_capacity(ops.len()), 0.0, false);
    for b in batches {
        if failed && !continue_on_error {
            results.push(json!({"statusCode": 424, "requestCharge": 0}));
            continue;
        }
        let result = match client.execute_batch(b).await {
            Ok(r) => {
                let o = &r.results[0];
                let mut v = json!({"statusCode": o.status_code, "requestCharge": r.request_charge});
                if let Some(e) = &o.etag {
                    v["eTag"] = json!(e);
                }
                if let Some(body) = &o.resource {
                    v["resourceBody"] = body.clone();
                }
                if let Some(m) = &r.error_message {
                    v["message"] = json!(m);
                }
                total += r.request_charge;
                v
            }
            // Refused before it ran (a throttled partition's 429, a key the container does not
            // take): nothing done, nothing charged.
            Err(e) => {
                let mut v = json!({
                    "statusCode": e.status_code(),
                    "subStatusCode": e.sub_status().unwrap_or(0),
                    "requestCharge": 0,
                    "message": e.to_string(),
                });
                if let Some(wait) = e.retry_after() {
                    v["retryAfterMilliseconds"] = json!(wait.as_millis().max(1) as u64);
                }
                v
            }
        };
        failed |= !(200..300).contains(&result["statusCode"].as_u64().unwrap_or(500));
        results.push(result);
    }
    let status = if failed { 207 } else { 200 };
    Ok(Reply::new(status, total).json(Value::Array(results).to_string()))
}
