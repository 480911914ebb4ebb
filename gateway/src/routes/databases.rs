//! Databases: create, read, list, delete.

use actix_web::HttpResponse;
use serde_json::Value;

use super::Ctx;
use crate::error::{GatewayError, Result};
use crate::headers::{self, Reply};
use crate::resources;

/// The database's id for a path segment: its name, or its resource id (`_self` links).
pub fn resolve(ctx: &Ctx, segment: &str) -> Result<String> {
    let dbs = ctx.engine().databases();
    if dbs.iter().any(|d| d.id == segment) {
        return Ok(segment.to_owned());
    }
    dbs.into_iter()
        .find(|d| resources::database_rid(&d.id) == segment)
        .map(|d| d.id)
        .ok_or_else(|| not_found(segment))
}

fn not_found(id: &str) -> GatewayError {
    GatewayError::NotFound(format!(
        "Resource Not Found. Database '{id}' does not exist."
    ))
}

pub fn list(ctx: &Ctx) -> Result<HttpResponse> {
    let dbs: Vec<Value> = ctx
        .engine()
        .databases()
        .iter()
        .map(resources::database)
        .collect();
    let n = dbs.len();
    Ok(Reply::new(200, 1.0)
        .header("x-ms-item-count", n.to_string())
        .json(resources::feed("", "Databases", dbs).to_string()))
}

pub async fn create(ctx: &Ctx<'_>) -> Result<HttpResponse> {
    let body = ctx.json()?;
    let id = body
        .get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| GatewayError::BadRequest("The database needs a string 'id'.".into()))?;
    if headers::get(ctx.headers(), headers::OFFER_THROUGHPUT).is_some()
        || headers::get(ctx.headers(), headers::AUTOPILOT).is_some()
    {
        return Err(GatewayError::BadRequest(
            "Shared (database) throughput is not supported by this engine: provision throughput \
             on each container instead."
                .into(),
        ));
    }
    match ctx.engine().create_database(id).await {
        Ok(_) => {}
        Err(engine::Error::Conflict { .. }) => {
            return Err(GatewayError::Conflict(format!(
                "Resource with specified id or name already exists: database '{id}'."
            )))
        }
        Err(e) => return Err(e.into()),
    }
    let def = ctx
        .engine()
        .databases()
        .into_iter()
        .find(|d| d.id == id)
        .ok_or_else(|| not_found(id))?;
    Ok(Reply::new(201, 1.0).json(resources::database(&def).to_string()))
}

pub fn read(ctx: &Ctx, db: &str) -> Result<HttpResponse> {
    let id = resolve(ctx, db)?;
    let def = ctx
        .engine()
        .databases()
        .into_iter()
        .find(|d| d.id == id)
        .ok_or_else(|| not_found(db))?;
    Ok(Reply::new(200, 1.0).json(resources::database(&def).to_string()))
}

pub async fn delete(ctx: &Ctx<'_>, db: &str) -> Result<HttpResponse> {
    let id = resolve(ctx, db)?;
    ctx.engine().delete_database(&id).await?;
    Ok(Reply::new(204, 1.0).empty())
}
