//! Stored procedures, triggers and UDFs. The engine runs server-side logic written in Rust and
//! registered by the app at start (no JavaScript yet): the gateway lists those as resources,
//! executes stored procedures and runs triggers named in the item headers. A JavaScript body
//! sent to create or replace one is answered as Cosmos DB answers a script it cannot compile:
//! 400, "Encountered exception while compiling Javascript".

use actix_web::HttpResponse;
use engine::TriggerOperation;
use serde_json::{json, Value};

use super::Ctx;
use crate::error::{GatewayError, Result};
use crate::headers::{self, Reply};
use crate::resources;

/// What a resource of a registered script says in place of its JavaScript body.
const RUST_BODY: &str =
    "// registered by the application in Rust; this engine does not run JavaScript yet";

fn resource(def: &engine::ContainerDef, kind: &str, id: &str) -> Value {
    let rid = format!("{}-{kind}-{id}", resources::container_rid(def));
    json!({
        "id": id,
        "body": RUST_BODY,
        "_rid": rid,
        "_self": format!("{}{kind}/{id}/", resources::container_self(def)),
        "_etag": format!("\"{kind}-{id}\""),
        "_ts": def.created,
    })
}

fn operation(op: TriggerOperation) -> &'static str {
    match op {
        TriggerOperation::All => "All",
        TriggerOperation::Create => "Create",
        TriggerOperation::Replace => "Replace",
        TriggerOperation::Upsert => "Upsert",
        TriggerOperation::Delete => "Delete",
    }
}

/// Every script of `kind` (`sprocs`, `triggers`, `udfs`) the container has.
fn all(ctx: &Ctx, db: &str, c: &str, kind: &str) -> Result<(Vec<Value>, String)> {
    let (client, def) = super::container(ctx, db, c)?;
    let list = client.scripts().list()?;
    let items = match kind {
        "sprocs" => list
            .stored_procedures
            .iter()
            .map(|id| resource(&def, kind, id))
            .collect(),
        "triggers" => list
            .triggers
            .iter()
            .map(|t| {
                let mut v = resource(&def, kind, &t.id);
                v["triggerType"] = json!(if t.kind == "pre" { "Pre" } else { "Post" });
                v["triggerOperation"] = json!(operation(t.operation));
                v
            })
            .collect(),
        _ => Vec::new(),
    };
    Ok((items, resources::container_rid(&def)))
}

fn feed_key(kind: &str) -> &'static str {
    match kind {
        "sprocs" => "StoredProcedures",
        "triggers" => "Triggers",
        _ => "UserDefinedFunctions",
    }
}

pub fn list(ctx: &Ctx, db: &str, c: &str, kind: &str) -> Result<HttpResponse> {
    let (items, rid) = all(ctx, db, c, kind)?;
    let n = items.len();
    Ok(Reply::new(200, 1.0)
        .header("x-ms-item-count", n.to_string())
        .json(resources::feed(&rid, feed_key(kind), items).to_string()))
}

pub fn read(ctx: &Ctx, db: &str, c: &str, kind: &str, id: &str) -> Result<HttpResponse> {
    let (items, _) = all(ctx, db, c, kind)?;
    let found = items
        .into_iter()
        .find(|v| v["id"] == id)
        .ok_or_else(|| GatewayError::NotFound(format!("Resource Not Found: {kind}/{id}.")))?;
    Ok(Reply::new(200, 1.0).json(found.to_string()))
}

/// Create or replace with a JavaScript body: the answer of a script that does not compile.
pub fn write(ctx: &Ctx, db: &str, c: &str, kind: &str) -> Result<HttpResponse> {
    super::container(ctx, db, c)?;
    let body = ctx.json()?;
    let id = body.get("id").and_then(Value::as_str).unwrap_or("?");
    Err(GatewayError::BadRequest(format!(
        "Encountered exception while compiling Javascript. Exception = Error: {kind}/{id}: this \
         engine does not run JavaScript yet; server-side logic is registered by the \
         application in Rust (engine::ScriptsClient)."
    )))
}

pub fn delete(ctx: &Ctx, db: &str, c: &str, kind: &str, id: &str) -> Result<HttpResponse> {
    read(ctx, db, c, kind, id)?;
    Err(GatewayError::MethodNotAllowed(format!(
        "{kind}/{id} is registered by the application at start; it cannot be deleted over the \
         REST API."
    )))
}

/// `POST …/sprocs/{id}`: the body is the JSON array of its arguments; the partition key
/// header names the logical partition it runs in, as one transaction.
pub async fn execute(ctx: &Ctx<'_>, db: &str, c: &str, id: &str) -> Result<HttpResponse> {
    let (client, _) = super::container(ctx, db, c)?;
    let pk = headers::partition_key(ctx.headers())?.ok_or_else(|| {
        GatewayError::BadRequest(
            "A stored procedure runs in one logical partition: send its partition key header."
                .into(),
        )
    })?;
    let args = if ctx.body.is_empty() {
        Vec::new()
    } else {
        match ctx.json()? {
            Value::Array(a) => a,
            Value::Null => Vec::new(),
            other => vec![other],
        }
    };
    let r = client
        .scripts()
        .execute_stored_procedure::<Value>(id, pk, &args)
        .await?;
    Ok(Reply::new(200, r.request_charge).json(r.resource.to_string()))
}
