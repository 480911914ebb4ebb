//! Users of a database (`/dbs/{db}/users`): create, upsert, read, replace (rename), delete, list
//! and query, as the REST API's "Users" operations answer them. A user is only an id (and its
//! permissions, `permissions.rs`); its `_rid` is kept when it is renamed.

use actix_web::HttpResponse;
use engine::{DatabaseDef, UserDef};
use serde_json::{json, Value};

use crate::error::{GatewayError, Result};
use crate::headers::{self, Reply};
use crate::request::Ctx;
use crate::resources;

/// The user as the service shows it.
pub(crate) fn user_json(db: &DatabaseDef, u: &UserDef) -> Value {
    let rid = u.resource_id(db.number());
    json!({
        "id": u.id,
        "_rid": rid,
        "_self": format!("dbs/{}/users/{rid}/", db.resource_id()),
        "_etag": etag(u.version),
        "_ts": u.ts,
        "_permissions": "permissions/",
    })
}

pub(crate) fn etag(version: u64) -> String {
    format!("\"{version:016x}\"")
}

/// A resource id of the body: a string, at most 255 characters, without the characters the
/// service refuses in ids (`/`, `\`, `?`, `#`).
pub(crate) fn id_of(body: &Value, what: &str) -> Result<String> {
    let id = body
        .get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| GatewayError::BadRequest(format!("The {what} needs a string 'id'.")))?;
    if id.is_empty() || id.chars().count() > 255 || id.contains(['/', '\\', '?', '#']) {
        return Err(GatewayError::BadRequest(format!(
            "The {what} id '{id}' is invalid: 1 to 255 characters, none of '/', '\\', '?', '#'."
        )));
    }
    Ok(id.to_owned())
}

pub(crate) fn conflict(e: engine::Error) -> GatewayError {
    match e {
        engine::Error::Conflict { id } => GatewayError::Conflict(format!(
            "Resource with specified id or name already exists: {id}."
        )),
        other => other.into(),
    }
}

/// `dbs/{db}/users/{rid}[/permissions/{rid}]` (`paths` checked that each id names the one
/// before it) with the user's and the permission's ids in place of their resource ids, or the
/// service's 404 when no user or permission has that resource id. `segments[1]` is already the
/// database's name.
pub(crate) fn rids_to_names(
    ctx: &Ctx,
    db: &DatabaseDef,
    mut segments: Vec<String>,
) -> Result<Vec<String>> {
    let not_found = |what: &str, rid: &str| {
        GatewayError::NotFound(format!(
            "Resource Not Found. No {what} has the resource id '{rid}'."
        ))
    };
    let Some(rid) = segments.get(3) else {
        return Ok(segments);
    };
    let users = ctx.engine().database(&db.id).users();
    let user = users
        .list_users()?
        .into_iter()
        .find(|u| u.resource_id(db.number()) == *rid)
        .ok_or_else(|| not_found("user", rid))?;
    if let Some(rid) = segments.get(5) {
        let p = users
            .list_permissions(&user.id)?
            .into_iter()
            .find(|p| p.resource_id(db.number(), &user) == *rid)
            .ok_or_else(|| not_found("permission", rid))?;
        segments[5] = p.spec.id;
    }
    segments[3] = user.id;
    Ok(segments)
}

fn all(ctx: &Ctx, db: &DatabaseDef) -> Result<Vec<Value>> {
    let users = ctx.engine().database(&db.id).users().list_users()?;
    Ok(users.iter().map(|u| user_json(db, u)).collect())
}

fn page(db: &DatabaseDef, users: Vec<Value>) -> HttpResponse {
    let n = users.len();
    Reply::new(200, 1.0)
        .header("x-ms-item-count", n.to_string())
        .json(resources::feed(&db.resource_id(), "Users", users).to_string())
}

pub fn list(ctx: &Ctx, db: &str) -> Result<HttpResponse> {
    let db = ctx.database(db)?;
    Ok(page(&db, all(ctx, &db)?))
}

/// `query_users` (`resource_query`).
pub fn query(ctx: &Ctx, db: &str) -> Result<HttpResponse> {
    let db = ctx.database(db)?;
    let selected = super::resource_query::select(ctx, all(ctx, &db)?)?;
    Ok(page(&db, selected))
}

/// Create, or upsert with `x-ms-documentdb-is-upsert` (201 when created, 200 when it existed).
pub async fn create(ctx: &Ctx<'_>, db: &str) -> Result<HttpResponse> {
    let def = ctx.database(db)?;
    let id = id_of(&ctx.json()?, "user")?;
    let users = ctx.engine().database(&def.id).users();
    let (u, created) = if headers::flag(ctx.headers(), headers::IS_UPSERT) {
        users.upsert_user(&id).await?
    } else {
        (users.create_user(&id).await.map_err(conflict)?, true)
    };
    let status = if created { 201 } else { 200 };
    Ok(Reply::new(status, 1.0).json(user_json(&def, &u).to_string()))
}

pub fn read(ctx: &Ctx, db: &str, id: &str) -> Result<HttpResponse> {
    let def = ctx.database(db)?;
    let u = ctx.engine().database(&def.id).users().read_user(id)?;
    Ok(Reply::new(200, 1.0).json(user_json(&def, &u).to_string()))
}

/// Replace: the body's id renames the user.
pub async fn replace(ctx: &Ctx<'_>, db: &str, id: &str) -> Result<HttpResponse> {
    let def = ctx.database(db)?;
    let new_id = id_of(&ctx.json()?, "user")?;
    let u = ctx
        .engine()
        .database(&def.id)
        .users()
        .replace_user(id, &new_id)
        .await
        .map_err(conflict)?;
    Ok(Reply::new(200, 1.0).json(user_json(&def, &u).to_string()))
}

pub async fn delete(ctx: &Ctx<'_>, db: &str, id: &str) -> Result<HttpResponse> {
    let def = ctx.database(db)?;
    ctx.engine()
        .database(&def.id)
        .users()
        .delete_user(id)
        .await?;
    Ok(Reply::new(204, 1.0).empty())
}
