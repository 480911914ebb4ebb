//! Items: create, upsert, read, replace, delete, patch and the read feed, with the engine's
//! etags (`if-match`, `if-none-match`) and its request charge unchanged.

use actix_web::HttpResponse;
use engine::{ItemOptions, ItemResponse, PartitionKey, PatchOperation, QueryOptions};
use serde_json::Value;

use crate::error::{GatewayError, Result};
use crate::headers::{self, Reply};
use crate::request::Ctx;
use crate::resources;

fn options(ctx: &Ctx) -> Result<ItemOptions> {
    let list = |name: &str| -> Vec<String> {
        headers::get(ctx.headers(), name)
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    Ok(ItemOptions {
        if_match_etag: headers::get(ctx.headers(), "if-match").map(str::to_owned),
        enable_content_response_on_write: !headers::wants_minimal(ctx.req),
        pre_triggers: list("x-ms-documentdb-pre-trigger-include"),
        post_triggers: list("x-ms-documentdb-post-trigger-include"),
        exclude_from_index: headers::excluded_from_index(ctx.headers())?,
    })
}

fn required_pk(ctx: &Ctx) -> Result<PartitionKey> {
    headers::partition_key(ctx.headers())?.ok_or_else(|| {
        GatewayError::BadRequest(
            "PartitionKey value must be supplied for this operation (header \
             x-ms-documentdb-partitionkey)."
                .into(),
        )
    })
}

fn lsn_of(doc: &Value) -> u64 {
    doc.get("_lsn").and_then(Value::as_u64).unwrap_or(0)
}

fn reply(r: ItemResponse<Value>) -> HttpResponse {
    let out = Reply::new(r.status_code, r.request_charge).etag(r.etag.as_deref());
    match r.resource {
        Some(doc) => out
            .session(lsn_of(&doc))
            .item_lsn(lsn_of(&doc))
            .json(doc.to_string()),
        None => out.empty(),
    }
}

fn object(ctx: &Ctx) -> Result<Value> {
    let doc = ctx.json()?;
    if !doc.is_object() {
        return Err(GatewayError::BadRequest(
            "An item must be a JSON object.".into(),
        ));
    }
    Ok(doc)
}

pub async fn create(ctx: &Ctx<'_>, db: &str, c: &str) -> Result<HttpResponse> {
    let (client, _) = ctx.container(db, c)?;
    let doc = object(ctx)?;
    let pk = headers::partition_key(ctx.headers())?;
    let r = if headers::flag(ctx.headers(), headers::IS_UPSERT) {
        client.upsert_item(&doc, pk, Some(options(ctx)?)).await?
    } else {
        client.create_item(&doc, pk, Some(options(ctx)?)).await?
    };
    Ok(reply(r))
}

pub async fn read(ctx: &Ctx<'_>, db: &str, c: &str, id: &str) -> Result<HttpResponse> {
    let (client, def) = ctx.container(db, c)?;
    let pk = required_pk(ctx)?;
    // A read's `lsn` is its partition's, as the service's (`test_batch_lsn` expects a batch
    // after it one more); the item's own is `x-ms-item-lsn`.
    let partition_lsn = crate::session::key_lsn(&client, &def, &pk);
    let id_owned = id.to_owned();
    // One attempt, off the async thread: a 429 goes back to the SDK, which retries it itself.
    let r = tokio::task::spawn_blocking(move || client.read_item_raw(&id_owned, &pk))
        .await
        .map_err(|e| GatewayError::Engine(engine::Error::Unavailable(e.to_string())))??;
    if let (Some(want), Some(have)) = (headers::get(ctx.headers(), "if-none-match"), &r.etag) {
        if want == have || want == "*" {
            return Ok(Reply::new(304, r.request_charge).etag(Some(have)).empty());
        }
    }
    let body = r.resource.unwrap_or_default();
    let item_lsn = serde_json::from_slice::<Value>(&body)
        .map(|d| lsn_of(&d))
        .unwrap_or(0);
    Ok(Reply::new(200, r.request_charge)
        .etag(r.etag.as_deref())
        .session(partition_lsn.unwrap_or(item_lsn).max(item_lsn))
        .item_lsn(item_lsn)
        .json(body))
}

pub async fn replace(ctx: &Ctx<'_>, db: &str, c: &str, id: &str) -> Result<HttpResponse> {
    let (client, _) = ctx.container(db, c)?;
    // A body with another id renames the item (the engine's replace).
    let doc = object(ctx)?;
    let pk = headers::partition_key(ctx.headers())?;
    let r = client
        .replace_item(&doc, id, pk, Some(options(ctx)?))
        .await?;
    Ok(reply(r))
}

pub async fn delete(ctx: &Ctx<'_>, db: &str, c: &str, id: &str) -> Result<HttpResponse> {
    let (client, _) = ctx.container(db, c)?;
    let pk = required_pk(ctx)?;
    let r = client.delete_item(id, pk, Some(options(ctx)?)).await?;
    Ok(Reply::new(204, r.request_charge).empty())
}

/// Patch: `{"operations": [...], "condition": "FROM c WHERE ..."}`, or the operations alone as a
/// bare array (how the JavaScript SDK sends `item.patch([ops])`; Cosmos DB takes both). The
/// condition is the engine's (`patch_item_if`): checked and applied in one write.
pub async fn patch(ctx: &Ctx<'_>, db: &str, c: &str, id: &str) -> Result<HttpResponse> {
    let (client, _) = ctx.container(db, c)?;
    let pk = required_pk(ctx)?;
    let body = ctx.json()?;
    let operations = match &body {
        Value::Array(_) => body.clone(),
        _ => body.get("operations").cloned().unwrap_or(Value::Null),
    };
    let ops: Vec<PatchOperation> = serde_json::from_value(operations).map_err(|e| {
        GatewayError::BadRequest(format!(
            "The patch operations are invalid: {e} (expected {{\"operations\": [{{\"op\": \
             \"add|set|replace|remove|incr|move\", \"path\": \"/...\", ...}}]}}, or the \
             array of operations alone)"
        ))
    })?;
    let condition = match body.get("condition") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            return Err(GatewayError::BadRequest(
                "The patch condition must be a string such as \"FROM c WHERE c.x = 1\".".into(),
            ))
        }
    };
    let r = match condition {
        None => {
            client
                .patch_item::<Value>(id, pk, &ops, Some(options(ctx)?))
                .await?
        }
        Some(condition) => {
            client
                .patch_item_if::<Value>(id, pk, &ops, &condition, Some(options(ctx)?))
                .await?
        }
    };
    Ok(reply(r))
}

