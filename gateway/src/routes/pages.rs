//! A page of a feed as its answer: the items under the feed's key with `_count`, the
//! continuation and item count in headers, and the query metrics when asked for.

use actix_web::HttpResponse;
use engine::FeedResponse;
use serde_json::Value;

use crate::headers::{self, Reply};
use crate::request::Ctx;
use crate::resources;

/// A page, with its metrics when the request asks for them.
pub fn page_reply(ctx: &Ctx, rid: &str, page: FeedResponse<Value>) -> HttpResponse {
    let metrics = headers::flag(ctx.headers(), "x-ms-documentdb-populatequerymetrics")
        .then(|| page.query_metrics.as_ref().map(metrics_header))
        .flatten();
    let mut reply = feed_reply(rid, page);
    if let Some(m) = metrics {
        if let Ok(v) = actix_web::http::header::HeaderValue::from_str(&m) {
            reply.headers_mut().insert(
                actix_web::http::header::HeaderName::from_static("x-ms-documentdb-query-metrics"),
                v,
            );
        }
    }
    reply
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
