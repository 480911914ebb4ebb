//! Session consistency and the headers every answer carries about where it came from.
//!
//! Cosmos DB answers each request below a container with `x-ms-session-token`,
//! `<pkrangeid>:<version>#<globalLSN>` ("Common Azure Cosmos DB REST response headers"; the
//! Python SDK's `_session.py` keys it by `x-ms-alt-content-path` and `VectorSessionToken.create`
//! parses `version#globalLSN[#region=LSN…]`), and a client in session consistency sends the
//! tokens it holds back (`x-ms-session-token` request header). The LSN here is the engine's:
//! each physical partition (a partition key range) counts its writes, and the token names the
//! range's count when the answer left, so a read after a write carries a token at least the
//! write's. A request's token is parsed, and served whatever its LSN (see [`check`]).
//!
//! `content-location` is the request's URI ("Azure Cosmos DB: Common headers": "The URI of the
//! request"); the Python SDK's `test_globaldb.py` reads its host to tell which region answered.

use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::HttpResponse;
use engine::{ContainerClient, ContainerDef, PartitionKey};

use crate::error::{GatewayError, Result};
use crate::headers;
use crate::request::Ctx;

/// One entry of a session token: the range it names (absent in the old single-range form) and
/// its global LSN.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenEntry {
    pub range: Option<u32>,
    pub lsn: u64,
}

/// Parses a request's `x-ms-session-token`: comma-separated `<range>:<token>` entries, each
/// token `version#globalLSN` with optional `#region=LSN` parts (the vector form), or a bare LSN
/// (the simple form older SDKs send).
pub fn parse(raw: &str) -> Option<Vec<TokenEntry>> {
    raw.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|entry| {
            let (range, token) = match entry.split_once(':') {
                Some((r, t)) => (Some(r.trim().parse::<u32>().ok()?), t),
                None => (None, entry),
            };
            let mut parts = token.split('#');
            let first = parts.next()?.trim();
            let lsn = match parts.next() {
                // version#globalLSN: the version may be -1 (a token made before any write).
                Some(global) => {
                    first.parse::<i64>().ok()?;
                    global.trim().parse::<u64>().ok()?
                }
                None => first.parse::<i64>().ok()?.max(0) as u64,
            };
            // Regional parts (`region=LSN`) belong to multi-region accounts; they must parse.
            for p in parts {
                let (_, l) = p.split_once('=')?;
                l.trim().parse::<i64>().ok()?;
            }
            Some(TokenEntry { range, lsn })
        })
        .collect()
}

/// The current LSN of the partition key range `range_id` (the physical partition's count of
/// writes, from memory). A container placed by the engine's own hash (a data file older than
/// Cosmos placement) shows as one range, `0`: its LSN is the highest of its partitions'.
pub fn range_lsn(client: &ContainerClient, range_id: u32) -> Option<u64> {
    let all = client.partitions().ok()?;
    if all.iter().any(|p| p.cosmos_range.is_none()) {
        return (range_id == 0)
            .then(|| all.iter().map(|p| p.lsn).max())
            .flatten();
    }
    all.into_iter()
        .find(|p| p.range_id == range_id)
        .map(|p| p.lsn)
}

/// The current LSN of the range that holds partition key `pk`.
pub fn key_lsn(client: &ContainerClient, def: &ContainerDef, pk: &PartitionKey) -> Option<u64> {
    let range = if def.partition_key().placement == engine::Placement::Cosmos {
        def.range_id_of(pk)?
    } else {
        0
    };
    range_lsn(client, range)
}

/// The range an answer names (as `routes::pkranges::name_the_range` names it): the one holding
/// the request's partition key, else the one it named, else the first; `0` for a container
/// that shows as one range.
fn answering_range(ctx: &Ctx, def: &ContainerDef) -> u32 {
    if def.partition_key().placement != engine::Placement::Cosmos {
        return 0;
    }
    let h = ctx.headers();
    headers::partition_key(h)
        .ok()
        .flatten()
        .and_then(|pk| def.range_id_of(&pk))
        .or_else(|| {
            headers::get(h, headers::PK_RANGE_ID)
                .and_then(|id| id.parse::<u32>().ok())
                .filter(|id| def.range_ids().any(|r| r == *id))
        })
        .or_else(|| def.range_ids().next())
        .unwrap_or(0)
}

/// Before a request below container `c`: the session token it sends, if any, must be one (a
/// malformed one is a 400). A token ahead of its range is served, not refused: this store
/// never lags its own writes, so an answer now is at least as fresh as any token it issued, and
/// azure-cosmos sends tokens it learnt from another container (its session container keys a
/// write answered without a body, `Prefer: return=minimal`, by a container rid it may not
/// know: `test_crud_response_payload_on_write_disabled.py::test_partitioned_collection_document_crud_and_query`
/// reads a new container with another's token and expects the item).
pub(crate) fn check(ctx: &Ctx) -> Result<()> {
    let Some(raw) = headers::get(ctx.headers(), "x-ms-session-token").filter(|t| !t.is_empty())
    else {
        return Ok(());
    };
    parse(raw).map(|_| ()).ok_or_else(|| {
        GatewayError::BadRequest(format!(
            "The session token provided '{raw}' is invalid: expected \
             <partitionKeyRangeId>:<version>#<globalLSN>, comma-separated."
        ))
    })
}

/// After a successful answer below container `c`: its session token names the answering range
/// and that range's LSN now.
pub(crate) fn stamp(ctx: &Ctx, db: &str, c: &str, response: &mut HttpResponse) {
    if !response.status().is_success() {
        return;
    }
    let Ok((client, def)) = ctx.container(db, c) else {
        return;
    };
    let range = answering_range(ctx, &def);
    let Some(lsn) = range_lsn(&client, range) else {
        return;
    };
    if let Ok(v) = HeaderValue::from_str(&format!("{range}:0#{lsn}")) {
        response
            .headers_mut()
            .insert(HeaderName::from_static("x-ms-session-token"), v);
    }
}

/// `content-location`: the URI of the request, on every answer.
pub(crate) fn content_location(ctx: &Ctx, response: &mut HttpResponse) {
    let info = ctx.req.connection_info();
    let uri = format!(
        "{}://{}{}",
        info.scheme(),
        info.host(),
        ctx.req.uri().path()
    );
    if let Ok(v) = HeaderValue::from_str(&uri) {
        response
            .headers_mut()
            .insert(HeaderName::from_static("content-location"), v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_parse_in_the_sdks_forms() {
        let t = |range, lsn| TokenEntry { range, lsn };
        assert_eq!(parse("0:0#12").unwrap(), vec![t(Some(0), 12)]);
        assert_eq!(
            parse("1:-1#5#1=5,2:3#7").unwrap(),
            vec![t(Some(1), 5), t(Some(2), 7)]
        );
        assert_eq!(parse("42").unwrap(), vec![t(None, 42)]);
        assert!(parse("not-a-token").is_none());
        assert!(parse("0:0#x").is_none());
        assert!(parse(&uuid_like()).is_none());
    }

    fn uuid_like() -> String {
        "3f2504e0-4f89-11d3-9a0c-0305e82c3301".into()
    }
}
