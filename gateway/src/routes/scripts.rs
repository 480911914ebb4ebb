//! Stored procedures, triggers and user-defined functions. Two kinds live side by side: the
//! ones the application registers with the engine at start (Rust, or JavaScript), listed and
//! run here but owned by the app, and JavaScript ones created over this API, which the gateway
//! keeps in the data directory (`script_store`) and which can be replaced and deleted.

use actix_web::HttpResponse;
use engine::TriggerOperation;
use serde_json::{json, Value};

use crate::error::{GatewayError, Result};
use crate::headers::{self, Reply};
use crate::request::Ctx;
use crate::resources;

/// What a resource registered by the application says in place of a body the gateway has not
/// seen.
const APP_BODY: &str = "// registered by the application when it starts";

/// A script's `_rid` names its container and its kind (`engine::rid`), its number is a hash
/// of its id: the `_self` link (`dbs/{rid}/colls/{rid}/{kind}/{rid}/`) resolves to it.
fn script_rid(def: &engine::ContainerDef, kind: &str, id: &str) -> String {
    let kind = engine::rid::ChildKind::of_segment(kind).expect("a script kind");
    engine::rid::child(&def.resource_bytes(), kind, id.as_bytes())
}

fn resource(def: &engine::ContainerDef, kind: &str, id: &str, body: &str) -> Value {
    let rid = script_rid(def, kind, id);
    json!({
        "id": id,
        "body": body,
        "_self": format!("{}{kind}/{rid}/", def.self_link()),
        "_rid": rid,
        "_etag": format!("\"{kind}-{id}\""),
        "_ts": def.created(),
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
    let (client, def) = ctx.container(db, c)?;
    let list = client.scripts().list()?;
    let body = |id: &str| {
        ctx.state
            .scripts
            .get(def.rid(), kind, id)
            .map(|s| s.body)
            .or_else(|| list.source(id).map(str::to_owned))
            .unwrap_or_else(|| APP_BODY.to_owned())
    };
    let items = match kind {
        "sprocs" => list
            .stored_procedures
            .iter()
            .map(|id| resource(&def, kind, id, &body(id)))
            .collect(),
        "triggers" => list
            .triggers
            .iter()
            .map(|t| {
                let mut v = resource(&def, kind, &t.id, &body(&t.id));
                v["triggerType"] = json!(if t.kind == "pre" { "Pre" } else { "Post" });
                v["triggerOperation"] = json!(operation(t.operation));
                v
            })
            .collect(),
        _ => list
            .user_defined_functions
            .iter()
            .map(|id| resource(&def, kind, id, &body(id)))
            .collect(),
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

fn page(items: Vec<Value>, rid: &str, kind: &str) -> HttpResponse {
    let n = items.len();
    Reply::new(200, 1.0)
        .header("x-ms-item-count", n.to_string())
        .json(resources::feed(rid, feed_key(kind), items).to_string())
}

pub fn list(ctx: &Ctx, db: &str, c: &str, kind: &str) -> Result<HttpResponse> {
    let (items, rid) = all(ctx, db, c, kind)?;
    Ok(page(items, &rid, kind))
}

/// `query_stored_procedures`, `query_triggers`, `query_user_defined_functions`
/// ([`super::resource_query`]).
pub fn query(ctx: &Ctx, db: &str, c: &str, kind: &str) -> Result<HttpResponse> {
    let (items, rid) = all(ctx, db, c, kind)?;
    Ok(page(super::resource_query::select(ctx, items)?, &rid, kind))
}

/// The id of the script of `kind` whose `_rid` is `rid`, for `_self` links.
pub fn id_of_rid(ctx: &Ctx, db: &str, c: &str, kind: &str, rid: &str) -> Result<Option<String>> {
    let (items, _) = all(ctx, db, c, kind)?;
    Ok(items
        .into_iter()
        .find(|v| v["_rid"] == rid)
        .and_then(|v| v["id"].as_str().map(str::to_owned)))
}

pub fn read(ctx: &Ctx, db: &str, c: &str, kind: &str, id: &str) -> Result<HttpResponse> {
    let (items, _) = all(ctx, db, c, kind)?;
    let found = items
        .into_iter()
        .find(|v| v["id"] == id)
        .ok_or_else(|| GatewayError::NotFound(format!("Resource Not Found: {kind}/{id}.")))?;
    Ok(Reply::new(200, 1.0).json(found.to_string()))
}

fn compile_error(e: impl std::fmt::Display) -> GatewayError {
    GatewayError::BadRequest(format!(
        "Encountered exception while compiling Javascript. Exception = {e}"
    ))
}

/// Create (`id` = None) or replace a JavaScript stored procedure or trigger.
pub async fn write(
    ctx: &Ctx<'_>,
    db: &str,
    c: &str,
    kind: &str,
    path_id: Option<&str>,
) -> Result<HttpResponse> {
    let (client, def) = ctx.container(db, c)?;
    let body = ctx.json()?;
    let id = body.get("id").and_then(Value::as_str).ok_or_else(|| {
        GatewayError::BadRequest(format!("The {kind} resource needs a string 'id'."))
    })?;
    let source = body.get("body").and_then(Value::as_str).ok_or_else(|| {
        GatewayError::BadRequest(format!("The {kind} resource needs a string 'body'."))
    })?;
    let exists = |id: &str| -> Result<bool> {
        let list = client.scripts().list()?;
        Ok(match kind {
            "sprocs" => list.stored_procedures.iter().any(|p| p == id),
            "udfs" => list.user_defined_functions.iter().any(|f| f == id),
            _ => list.triggers.iter().any(|t| t.id == id),
        })
    };
    let ours = ctx.state.scripts.get(def.rid(), kind, id).is_some();
    match path_id {
        None if exists(id)? => {
            return Err(GatewayError::Conflict(format!(
                "Resource with specified id or name already exists: {kind}/{id}."
            )))
        }
        None => {}
        Some(p) if p != id => {
            return Err(GatewayError::BadRequest(format!(
                "The body's id '{id}' is not the id in the path, '{p}'."
            )))
        }
        Some(_) if ours => {}
        Some(_) if exists(id)? => return Err(app_owned(kind, id)),
        Some(_) => {
            return Err(GatewayError::NotFound(format!(
                "Resource Not Found: {kind}/{id}."
            )))
        }
    }
    let field = |k: &str| body.get(k).and_then(Value::as_str).map(str::to_owned);
    let script = crate::script_store::StoredScript {
        container: def.rid(),
        kind: kind.to_owned(),
        id: id.to_owned(),
        body: source.to_owned(),
        trigger_type: (kind == "triggers").then(|| field("triggerType")).flatten(),
        trigger_operation: (kind == "triggers")
            .then(|| field("triggerOperation"))
            .flatten(),
        ts: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
    };
    // Checked on the engine's query threads, never on this request worker.
    engine::JavaScript::compile(source)
        .await
        .and_then(|js| crate::script_store::register_compiled(&client, &script, js))
        .map_err(|e| match e {
            engine::Error::BadRequest { message, .. } => compile_error(message),
            e => e.into(),
        })?;
    ctx.state.scripts.put(script.clone()).map_err(saving)?;
    let mut v = resource(&def, kind, id, source);
    if kind == "triggers" {
        v["triggerType"] = json!(script.trigger_type);
        v["triggerOperation"] = json!(script.trigger_operation);
    }
    Ok(Reply::new(if path_id.is_some() { 200 } else { 201 }, 1.0).json(v.to_string()))
}

fn saving(e: std::io::Error) -> GatewayError {
    GatewayError::Internal(format!(
        "the script could not be saved in {}: {e}",
        crate::script_store::FILE
    ))
}

fn app_owned(kind: &str, id: &str) -> GatewayError {
    GatewayError::MethodNotAllowed(format!(
        "{kind}/{id} is registered by the application when it starts; it cannot be replaced or \
         deleted over the REST API."
    ))
}

pub fn delete(ctx: &Ctx, db: &str, c: &str, kind: &str, id: &str) -> Result<HttpResponse> {
    let (client, def) = ctx.container(db, c)?;
    if ctx.state.scripts.get(def.rid(), kind, id).is_none() {
        read(ctx, db, c, kind, id)?;
        return Err(app_owned(kind, id));
    }
    let scripts = client.scripts();
    match kind {
        "sprocs" => scripts.delete_stored_procedure(id)?,
        "udfs" => scripts.delete_user_defined_function(id)?,
        _ => scripts.delete_trigger(id)?,
    }
    ctx.state
        .scripts
        .remove(def.rid(), kind, id)
        .map_err(saving)?;
    Ok(Reply::new(204, 1.0).empty())
}

/// `POST …/sprocs/{id}`: the body is the JSON array of its arguments; the partition key
/// header names the logical partition it runs in, as one transaction.
pub async fn execute(ctx: &Ctx<'_>, db: &str, c: &str, id: &str) -> Result<HttpResponse> {
    let (client, _) = ctx.container(db, c)?;
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
        .execute_stored_procedure::<Value>(id, pk, &args)
        .await?;
    let mut reply = Reply::new(200, r.request_charge);
    // The script's console.log, when the request asks for it, URL-encoded as the service sends
    // it (the Python SDK's test_crud.py compares it with urllib's quote()).
    let logging = ctx
        .headers()
        .get("x-ms-documentdb-script-enable-logging")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    if logging {
        const QUOTE: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
            .remove(b'-')
            .remove(b'_')
            .remove(b'.')
            .remove(b'~')
            .remove(b'/');
        let log = percent_encoding::utf8_percent_encode(&r.script_log, QUOTE).to_string();
        reply = reply.header("x-ms-documentdb-script-log-results", log);
    }
    Ok(reply.json(r.resource.to_string()))
}
