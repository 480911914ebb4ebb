//! The request headers the SDKs send and the response headers they read.

use actix_web::http::header::HeaderMap;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, HttpResponseBuilder};
use engine::PartitionKey;
use serde_json::Value;

use crate::common_headers::{activity_id, format_charge};
use crate::error::GatewayError;

pub const PARTITION_KEY: &str = "x-ms-documentdb-partitionkey";
pub const IS_UPSERT: &str = "x-ms-documentdb-is-upsert";
pub const IS_QUERY: &str = "x-ms-documentdb-isquery";
pub const IS_QUERY_PLAN: &str = "x-ms-cosmos-is-query-plan-request";
pub const MAX_ITEM_COUNT: &str = "x-ms-max-item-count";
pub const CONTINUATION: &str = "x-ms-continuation";
pub const PK_RANGE_ID: &str = "x-ms-documentdb-partitionkeyrangeid";
pub const OFFER_THROUGHPUT: &str = "x-ms-offer-throughput";
pub const AUTOPILOT: &str = "x-ms-cosmos-offer-autopilot-settings";
pub const START_EPK: &str = "x-ms-start-epk";
pub const END_EPK: &str = "x-ms-end-epk";

/// The range answers name until `routes::pkranges::name_the_range` names the right one, and the
/// one range of a container placed by the engine's own hash (see PROTOCOL.md).
pub const RANGE_ID: &str = "0";

/// The headers the gateway reads besides the `x-ms-*` ones.
const READ: [&str; 11] = [
    "host",
    "origin",
    "authorization",
    "date",
    "content-type",
    "content-length",
    "if-match",
    "if-none-match",
    "if-modified-since",
    "a-im",
    "prefer",
];

/// Every header the gateway reads must be visible ASCII, as Cosmos DB's are: [`get`] cannot read
/// another value, which would then count as absent (an `If-Match` of `\xff` made a replace
/// unconditional, a continuation `abc\xff` restarted a query from its first page). A 400 that
/// names the header instead.
pub fn check_values(headers: &HeaderMap) -> Result<(), GatewayError> {
    for (name, value) in headers {
        let name = name.as_str();
        if (name.starts_with("x-ms-") || READ.contains(&name)) && value.to_str().is_err() {
            return Err(GatewayError::BadRequest(format!(
                "The value of header {name} is invalid: it holds a character that is not \
                 visible ASCII (bytes 0x20-0x7E)."
            )));
        }
    }
    Ok(())
}

pub fn get<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

