//! A cross-partition filter or projection served as Azure Cosmos DB's gateway serves it: one
//! partition key range at a time, in EPK order, a page never spanning two ranges. The
//! continuation names the range it resumes and the engine's token within it, in the service's
//! composite form `[{"token": "…", "range": {"min": "…", "max": "…"}}]`; resuming from the EPK
//! bounds (not a range id) survives a split in between. A range with no rows still answers its
//! (empty) page, as the service's gateway does: a client sees one page per range at least.

use actix_web::HttpResponse;
use engine::{ChargedContainer, ContainerDef, EpkRange, FeedResponse, QueryOptions};
use serde_json::{json, Value};

use crate::error::{GatewayError, Result};
use crate::headers;
use crate::request::Ctx;
use crate::resources;

/// The container's ranges in EPK order.
fn ranges(def: &ContainerDef) -> Vec<EpkRange> {
    let mut out: Vec<EpkRange> = def.range_ids().filter_map(|id| def.key_range(id)).collect();
    out.sort_by(|a, b| a.start.cmp(&b.start));
    out
}

fn is_last(end: &str) -> bool {
    end.is_empty() || end == "FF"
}

/// Where the range that holds `epk` ends, read from the current ranges.
fn from(ranges: &[EpkRange], epk: &str) -> Option<EpkRange> {
    ranges
        .iter()
        .find(|r| r.contains(epk))
        .map(|r| EpkRange::new(epk, &r.end))
}

fn malformed(token: &str) -> GatewayError {
    GatewayError::BadRequest(format!(
        "The continuation token '{token}' is malformed: pass back the x-ms-continuation of the \
         previous page, unchanged."
    ))
}

/// A continuation whose range bound is no EPK (`engine::EpkRange::parse` says which and why).
fn bad_bound(token: &str, e: engine::Error) -> GatewayError {
    let why = match e {
        engine::Error::BadRequest { message, .. } => message,
        other => other.to_string(),
    };
    GatewayError::BadRequest(format!(
        "The continuation token '{token}' is malformed: {why}. Pass back the x-ms-continuation \
         of the previous page, unchanged."
    ))
}

/// The range and engine token a continuation resumes; its bounds are a client's to send back
/// unchanged, so they are checked as the EPK headers are.
fn resume(token: &str) -> Result<(EpkRange, Option<String>)> {
    let v: Value = serde_json::from_str(token).map_err(|_| malformed(token))?;
    let entry = match v.as_array().map(Vec::as_slice) {
        Some([entry]) => entry,
        _ => return Err(malformed(token)),
    };
    let bound = |k: &str| {
        entry
            .pointer(&format!("/range/{k}"))
            .and_then(Value::as_str)
    };
    let (Some(min), Some(max)) = (bound("min"), bound("max")) else {
        return Err(malformed(token));
    };
    let inner = match entry.get("token") {
        None | Some(Value::Null) => None,
        Some(Value::String(t)) => Some(t.clone()),
        Some(_) => return Err(malformed(token)),
    };
    let range =
        EpkRange::parse(min, max, ["range.min", "range.max"]).map_err(|e| bad_bound(token, e))?;
    Ok((range, inner))
}

fn composite(range: &EpkRange, token: Option<&str>) -> String {
    json!([{"token": token, "range": {"min": range.start, "max": range.end}}]).to_string()
}

pub(super) async fn range_by_range(
    ctx: &Ctx<'_>,
    client: &ChargedContainer,
    def: &ContainerDef,
    sql: &str,
    params: &[(String, Value)],
) -> Result<HttpResponse> {
    let all = ranges(def);
    let (range, token) = match headers::continuation(ctx.headers()) {
        Some(c) => resume(&c)?,
        None => (all.first().cloned().ok_or_else(|| malformed(""))?, None),
    };
    let max_item_count = headers::max_item_count(ctx.headers())?;
    let options = QueryOptions {
        max_item_count,
        continuation: token,
        epk_range: (!range.is_everything()).then(|| range.clone()),
        ..Default::default()
    };
    let page = client.query_items::<Value>(sql, params, options).await?;
    let next = match &page.continuation {
        Some(c) => Some((range, Some(c.clone()))),
        None if is_last(&range.end) => None,
        None => from(&all, &range.end).map(|r| (r, None)),
    };
    let page = FeedResponse {
        continuation: next.map(|(r, t)| composite(&r, t.as_deref())),
        ..page
    };
    Ok(super::pages::page_reply(
        ctx,
        &resources::container_rid(def),
        page,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_bad_ones_are_refused() {
        let r = EpkRange::new("", "7F");
        let (back, t) = resume(&composite(&r, Some("abc"))).unwrap();
        assert_eq!((back, t.as_deref()), (r.clone(), Some("abc")));
        assert_eq!(resume(&composite(&r, None)).unwrap().1, None);
        for bad in [
            "garbage",
            "00",
            r#"{"a":1}"#,
            "[]",
            r#"[{"token":1,"range":{"min":"","max":"FF"}}]"#,
            r#"[{"token":null,"range":{"min":"05ZZ","max":"FF"}}]"#,
            r#"[{"token":null,"range":{"min":"","max":"F"}}]"#,
        ] {
            assert!(resume(bad).is_err(), "{bad}");
        }
        // Lower-case bounds are EPKs too (the range keeps them upper-case).
        let (back, _) = resume(r#"[{"token":null,"range":{"min":"0f","max":"ff"}}]"#).unwrap();
        assert_eq!(back, EpkRange::new("0F", "FF"));
    }
}
