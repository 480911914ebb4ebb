//! Queries. The engine runs every query whole, across its physical partitions, ORDER BY,
//! aggregates, DISTINCT, GROUP BY, OFFSET/LIMIT and TOP included, and pages it with its own
//! continuation.
//!
//! A query that names no partition key, range or EPK bounds and does not say it may cross
//! partitions is the service's 400 "Cross partition query is required but disabled", unless its
//! filter fixes one whole partition key (the SDKs' test for a single-partition query: one query
//! range holding one value; `test_crud_subpartition.py` queries by the whole key without the
//! header and expects its items), whatever the container's layout: azure-cosmos's own tests expect it on one-range containers too
//! (`test_partition_key.py::test_with_null_pk`, `test_crud_subpartition.py`'s empty prefix,
//! whose async twin reads that message), and the SDK's docs name the header as the fix.
//!
//! A query that says it may cross partitions (`x-ms-documentdb-query-enablecrosspartition:
//! True`) and names no partition key, range or EPK bounds is answered as Azure Cosmos DB's gateway answers it ("Queries that cannot be served by
//! gateway", REST API docs): a filter or projection range by range (a page never spans two
//! ranges; the continuation is the service's `[{"token": …, "range": {"min", "max"}}]`); any
//! query that needs the client to merge (TOP, ORDER BY, OFFSET/LIMIT, aggregates, DISTINCT,
//! GROUP BY) is 400/1004, on which the SDKs ask for the query plan
//! (`x-ms-cosmos-is-query-plan-request`, [`super::query_plan`]) and send its rewritten query to
//! each range (`x-ms-documentdb-partitionkeyrangeid`), which the engine evaluates on that range.
//!
//! Clients that do not declare the `Aggregate` query feature (the Rust SDK 1.x, whose ORDER BY
//! merge resumes from Cosmos-form document RIDs the engine does not give), and shapes the plan
//! does not cover (GROUP BY: azure-cosmos does not declare it either), get a plan that asks for
//! no client-side merging and rewrites the query to carry [`WHOLE`]: a query so marked, sent to
//! the first range, is answered whole (every range, in the engine's order, paged by the
//! engine's continuation); sent to another range it is an empty page.

use actix_web::http::header::HeaderValue;
use actix_web::HttpResponse;
use engine::QueryOptions;
use serde_json::Value;

use super::query_plan::{self, Shape};
use crate::error::{GatewayError, Result};
use crate::headers::{self, Reply};
use crate::request::Ctx;
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
    let (client, def) = ctx.container(db, c)?;
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
        return Ok(Reply::new(200, 0.0).json(plan_for(ctx, &spec).to_string()));
    }
    if !whole
        && super::scope::unscoped(ctx)?
        && !def.partition_key().pins_one_key(&spec.sql, &spec.params)
    {
        return Err(GatewayError::BadRequest(
            super::scope::CROSS_PARTITION_DISABLED.into(),
        ));
    }
    if !whole && super::scope::crosses_ranges(ctx)? {
        engine::check_query(&spec.sql).map_err(engine::Error::from)?;
        return match query_plan::shape(&spec.sql, &spec.params) {
            Shape::Simple => {
                super::query_ranges::range_by_range(ctx, &client, &def, &spec.sql, &spec.params)
                    .await
            }
            _ => Ok(not_servable(&spec)),
        };
    }
    let bounds = headers::epk_range(ctx.headers())?;
    let epk_range = match super::scope::addressed(ctx, &def)? {
        // The first range answers a marked query whole, the others nothing.
        Some(range) if whole && bounds.is_none() => {
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
    // `x-ms-cosmos-populateindexmetrics`: the indexes the engine's plan used.
    let index_metrics = headers::flag(ctx.headers(), "x-ms-cosmos-populateindexmetrics")
        .then_some(page.query_metrics.as_ref())
        .flatten()
        .map(|m| crate::index_utilization::header_value(m, &def.partition_key().paths));
    let mut reply = super::pages::page_reply(ctx, &resources::container_rid(&def), page);
    if let Some(v) = index_metrics.and_then(|v| HeaderValue::from_str(&v).ok()) {
        reply.headers_mut().insert(
            actix_web::http::header::HeaderName::from_static("x-ms-cosmos-index-utilization"),
            v,
        );
    }
    Ok(reply)
}

/// The plan a client gets: the service's, when it declares the features the plan needs (see
/// the module), else the whole answer's.
fn plan_for(ctx: &Ctx, spec: &QuerySpec) -> Value {
    let features =
        headers::get(ctx.headers(), "x-ms-cosmos-supported-query-features").unwrap_or("");
    plan_with(features, spec)
}

fn plan_with(features: &str, spec: &QuerySpec) -> Value {
    let has = |f: &str| {
        features
            .split(',')
            .any(|x| x.trim().eq_ignore_ascii_case(f))
    };
    if !has("Aggregate") {
        return whole_plan(&spec.sql);
    }
    match query_plan::shape(&spec.sql, &spec.params) {
        Shape::Simple => query_plan::passthrough(&spec.sql),
        // A client that merges non-VALUE aggregates itself expects GROUP BY's plan shape.
        Shape::Merged(p)
            if p.select_value || p.aggregates.is_empty() || !has("NonValueAggregate") =>
        {
            p.to_json()
        }
        _ => whole_plan(&spec.sql),
    }
}

/// The service's 400/1004 for a query it will not merge itself. Its body carries the query's
/// plan in `additionalErrorInfo`, which is what the JavaScript SDK looks for before it plans
/// (`QueryIterator.needsQueryPlan`); the plan there is the one a client declaring the Python
/// SDK's features gets (the request declares none).
fn not_servable(spec: &QuerySpec) -> HttpResponse {
    let plan = plan_with(
        "Aggregate,CompositeAggregate,Distinct,MultipleOrderBy,OffsetAndLimit,OrderBy,Top",
        spec,
    );
    let body = serde_json::json!({
        "code": "BadRequest",
        "message": "The provided cross partition query can not be directly served by the gateway. \
                    This is a first chance (internal) exception that all newer clients will know \
                    how to handle gracefully: ask for the query plan \
                    (x-ms-cosmos-is-query-plan-request) and query each partition key range.",
        "additionalErrorInfo": plan.to_string(),
    });
    Reply::new(400, 0.0)
        .header("x-ms-substatus", "1004")
        .json(body.to_string())
}

/// The query plan of the whole answer: nothing for the client to merge, the whole key space,
/// and the query marked to be answered whole by the first range.
fn whole_plan(sql: &str) -> Value {
    query_plan::passthrough(&format!("{WHOLE}{sql}"))
}
