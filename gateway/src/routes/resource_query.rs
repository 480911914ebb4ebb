//! Queries over the account's own resources — offers, databases, a database's containers, a
//! container's scripts — as the SDKs send them: the Python SDK's `query_databases`,
//! `query_containers`, `scripts.query_stored_procedures` and its offer lookup all post
//! `SELECT * FROM root r WHERE r.id=@id`-like queries to the resource's feed. The query runs
//! over exactly the resources the feed lists, with the engine's query evaluator, so it selects
//! what it names and nothing else.

use serde_json::Value;

use crate::error::{GatewayError, Result};
use crate::request::Ctx;

/// The resources of `all` the request's query selects (its `query` and `parameters`).
pub fn select(ctx: &Ctx, all: Vec<Value>) -> Result<Vec<Value>> {
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
    Ok(engine::query_values(sql, &params, all)?)
}