/// The read feed: every item, in pages of `x-ms-max-item-count`; with a partition key, that
/// logical partition's items.
pub async fn read_feed(ctx: &Ctx<'_>, db: &str, c: &str) -> Result<HttpResponse> {
    let (client, def) = ctx.container(db, c)?;
    let max = headers::max_item_count(ctx.headers())?.unwrap_or(100);
    let continuation = headers::continuation(ctx.headers());
    let page = match headers::partition_key(ctx.headers())? {
        Some(pk) => {
            let opts = QueryOptions {
                partition_key: Some(pk),
                max_item_count: Some(max),
                continuation,
                ..Default::default()
            };
            client
                .query_items::<Value>("SELECT * FROM c", engine::NO_PARAMS, opts)
                .await?
        }
        None => {
            client
                .read_all_items::<Value>(max, continuation.as_deref())
                .await?
        }
    };
    Ok(super::pages::feed_reply(
        &resources::container_rid(&def),
        page,
    ))
}

/// `POST …/operations/partitionkeydelete`: every item of one logical partition, the engine's
/// `delete_all_items_by_partition_key` (in all-or-nothing batches of 100; the whole, as in
/// Cosmos DB, is not one transaction).
pub async fn delete_partition(ctx: &Ctx<'_>, db: &str, c: &str) -> Result<HttpResponse> {
    let (client, _) = ctx.container(db, c)?;
    let pk = required_pk(ctx)?;
    let r = client.delete_all_items_by_partition_key(pk).await?;
    Ok(Reply::new(200, r.request_charge).empty())
}
