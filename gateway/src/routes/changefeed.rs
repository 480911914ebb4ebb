//! The change feed: `GET …/docs` with `A-IM: Incremental feed` (latest version) or
//! `Full-Fidelity Feed` (all versions and deletes). The continuation travels as the `etag` of a
//! page and comes back in `If-None-Match`; `If-None-Match: *` starts from now,
//! `If-Modified-Since` from a time, neither from the beginning. Nothing new is a 304. An etag
//! that is a bare LSN (`"42"`: the service's own etags are, and the JavaScript SDK keeps them in
//! its continuation tokens) reads what came after it. A feed read by partition key range id
//! (`x-ms-documentdb-partitionkeyrangeid`), or naming no range, key or EPK bounds at all (what
//! azure-cosmos sends for `partition_key_range_id`: the option never reaches a header), answers
//! such an etag when it reads one physical partition, as the service does: the Python SDK takes
//! only a digit string for the continuation of that feed (`change_feed_iterable.py`:
//! `continuation.isdigit()` selects its by-range state) and starts from now on anything else.

use actix_web::HttpResponse;
use engine::{ChangeFeedMode, ChangeFeedOptions, ChangeFeedStart};

use crate::error::{GatewayError, Result};
use crate::headers::{self, Reply};
use crate::request::Ctx;
use crate::resources;

pub fn is_change_feed(ctx: &Ctx) -> bool {
    headers::get(ctx.headers(), "a-im").is_some()
}

fn mode(ctx: &Ctx) -> Result<ChangeFeedMode> {
    match headers::get(ctx.headers(), "a-im").unwrap_or_default() {
        v if v.eq_ignore_ascii_case("Incremental feed") => Ok(ChangeFeedMode::LatestVersion),
        v if v.eq_ignore_ascii_case("Full-Fidelity Feed") => {
            Ok(ChangeFeedMode::AllVersionsAndDeletes)
        }
        v => Err(GatewayError::BadRequest(format!(
            "A-IM '{v}' is not a change feed mode: 'Incremental feed' or 'Full-Fidelity Feed'."
        ))),
    }
}

fn start(ctx: &Ctx) -> Result<ChangeFeedStart> {
    let h = ctx.headers();
    match headers::get(h, "if-none-match") {
        Some("*") => return Ok(ChangeFeedStart::Now),
        Some(etag) if !etag.is_empty() => {
            let etag = etag.trim_matches('"');
            return Ok(match etag.parse::<u64>() {
                Ok(lsn) => ChangeFeedStart::AfterLsn(lsn),
                Err(_) => ChangeFeedStart::Continuation(etag.to_owned()),
            });
        }
        _ => {}
    }
    match headers::get(h, "if-modified-since") {
        Some(t) => {
            let when = httpdate::parse_http_date(t).map_err(|_| {
                GatewayError::BadRequest(format!(
                    "If-Modified-Since '{t}' is not an RFC 1123 date."
                ))
            })?;
            let secs = when
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            Ok(ChangeFeedStart::PointInTime(secs))
        }
        None => Ok(ChangeFeedStart::Beginning),
    }
}

pub async fn read(ctx: &Ctx<'_>, db: &str, c: &str) -> Result<HttpResponse> {
    let (client, def) = ctx.container(db, c)?;
    let h = ctx.headers();
    let partition_key = headers::partition_key(h)?;
    let by_range_id = headers::get(h, headers::PK_RANGE_ID).is_some()
        || (partition_key.is_none() && headers::epk_range(h)?.is_none());
    // A range of Cosmos EPKs (a partition key range, a feed range, or the Python SDK's way of
    // naming one partition key): the engine reads the coordinates that hold it and the gateway
    // keeps the items whose key hashes into it.
    let epk_range = super::scope::addressed(ctx, &def)?.filter(|_| partition_key.is_none());
    let options = ChangeFeedOptions {
        mode: mode(ctx)?,
        start: start(ctx)?,
        max_item_count: headers::max_item_count(h)?.unwrap_or(100),
        range: epk_range
            .as_ref()
            .and_then(|r| engine::FeedRange::covering(def.partition_key(), r)),
        partition_key,
    };

    if let Some(range) = epk_range {
        return filtered(&client, &def, options, &range, by_range_id).await;
    }
    let page = client.change_feed(&options).await?;
    let etag = etag_of(&page, by_range_id);
    if page.not_modified() {
        return Ok(Reply::new(304, page.request_charge)
            .etag(Some(&etag))
            .empty());
    }
    let n = page.items.len();
    Ok(Reply::new(200, page.request_charge)
        .etag(Some(&etag))
        .header("x-ms-item-count", n.to_string())
        .json(
            resources::feed(&resources::container_rid(&def), "Documents", page.items).to_string(),
        ))
}

/// The change feed of an EPK range: engine pages read in turn until one has items in the
/// range, or the feed is read to its end (304), within a second of work per request.
async fn filtered(
    client: &engine::ContainerClient,
    def: &engine::ContainerDef,
    mut options: ChangeFeedOptions,
    range: &engine::EpkRange,
    by_range_id: bool,
) -> Result<HttpResponse> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
    let mut charge = 0.0;
    loop {
        let page = client.change_feed(&options).await?;
        charge += page.request_charge;
        let etag = etag_of(&page, by_range_id);
        let done = page.not_modified();
        let items: Vec<serde_json::Value> = page
            .items
            .into_iter()
            .filter(|doc| {
                key_of_change(def, doc)
                    .is_some_and(|pk| range.contains(&def.partition_key().cosmos_epk(&pk)))
            })
            .collect();
        if !items.is_empty() {
            let n = items.len();
            return Ok(Reply::new(200, charge)
                .etag(Some(&etag))
                .header("x-ms-item-count", n.to_string())
                .json(
                    resources::feed(&resources::container_rid(def), "Documents", items).to_string(),
                ));
        }
        if done || std::time::Instant::now() > deadline {
            return Ok(Reply::new(304, charge).etag(Some(&etag)).empty());
        }
        options.start = ChangeFeedStart::Continuation(page.continuation);
    }
}

/// A page's etag: its LSN for a feed by range id (see the module), else the engine's token.
fn etag_of(page: &engine::ChangeFeedPage, by_range_id: bool) -> String {
    match page.lsn().filter(|_| by_range_id) {
        Some(lsn) => format!("\"{lsn}\""),
        None => format!("\"{}\"", page.continuation),
    }
}

/// The partition key of a change, as the engine finds it: the item's (latest version, or an
/// all-versions record's current image), or the one a delete record's metadata names (a delete
/// has no current image: reading the item for its key dropped every delete from a range's feed).
fn key_of_change(
    def: &engine::ContainerDef,
    change: &serde_json::Value,
) -> Option<engine::PartitionKey> {
    let doc = change.get("current").unwrap_or(change);
    if doc.get("id").is_some() {
        return def.partition_key().extract(doc).ok();
    }
    match change.pointer("/metadata/partitionKey") {
        Some(serde_json::Value::Array(values)) => {
            engine::PartitionKey::from_json_values(values, "partitionKey").ok()
        }
        Some(v) => engine::PartitionKey::from_json(v, "partitionKey").ok(),
        None => None,
    }
}
