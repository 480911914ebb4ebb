//! Databases: create, read, list, delete.

use actix_web::HttpResponse;
use serde_json::Value;

use crate::error::{GatewayError, Result};
use crate::headers::Reply;
use crate::request::Ctx;
use crate::resources;

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
    let throughput = super::throughput::throughput(ctx)?;
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
    let def = ctx.database(id)?;
    super::throughput::record_autoscale(ctx, &resources::Provisioned::Database(&def))?;
    Ok(Reply::new(201, 1.0).json(resources::database(&def).to_string()))
}

pub fn read(ctx: &Ctx, db: &str) -> Result<HttpResponse> {
    let def = ctx.database(db)?;
    Ok(Reply::new(200, 1.0).json(resources::database(&def).to_string()))
}

pub async fn delete(ctx: &Ctx<'_>, db: &str) -> Result<HttpResponse> {
    let id = ctx.database_id(db)?;
    ctx.engine().delete_database(&id).await?;
    Ok(Reply::new(204, 1.0).empty())
}
