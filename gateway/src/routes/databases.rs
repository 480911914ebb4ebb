//! Databases: create, read, list, delete.

use actix_web::HttpResponse;
use engine::DatabaseDef;
use serde_json::Value;

use super::Ctx;
use crate::error::{GatewayError, Result};
use crate::headers::Reply;
use crate::resources;

/// The database's id for a path segment: its name (`links` turns resource ids into names).
pub fn resolve(ctx: &Ctx, segment: &str) -> Result<String> {
    definition(ctx, segment).map(|d| d.id)
}

pub fn definition(ctx: &Ctx, id: &str) -> Result<DatabaseDef> {
    ctx.engine()
        .databases()
        .into_iter()
        .find(|d| d.id == id)
        .ok_or_else(|| not_found(id))
}

fn not_found(id: &str) -> GatewayError {
    GatewayError::NotFound(format!(
        "Resource Not Found. Database '{id}' does not exist."
    ))
}

fn all(ctx: &Ctx) -> Vec<Value> {
    ctx.engine()
        .databases()
        .iter()
        .map(resources::database)
        .collect()
}

fn page(dbs: Vec<Value>) -> HttpResponse {
    let n = dbs.len();
    Reply::new(200, 1.0)
        .header("x-ms-item-count", n.to_string())
        .json(resources::feed("", "Databases", dbs).to_string())
}

pub fn list(ctx: &Ctx) -> Result<HttpResponse> {
    Ok(page(all(ctx)))
}

/// `query_databases` ([`super::resource_query`]).
pub fn query(ctx: &Ctx) -> Result<HttpResponse> {
    Ok(page(super::resource_query::select(ctx, all(ctx))?))
}

pub async fn create(ctx: &Ctx<'_>) -> Result<HttpResponse> {
    let body = ctx.json()?;
    let id = body
        .get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| GatewayError::BadRequest("The database needs a string 'id'.".into()))?;
    // Shared throughput: the containers created without their own share it (PROTOCOL.md).
    let throughput = super::containers::throughput(ctx)?;
    match ctx
        .engine()
        .create_database_with_throughput(id, throughput)
        .await
    {
        Ok(_) => {}
        Err(engine::Error::Conflict { .. }) => {
            return Err(GatewayError::Conflict(format!(
                "Resource with specified id or name already exists: database '{id}'."
            )))
        }
        Err(e) => return Err(e.into()),
    }
    let def = definition(ctx, id)?;
    super::containers::record_autoscale(ctx, &resources::Provisioned::Database(&def))?;
    Ok(Reply::new(201, 1.0).json(resources::database(&def).to_string()))
}

pub fn read(ctx: &Ctx, db: &str) -> Result<HttpResponse> {
    let def = definition(ctx, db)?;
    Ok(Reply::new(200, 1.0).json(resources::database(&def).to_string()))
}

pub async fn delete(ctx: &Ctx<'_>, db: &str) -> Result<HttpResponse> {
    let id = resolve(ctx, db)?;
    ctx.engine().delete_database(&id).await?;
    Ok(Reply::new(204, 1.0).empty())
}
