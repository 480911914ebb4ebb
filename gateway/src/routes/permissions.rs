//! Permissions of a user (`/dbs/{db}/users/{user}/permissions`): create, upsert, read, replace,
//! delete, list and query, as the REST API's "Permissions" operations answer them. Every answer
//! that carries a permission carries a fresh resource token (`_token`), valid for
//! `x-ms-documentdb-expiry-seconds` (`resource_token`).

use actix_web::HttpResponse;
use engine::{DatabaseDef, PermissionDef, PermissionMode, PermissionSpec, UserDef};
use serde_json::{json, Value};

use super::users::{conflict, etag, id_of};
use crate::error::{GatewayError, Result};
use crate::headers::{self, Reply};
use crate::request::Ctx;
use crate::{resource_token, resources};

fn permission_json(
    ctx: &Ctx,
    db: &DatabaseDef,
    u: &UserDef,
    p: &PermissionDef,
    seconds: u64,
) -> Value {
    let rid = p.resource_id(db.number(), u);
    let mut v = json!({
        "id": p.spec.id,
        "permissionMode": if p.spec.mode_as_sent.is_empty() {
            p.spec.mode.as_str()
        } else {
            &p.spec.mode_as_sent
        },
        "resource": p.spec.resource,
        "_rid": rid,
        "_self": format!("dbs/{}/users/{}/permissions/{rid}/", db.resource_id(), u.resource_id(db.number())),
        "_etag": etag(p.version),
        "_ts": p.ts,
        "_token": resource_token::issue(&ctx.state.key, db.number(), u, p, seconds),
    });
    if let Some(pk) = &p.spec.resource_partition_key {
        v["resourcePartitionKey"] = pk.clone();
    }
    v
}

/// The settable properties of a permission body: `id`, `permissionMode` (`All` or `Read`),
/// `resource` (a link) and the optional `resourcePartitionKey` (a key value, or an array of one).
fn spec_of(body: &Value) -> Result<PermissionSpec> {
    let id = id_of(body, "permission")?;
    let mode_as_sent = body.get("permissionMode").and_then(Value::as_str);
    let mode = mode_as_sent
        .and_then(PermissionMode::parse)
        .ok_or_else(|| {
            GatewayError::BadRequest(
                "The permission needs a 'permissionMode' of 'All' or 'Read'.".into(),
            )
        })?;
    let resource = body
        .get("resource")
        .and_then(Value::as_str)
        .filter(|r| !r.trim_matches('/').is_empty())
        .ok_or_else(|| {
            GatewayError::BadRequest(
                "The permission needs a 'resource': the link of the resource it grants (for \
                 example dbs/volcanodb/colls/volcano1)."
                    .into(),
            )
        })?;
    let resource_partition_key = match body.get("resourcePartitionKey") {
        None | Some(Value::Null) => None,
        Some(v @ (Value::Array(_) | Value::String(_) | Value::Number(_) | Value::Bool(_))) => {
            Some(v.clone())
        }
        Some(other) => {
            return Err(GatewayError::BadRequest(format!(
                "The permission's 'resourcePartitionKey' is {other}: a partition key value \
                 (or an array of its values) was expected."
            )))
        }
    };
    Ok(PermissionSpec {
        id,
        mode,
        mode_as_sent: mode_as_sent.unwrap_or_default().to_owned(),
        resource: resource.to_owned(),
        resource_partition_key,
    })
}

struct Owner {
    db: DatabaseDef,
    user: UserDef,
    users: engine::UsersClient,
}

fn owner(ctx: &Ctx, db: &str, user: &str) -> Result<Owner> {
    let db = ctx.database(db)?;
    let users = ctx.engine().database(&db.id).users();
    let user = users.read_user(user)?;
    Ok(Owner { db, user, users })
}

fn all(ctx: &Ctx, o: &Owner, seconds: u64) -> Result<Vec<Value>> {
    Ok(o.users
        .list_permissions(&o.user.id)?
        .iter()
        .map(|p| permission_json(ctx, &o.db, &o.user, p, seconds))
        .collect())
}

fn page(o: &Owner, permissions: Vec<Value>) -> HttpResponse {
    let n = permissions.len();
    let rid = o.user.resource_id(o.db.number());
    Reply::new(200, 1.0)
        .header("x-ms-item-count", n.to_string())
        .json(resources::feed(&rid, "Permissions", permissions).to_string())
}

pub fn list(ctx: &Ctx, db: &str, user: &str) -> Result<HttpResponse> {
    let seconds = resource_token::expiry_seconds(ctx.headers())?;
    let o = owner(ctx, db, user)?;
    Ok(page(&o, all(ctx, &o, seconds)?))
}

/// `query_permissions` (`resource_query`).
pub fn query(ctx: &Ctx, db: &str, user: &str) -> Result<HttpResponse> {
    let seconds = resource_token::expiry_seconds(ctx.headers())?;
    let o = owner(ctx, db, user)?;
    let selected = super::resource_query::select(ctx, all(ctx, &o, seconds)?)?;
    Ok(page(&o, selected))
}

/// Create, or upsert with `x-ms-documentdb-is-upsert` (201 when created, 200 when it existed).
pub async fn create(ctx: &Ctx<'_>, db: &str, user: &str) -> Result<HttpResponse> {
    let seconds = resource_token::expiry_seconds(ctx.headers())?;
    let spec = spec_of(&ctx.json()?)?;
    let o = owner(ctx, db, user)?;
    let (p, created) = if headers::flag(ctx.headers(), headers::IS_UPSERT) {
        o.users
            .upsert_permission(&o.user.id, spec)
            .await
            .map_err(conflict)?
    } else {
        let p = o
            .users
            .create_permission(&o.user.id, spec)
            .await
            .map_err(conflict)?;
        (p, true)
    };
    let status = if created { 201 } else { 200 };
    Ok(Reply::new(status, 1.0).json(permission_json(ctx, &o.db, &o.user, &p, seconds).to_string()))
}

pub fn read(ctx: &Ctx, db: &str, user: &str, id: &str) -> Result<HttpResponse> {
    let seconds = resource_token::expiry_seconds(ctx.headers())?;
    let o = owner(ctx, db, user)?;
    let p = o.users.read_permission(&o.user.id, id)?;
    Ok(Reply::new(200, 1.0).json(permission_json(ctx, &o.db, &o.user, &p, seconds).to_string()))
}

/// Replace: the body is the whole permission (its id may rename it).
pub async fn replace(ctx: &Ctx<'_>, db: &str, user: &str, id: &str) -> Result<HttpResponse> {
    let seconds = resource_token::expiry_seconds(ctx.headers())?;
    let spec = spec_of(&ctx.json()?)?;
    let o = owner(ctx, db, user)?;
    let p = o
        .users
        .replace_permission(&o.user.id, id, spec)
        .await
        .map_err(conflict)?;
    Ok(Reply::new(200, 1.0).json(permission_json(ctx, &o.db, &o.user, &p, seconds).to_string()))
}

pub async fn delete(ctx: &Ctx<'_>, db: &str, user: &str, id: &str) -> Result<HttpResponse> {
    let o = owner(ctx, db, user)?;
    o.users.delete_permission(&o.user.id, id).await?;
    Ok(Reply::new(204, 1.0).empty())
}
