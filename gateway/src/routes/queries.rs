//! Queries. The engine runs every query whole, across its physical partitions, ORDER BY,
//! aggregates, DISTINCT, GROUP BY, OFFSET/LIMIT and TOP included, and pages it with its own
//! continuation. So the gateway never answers "cross-partition query not servable" (400/1004),
//! the answer that makes the Python SDK fetch a query plan and merge per-range results itself:
//! it sends the query once and pages through the engine's results as they are.
//!
//! The Rust SDK plans every cross-partition query and sends it to each partition key range in
//! turn. The plan the gateway gives it asks for no client-side merging and rewrites the query
//! to carry [`WHOLE`]: a query so marked, sent to the first range, is answered whole (every
//! range, in the engine's order, paged by the engine's continuation); sent to another range it
//! is an empty page. The SDK drains the first range, then finds the others empty, and gets the
//! rows `query_items` gives. Unmarked range requests (feed-range queries, the Rust SDK's own
//! plans of plain queries) get that range's items only.

use actix_web::HttpResponse;
use engine::{FeedResponse, QueryOptions};
use serde_json::{json, Value};

use super::Ctx;
use crate::error::{GatewayError, Result};
use crate::headers::{self, Reply};
use crate::resources;

struct QuerySpec {
    sql: String,
    params: Vec<(String, Value)>,
}

fn spec(ctx: &Ctx) -> Result<QuerySpec> {
    let body = ctx.json()?;
    let sql = body
        .get("query")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            GatewayError::BadRequest(
                "The query body needs a string 'query' ({\"query\": \"SELECT ...\", \
                 \"parameters\": [{\"name\": \"@p\", \"value\": ...}]})."
                    .into(),
            )
        })?
        .to_owned();
    let mut params = Vec::new();
    match body.get("parameters") {
        None | Some(Value::Null) => {}
        Some(Value::Array(ps)) => {
            for p in ps {
                let name = p.get("name").and_then(Value::as_str).ok_or_else(|| {
                    GatewayError::BadRequest("Each query parameter needs a string 'name'.".into())
                })?;
                params.push((
                    name.to_owned(),
                    p.get("value").cloned().unwrap_or(Value::Null),
                ));
            }
        }
        Some(_) => {
            return Err(GatewayError::BadRequest(
                "The query's 'parameters' must be an array.".into(),
            ))
        }
    }
    Ok(QuerySpec { sql, params })
}

/// The prefix of a query rewritten by the gateway's plan: answer it whole (see the module).
pub const WHOLE: &str = "-- whole: answered by the gateway across every range\n";

pub async fn query(ctx: &Ctx<'_>, db: &str, c: &str) -> Result<HttpResponse> {
    let (client, def) = super::container(ctx, db, c)?;
    let mut spec = spec(ctx)?;
    let whole = match spec.sql.strip_prefix(WHOLE) {
        Some(sql) => {
            spec.sql = sql.to_owned();
            true
        }
        None => false,
    };
    if headers::flag(ctx.headers(), headers::IS_QUERY_PLAN) {
        // Parsing it here gives a bad query its 400 before the SDK plans around it. Parsing
        // only: the SDK sends the query itself next (the Rust SDK's fan-outs ask for a plan on
        // every page), and running it here too would do a page's work, against the
        // container's throughput, for a plan charged 0 RU. What only running finds (a missing
        // parameter) is the query's own 400.
        engine::check_query(&spec.sql).map_err(engine::Error::from)?;
        return Ok(Reply::new(200, 0.0).json(plan(&spec.sql).to_string()));
    }
    let epk_range = match super::pkranges::addressed(ctx, &def)? {
        // The first range answers a marked query whole, the others nothing.
        Some(range) if whole && headers::epk_range(ctx.headers()).is_none() => {
            if !range.start.is_empty() {
                return Ok(Reply::new(200, 0.0).header("x-ms-item-count", "0").json(
                    resources::feed(&resources::container_rid(&def), "Documents", Vec::new())
                        .to_string(),
                ));
            }
            None
        }
        addressed => addressed,
    };
    let options = QueryOptions {
        partition_key: headers::partition_key(ctx.headers())?,
        max_item_count: headers::max_item_count(ctx.headers())?,
        continuation: headers::continuation(ctx.headers()),
        epk_range,
        ..Default::default()
    };
    let page = client
        .query_items::<Value>(&spec.sql, &spec.params, options)
        .await?;
    let metrics = headers::flag(ctx.headers(), "x-ms-documentdb-populatequerymetrics")
        .then(|| page.query_metrics.as_ref().map(metrics_header))
        .flatten();
    let mut reply = feed_reply(&resources::container_rid(&def), page);
    if let Some(m) = metrics {
        if let Ok(v) = actix_web::http::header::HeaderValue::from_str(&m) {
            reply.headers_mut().insert(
                actix_web::http::header::HeaderName::from_static("x-ms-documentdb-query-metrics"),
                v,
            );
        }
    }
    Ok(reply)
}

/// The page's metrics in the service's `name=value;...` form (the fields the engine measures;
/// the SDKs parse the ones they know).
fn metrics_header(m: &engine::QueryMetrics) -> String {
    format!(
        "totalExecutionTimeInMs={:.2};queryCompileTimeInMs=0.00;queryLogicalPlanBuildTimeInMs=0.00;\
         queryPhysicalPlanBuildTimeInMs=0.00;queryOptimizationTimeInMs=0.00;VMExecutionTimeInMs={:.2};\
         indexLookupTimeInMs=0.00;documentLoadTimeInMs=0.00;systemFunctionExecuteTimeInMs=0.00;\
         userFunctionExecuteTimeInMs=0.00;retrievedDocumentCount={};retrievedDocumentSize={};\
         outputDocumentCount={};outputDocumentSize=0;writeOutputTimeInMs=0.00;indexUtilizationRatio={:.2}",
        m.execution_time_ms,
        m.execution_time_ms,
        m.retrieved_document_count,
        m.retrieved_document_size,
        m.output_document_count,
        m.index_hit_ratio
    )
}

/// A page of items: `Documents`, `_count`, and the continuation in its header.
pub fn feed_reply(rid: &str, page: FeedResponse<Value>) -> HttpResponse {
    let n = page.items.len();
    let mut reply = Reply::new(200, page.request_charge).header("x-ms-item-count", n.to_string());
    if let Some(c) = page.continuation {
        reply = reply.header("x-ms-continuation", c);
    }
    reply.json(resources::feed(rid, "Documents", page.items).to_string())
}

/// The query plan of every query: nothing for the client to merge, the whole key space, and
/// the query marked to be answered whole by the first range.
fn plan(sql: &str) -> Value {
    json!({
        "partitionedQueryExecutionInfoVersion": 2,
        "queryInfo": {
            "distinctType": "None",
            "top": null,
            "offset": null,
            "limit": null,
            "orderBy": [],
            "orderByExpressions": [],
            "groupByExpressions": [],
            "groupByAliases": [],
            "aggregates": [],
            "groupByAliasToAggregateType": {},
            "rewrittenQuery": format!("{WHOLE}{sql}"),
            "hasSelectValue": false,
            "dCountInfo": null,
            "hasNonStreamingOrderBy": false,
        },
        "queryRanges": [{
            "min": "",
            "max": "FF",
            "isMinInclusive": true,
            "isMaxInclusive": false,
        }],
    })
}
