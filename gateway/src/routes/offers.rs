//! Offers: a container's provisioned throughput, read and replaced. The engine provisions
//! throughput per container only (no shared database throughput, no autoscale).

use std::sync::Arc;

use actix_web::HttpResponse;
use engine::ContainerDef;
use serde_json::Value;

use super::Ctx;
use crate::error::{GatewayError, Result};
use crate::headers::Reply;
use crate::resources;

fn provisioned(ctx: &Ctx) -> Vec<(Arc<ContainerDef>, u32)> {
    ctx.engine()
        .databases()
        .iter()
        .flat_map(|d| ctx.engine().database(&d.id).containers())
        .filter_map(|c| c.throughput().map(|t| (c, t)))
        .collect()
}

fn page(offers: Vec<Value>) -> HttpResponse {
    let n = offers.len();
    Reply::new(200, 1.0)
        .header("x-ms-item-count", n.to_string())
        .json(resources::feed("", "Offers", offers).to_string())
}

pub fn list(ctx: &Ctx) -> Result<HttpResponse> {
    Ok(page(
        provisioned(ctx)
            .iter()
            .map(|(c, t)| resources::offer(c, *t))
            .collect(),
    ))
}

/// The SDKs query offers by their resource: the Python SDK as `SELECT * FROM root r WHERE
/// r.resource=@link`, the JavaScript SDK with the link in the text (`… where root.resource =
/// "dbs/…/colls/…/"`). The query runs over the offers as it would over documents, so it selects
/// the offers it names and no other (answering every offer let the JavaScript SDK take another
/// container's for its own, and change it).
pub fn query(ctx: &Ctx) -> Result<HttpResponse> {
    let body = ctx.json()?;
    let sql = body
        .get("query")
        .and_then(Value::as_str)
        .ok_or_else(|| GatewayError::BadRequest("The query body needs a string 'query'.".into()))?;
    let params: Vec<(String, Value)> = body
        .get("parameters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| Some((p.get("name")?.as_str()?.to_owned(), p.get("value")?.clone())))
        .collect();
    let offers = provisioned(ctx)
        .iter()
        .map(|(c, t)| resources::offer(c, *t))
        .collect();
    Ok(page(engine::query_values(sql, &params, offers)?))
}

fn find(ctx: &Ctx, id: &str) -> Result<(Arc<ContainerDef>, u32)> {
    provisioned(ctx)
        .into_iter()
        .find(|(c, _)| resources::offer_id(c) == id.to_lowercase())
        .ok_or_else(|| {
            GatewayError::NotFound(format!("Resource Not Found. Offer '{id}' does not exist."))
        })
}

pub fn read(ctx: &Ctx, id: &str) -> Result<HttpResponse> {
    let (c, t) = find(ctx, id)?;
    Ok(Reply::new(200, 1.0).json(resources::offer(&c, t).to_string()))
}

pub async fn replace(ctx: &Ctx<'_>, id: &str) -> Result<HttpResponse> {
    let (c, _) = find(ctx, id)?;
    let body = ctx.json()?;
    if body
        .pointer("/content/offerAutopilotSettings")
        .is_some_and(|v| !v.is_null())
    {
        return Err(GatewayError::BadRequest(
            "Autoscale throughput is not supported by this engine.".into(),
        ));
    }
    let ru = body
        .pointer("/content/offerThroughput")
        .and_then(Value::as_u64)
        .filter(|n| (400..=u32::MAX as u64).contains(n))
        .ok_or_else(|| {
            GatewayError::BadRequest(
                "content.offerThroughput must be a number of RU/s, at least 400.".into(),
            )
        })? as u32;
    let def = ctx
        .engine()
        .database(c.database())
        .replace_throughput(c.id(), Some(ru))
        .await?;
    Ok(Reply::new(200, 1.0).json(resources::offer(&def, ru).to_string()))
}
