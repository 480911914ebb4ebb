//! Queries on a remote container through the SDK: one page at a time, resumable with the
//! SDK's own continuation token (the string a listing page carries in its URL).

use std::num::NonZeroU32;

use azure_data_cosmos::feed::ContinuationToken;
use azure_data_cosmos::options::{
    MaxItemCountHint, QueryOptions as SdkQueryOptions, QueryPlanMode,
};
use azure_data_cosmos::{FeedScope, Query};
use futures_util::TryStreamExt;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::items::{charged, sdk_key};
use super::{charged_from_sdk, RemoteContainer};
use crate::{Error, Failed, FeedResponse, QueryOptions};

impl RemoteContainer {
    /// One page of `sql`.
    pub async fn query_page<T: DeserializeOwned + Send + 'static>(
        &self,
        sql: &str,
        params: &[(String, Value)],
        options: &QueryOptions,
    ) -> Result<FeedResponse<T>, Failed> {
        let mut query = Query::from(sql.to_owned());
        for (name, value) in params {
            query = query
                .with_parameter(name.clone(), value)
                .map_err(|e| Error::bad(name.clone(), e.to_string()))?;
        }
        let scope = match &options.partition_key {
            Some(pk) => FeedScope::partition(sdk_key(pk)?),
            None => FeedScope::full_container(),
        };
        let mut o = SdkQueryOptions::default();
        if options.partition_key.is_none() {
            // A fan-out is planned by the endpoint, as the other SDKs plan theirs. The SDK's own
            // planner (its default) rewrites an ORDER BY into the service's per-range form and
            // merges the ranges itself, resuming a page from the last row's `_rid`, which its
            // token must carry as a Cosmos DB document RID: the gateway's are the engine's, so
            // page 2 failed in the SDK (500/20214, "not a decodable Cosmos document RID"). The
            // gateway's plan leaves ORDER BY, DISTINCT and GROUP BY to the engine, which pages
            // them with its own continuation; Azure Cosmos DB's is the plan the SDK merges by,
            // with real RIDs. One plan request more per page.
            o = o.with_query_plan_mode(QueryPlanMode::GatewayOnly);
        }
        if let Some(n) = options.max_item_count {
            let n = NonZeroU32::new(n.min(u32::MAX as usize) as u32)
                .ok_or_else(|| Error::bad("max_item_count", "must be at least 1"))?;
            o = o.with_max_item_count(MaxItemCountHint::Limit(n));
        }
        if let Some(c) = &options.continuation {
            o = o.with_continuation_token(ContinuationToken::from_string(c.clone()));
        }
        let mut pages = self
            .sdk
            .query_items::<T>(query, scope, Some(o))
            .await
            .map_err(charged_from_sdk)?
            .into_pages();
        let Some(page) = pages.try_next().await.map_err(charged_from_sdk)? else {
            return Ok(FeedResponse {
                items: Vec::new(),
                request_charge: 0.0,
                continuation: None,
                diagnostics: charged(0.0),
                query_metrics: None,
            });
        };
        let charge = page
            .headers()
            .request_charge()
            .map(|c| c.value())
            .unwrap_or(0.0);
        let items = page.into_items();
        // A fan-out visits every physical partition: as many as the account's partition key
        // ranges, which the SDK keeps cached to route the query (no extra request).
        let mut diagnostics = charged(charge);
        if options.partition_key.is_none() {
            let ranges = self.sdk.read_feed_ranges(None).await.map_or(0, |r| r.len());
            diagnostics.partitions = (0..ranges as u32).collect();
        }
        // The SDK's token covers every range it reads (the page's own header only the range
        // it came from).
        let continuation = match pages.to_continuation_token() {
            Ok(token) if !is_drained(token.as_str()) => Some(token.as_str().to_owned()),
            _ => None,
        };
        Ok(FeedResponse {
            items,
            request_charge: charge,
            continuation,
            diagnostics,
            query_metrics: None,
        })
    }
}

/// Whether a token of the SDK says the query has nothing left: its tokens are `c1.` and
/// URL-safe base64 of JSON whose `root.kind` is `drained` once every range is read (a listing
/// must not offer a "next page" that would come back empty).
fn is_drained(token: &str) -> bool {
    use base64::Engine as _;
    let Some(body) = token.strip_prefix("c1.") else {
        return token.is_empty();
    };
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(body.trim_end_matches('='))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .is_some_and(|v| v["root"]["kind"] == "drained")
}