pub fn flag(headers: &HeaderMap, name: &str) -> bool {
    get(headers, name).is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

/// `x-ms-documentdb-partitionkey`: a JSON array of one value, or of up to three for a
/// hierarchical key (a prefix for a query); `{}` is `PartitionKey.None`. Whether the count
/// fits the container is the engine's to say.
pub fn partition_key(headers: &HeaderMap) -> Result<Option<PartitionKey>, GatewayError> {
    get(headers, PARTITION_KEY)
        .map(|raw| parse_partition_key(raw, PARTITION_KEY))
        .transpose()
}

/// A partition key in the header's form, wherever it comes: the header, or a bulk operation's
/// `partitionKey` (`field` names it in errors).
pub fn parse_partition_key(raw: &str, field: &str) -> Result<PartitionKey, GatewayError> {
    let bad = |why: &str| {
        GatewayError::BadRequest(format!(
            "Partition key {raw} is invalid: {why} (expected a JSON array of the key's values, \
             e.g. [\"value\"] or [\"tenant\", \"user\"], with {{}} for a missing property)"
        ))
    };
    let value: Value = serde_json::from_str(raw).map_err(|e| bad(&e.to_string()))?;
    let Value::Array(mut values) = value else {
        return Err(bad("not a JSON array"));
    };
    match values.len() {
        1 => match values.remove(0) {
            Value::Object(o) if o.is_empty() => Ok(PartitionKey::None),
            v => PartitionKey::from_json(&v, field).map_err(GatewayError::Engine),
        },
        2 | 3 => PartitionKey::from_json_values(&values, field).map_err(GatewayError::Engine),
        _ => Err(bad("a partition key has one to three values")),
    }
}

/// `x-ms-indexing-directive` on a create, upsert or replace: `Exclude` stores the item without
/// indexing it; `Include` and `Default` index it as the container's policy says (the SDKs'
/// `indexingDirective` option; the JavaScript SDK sends `Exclude`, the REST API documents the
/// three values).
pub fn excluded_from_index(headers: &HeaderMap) -> Result<bool, GatewayError> {
    match get(headers, "x-ms-indexing-directive") {
        None => Ok(false),
        Some(v) if v.eq_ignore_ascii_case("exclude") => Ok(true),
        Some(v) if v.eq_ignore_ascii_case("include") || v.eq_ignore_ascii_case("default") => {
            Ok(false)
        }
        Some(v) => Err(GatewayError::BadRequest(format!(
            "Invalid value '{v}' for header x-ms-indexing-directive: Default, Include or Exclude."
        ))),
    }
}

/// `x-ms-start-epk` / `x-ms-end-epk`: a range of Cosmos EPKs narrower than the whole key space
/// (a feed range, or a hierarchical key's prefix as the Python SDK sends it). A bound that is
/// not an EPK (`engine::EpkRange::parse`) is a 400 naming its header.
pub fn epk_range(headers: &HeaderMap) -> Result<Option<engine::EpkRange>, GatewayError> {
    let start = get(headers, START_EPK);
    let end = get(headers, END_EPK);
    if start.is_none() && end.is_none() {
        return Ok(None);
    }
    let range = engine::EpkRange::parse(
        start.unwrap_or(""),
        end.unwrap_or("FF"),
        [START_EPK, END_EPK],
    )?;
    Ok(Some(range).filter(|r| !r.is_everything()))
}

/// `x-ms-max-item-count`: absent or -1 means the service's default.
pub fn max_item_count(headers: &HeaderMap) -> Result<Option<usize>, GatewayError> {
    match get(headers, MAX_ITEM_COUNT) {
        None => Ok(None),
        Some(v) => match v.trim().parse::<i64>() {
            Ok(-1) => Ok(None),
            Ok(n) if n > 0 => Ok(Some(n as usize)),
            _ => Err(GatewayError::BadRequest(format!(
                "Invalid value '{v}' for header {MAX_ITEM_COUNT}: a positive integer or -1"
            ))),
        },
    }
}

/// `x-ms-continuation`: the engine's own token, resumed where it left off. A token in the
/// service's backend form (`-RID:<document rid>#RT:<round trips>#TRC:<results so far>…`, what
/// Cosmos DB's partitions answer) was never issued here: it names a document of another store,
/// and the service, given one whose document is not in the range, answers the range from its
/// start (azure-cosmos's `test_query_feed_range.py::test_query_with_static_continuation`
/// sends a fixed one to every container and expects items on every page): so here too.
pub fn continuation(headers: &HeaderMap) -> Option<String> {
    get(headers, CONTINUATION)
        .filter(|c| !c.is_empty() && !is_service_backend_token(c))
        .map(str::to_owned)
}

/// Whether `token` has the service's backend form `-RID:…#RT:…`.
fn is_service_backend_token(token: &str) -> bool {
    token
        .strip_prefix("-RID:")
        .is_some_and(|rest| rest.split('#').any(|p| p.starts_with("RT:")))
}

/// A successful answer with the headers every response carries.
pub struct Reply {
    builder: HttpResponseBuilder,
}

impl Reply {
    pub fn new(status: u16, charge: f64) -> Self {
        let mut builder =
            HttpResponse::build(StatusCode::from_u16(status).unwrap_or(StatusCode::OK));
        builder
            .insert_header(("x-ms-activity-id", activity_id()))
            .insert_header(("x-ms-request-charge", format_charge(charge)))
            .insert_header(("x-ms-session-token", format!("{RANGE_ID}:0#0")))
            .insert_header(("x-ms-gatewayversion", "version=2.14.0"))
            .insert_header(("x-ms-serviceversion", "version=2.14.0.0"))
            .insert_header(("x-ms-documentdb-partitionkeyrangeid", RANGE_ID));
        Reply { builder }
    }

    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.builder.insert_header((name, value.into()));
        self
    }

    pub fn etag(self, etag: Option<&str>) -> Self {
        match etag {
            Some(e) => self.header("etag", e),
            None => self,
        }
    }

    /// The session token of an item's answer, and its `lsn`: the partition's LSN when the
    /// answer left (a write's is its own; the Python SDK's `test_cosmos_responses.py` counts one
    /// more per write, `test_transactional_batch.py::test_batch_lsn` reads a read's). The
    /// session token's range and LSN are `session::stamp`'s.
    pub fn session(self, lsn: u64) -> Self {
        self.header("x-ms-session-token", format!("{RANGE_ID}:0#{lsn}"))
            .header("lsn", lsn.to_string())
    }

    /// `x-ms-item-lsn`: the LSN of the item's own last write (the service's response header
    /// beside `lsn`; the SDKs' `HttpHeaders.ItemLsn`).
    pub fn item_lsn(self, lsn: u64) -> Self {
        self.header("x-ms-item-lsn", lsn.to_string())
    }

    pub fn json(mut self, body: impl Into<Vec<u8>>) -> HttpResponse {
        self.builder
            .content_type("application/json")
            .body(body.into())
    }

    pub fn empty(mut self) -> HttpResponse {
        self.builder.finish()
    }
}

/// `Prefer: return=minimal` (the SDKs' "no response on write"): the body is left out.
pub fn wants_minimal(req: &HttpRequest) -> bool {
    get(req.headers(), "prefer").is_some_and(|v| v.contains("return=minimal"))
        || get(
            req.headers(),
            "x-ms-cosmos-populate-content-response-on-write",
        )
        .is_some_and(|v| v.eq_ignore_ascii_case("false"))
}
