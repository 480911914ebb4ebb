//! Responses, shaped like the Cosmos DB SDKs': the resource plus the request charge and
//! diagnostics that tell what the request cost and where it went.

use serde::Serialize;

/// What a request touched, for people tuning a model (and for the RU headers of the apps).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Diagnostics {
    /// Physical partitions the request visited.
    pub partitions: Vec<u32>,
    pub items_read: u64,
    pub bytes_read: u64,
    /// Items loaded by scans (queries, partition reads).
    pub items_scanned: u64,
    pub items_written: u64,
    pub bytes_written: u64,
    pub index_terms_written: u64,
    /// 429s the client absorbed by waiting and retrying.
    pub throttle_retries: u32,
}

impl Diagnostics {
    pub(crate) fn from_meter(m: &crate::ru::Meter, partitions: Vec<u32>) -> Self {
        Diagnostics {
            partitions,
            items_read: m.items_read,
            bytes_read: m.bytes_read,
            items_scanned: m.items_scanned,
            items_written: m.items_written,
            bytes_written: m.bytes_written,
            index_terms_written: m.index_terms_written,
            throttle_retries: 0,
        }
    }
}

#[derive(Debug, Clone)]
pub struct ItemResponse<T> {
    /// 200, 201 or 204.
    pub status_code: u16,
    /// The item as stored (with system properties). `None` for deletes, or when the options
    /// turned content responses on write off.
    pub resource: Option<T>,
    pub etag: Option<String>,
    pub request_charge: f64,
    pub diagnostics: Diagnostics,
}

impl<T> ItemResponse<T> {
    /// The resource, for callers that know the operation returns one.
    pub fn into_resource(self) -> Option<T> {
        self.resource
    }
}

#[derive(Debug, Clone)]
pub struct FeedResponse<T> {
    pub items: Vec<T>,
    pub request_charge: f64,
    /// Opaque token for the next page; `None` when this is the last.
    pub continuation: Option<String>,
    pub diagnostics: Diagnostics,
    /// For queries: what the page retrieved, returned and how it ran.
    pub query_metrics: Option<crate::sql::run::QueryMetrics>,
}
