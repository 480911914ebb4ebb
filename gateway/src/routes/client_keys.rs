//! Client encryption keys of a database (`/dbs/{db}/clientencryptionkeys`): create, read
//! (`If-None-Match` → 304), replace (`If-Match` → 412 when stale), list and query — what the
//! Always Encrypted clients call: .NET `Database.CreateClientEncryptionKeyAsync`,
//! `GetClientEncryptionKey(id).ReadAsync/ReplaceAsync`, `GetClientEncryptionKeyQueryIterator`;
//! Java `CosmosAsyncDatabase.createClientEncryptionKey`, `readAllClientEncryptionKeys`;
//! JavaScript `database.createClientEncryptionKey`, `readClientEncryptionKey`,
//! `rewrapClientEncryptionKey` (a replace with `If-Match`; its encryption processor re-reads a
//! key with `If-None-Match` and takes a 304 as "revoked, rewrap it"). No SDK deletes one; a
//! database's keys go with it. Storage: `crate::client_keys`.

use actix_web::HttpResponse;
use engine::DatabaseDef;
use serde_json::{json, Map, Value};

use super::users::id_of;
use crate::client_keys::{etag, KeyError, StoredKey};
use crate::error::{GatewayError, Result};
use crate::headers::{self, Reply};
use crate::request::Ctx;
use crate::resources;

/// The key as the service shows it: its properties, then the system ones.
fn key_json(db: &DatabaseDef, id: &str, k: &StoredKey) -> Value {
    let mut rid = db.number().to_le_bytes().to_vec();
    rid.extend_from_slice(&k.number.to_le_bytes());
    let rid = engine::rid::encode(&rid);
    let mut v = Map::new();
    v.insert("id".into(), json!(id));
    v.extend(k.properties.clone());
    v.insert("_rid".into(), json!(rid));
    v.insert(
        "_self".into(),
        json!(format!(
            "dbs/{}/clientencryptionkeys/{rid}/",
            db.resource_id()
        )),
    );
    v.insert("_etag".into(), json!(etag(k.version)));
    v.insert("_ts".into(), json!(k.ts));
    Value::Object(v)
}

/// The settable properties of a key body: `encryptionAlgorithm` (a string),
/// `wrappedDataEncryptionKey` (base64, as the SDKs serialize its bytes) and `keyWrapMetadata`
/// (an object: `type`, `name`, `value`, `algorithm`), each required, as the SDKs always send
/// them. Other properties are kept as sent, system ones (`_rid`, `_etag`, ...) dropped.
fn properties_of(body: &Value) -> Result<(String, Map<String, Value>)> {
    let id = id_of(body, "client encryption key")?;
    let bad = |what: &str| {
        GatewayError::BadRequest(format!(
            "The client encryption key needs {what} (the SDKs' ClientEncryptionKeyProperties)."
        ))
    };
    let obj = body.as_object().ok_or_else(|| bad("a JSON object"))?;
    if !obj.get("encryptionAlgorithm").is_some_and(Value::is_string) {
        return Err(bad("a string 'encryptionAlgorithm'"));
    }
    let wrapped = obj.get("wrappedDataEncryptionKey").and_then(Value::as_str);
    let decodes = wrapped.is_some_and(|w| {
        use base64::Engine as _;
        !w.is_empty() && base64::engine::general_purpose::STANDARD.decode(w).is_ok()
    });
    if !decodes {
        return Err(bad("a base64 'wrappedDataEncryptionKey'"));
    }
    if !obj.get("keyWrapMetadata").is_some_and(Value::is_object) {
        return Err(bad("an object 'keyWrapMetadata'"));
    }
    let kept = obj
        .iter()
        .filter(|(k, _)| *k != "id" && !k.starts_with('_'))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok((id, kept))
}

fn refused(e: KeyError) -> GatewayError {
    match e {
        KeyError::Exists(_) => GatewayError::Conflict(e.to_string()),
        KeyError::NotFound(_) => GatewayError::NotFound(e.to_string()),
        KeyError::Stale => GatewayError::PreconditionFailed(e.to_string()),
        KeyError::Io(_) => GatewayError::Internal(e.to_string()),
    }
}

fn all(ctx: &Ctx, db: &DatabaseDef) -> Vec<Value> {
    ctx.state
        .client_keys
        .list(db.number())
        .iter()
        .map(|(id, k)| key_json(db, id, k))
        .collect()
}

fn page(db: &DatabaseDef, keys: Vec<Value>) -> HttpResponse {
    let n = keys.len();
    Reply::new(200, 1.0)
        .header("x-ms-item-count", n.to_string())
        .json(resources::feed(&db.resource_id(), "ClientEncryptionKeys", keys).to_string())
}

pub fn list(ctx: &Ctx, db: &str) -> Result<HttpResponse> {
    let db = ctx.database(db)?;
    Ok(page(&db, all(ctx, &db)))
}

/// `GetClientEncryptionKeyQueryIterator` (`resource_query`).
pub fn query(ctx: &Ctx, db: &str) -> Result<HttpResponse> {
    let db = ctx.database(db)?;
    let selected = super::resource_query::select(ctx, all(ctx, &db))?;
    Ok(page(&db, selected))
}

pub fn create(ctx: &Ctx, db: &str) -> Result<HttpResponse> {
    let db = ctx.database(db)?;
    let (id, properties) = properties_of(&ctx.json()?)?;
    let k = ctx
        .state
        .client_keys
        .create(db.number(), &id, properties)
        .map_err(refused)?;
    let body = key_json(&db, &id, &k);
    Ok(Reply::new(201, 1.0)
        .etag(Some(&etag(k.version)))
        .json(body.to_string()))
}

pub fn read(ctx: &Ctx, db: &str, id: &str) -> Result<HttpResponse> {
    let db = ctx.database(db)?;
    let k = ctx
        .state
        .client_keys
        .read(db.number(), id)
        .ok_or_else(|| refused(KeyError::NotFound(id.to_owned())))?;
    let tag = etag(k.version);
    if headers::get(ctx.headers(), "if-none-match") == Some(tag.as_str()) {
        return Ok(Reply::new(304, 1.0).etag(Some(&tag)).empty());
    }
    Ok(Reply::new(200, 1.0)
        .etag(Some(&tag))
        .json(key_json(&db, id, &k).to_string()))
}

/// Replace: the body is the whole key, its id the path's (a key is not renamed).
pub fn replace(ctx: &Ctx, db: &str, id: &str) -> Result<HttpResponse> {
    let db = ctx.database(db)?;
    let (body_id, properties) = properties_of(&ctx.json()?)?;
    if body_id != id {
        return Err(GatewayError::BadRequest(format!(
            "The client encryption key's id '{body_id}' is not the one the path names ('{id}')."
        )));
    }
    let if_match = headers::get(ctx.headers(), "if-match");
    let k = ctx
        .state
        .client_keys
        .replace(db.number(), id, if_match, properties)
        .map_err(refused)?;
    Ok(Reply::new(200, 1.0)
        .etag(Some(&etag(k.version)))
        .json(key_json(&db, id, &k).to_string()))
}
