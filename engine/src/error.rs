//! One error type for the whole engine, shaped like Cosmos DB's status codes so an app (or the
//! HTTP edge) can map it one to one: `status_code()` is what Cosmos DB would answer.

use std::time::Duration;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// 400: the request itself is wrong; `field` names the property or argument at fault.
    #[error("bad request: {message}")]
    BadRequest {
        field: Option<String>,
        message: String,
    },

    /// 400 / sub-status 1001: the partition key a request names is not the item's (or not a
    /// whole key where a point operation needs one), as Cosmos DB's `PartitionKeyMismatch`.
    /// The service's sentence comes first (azure-cosmos 4.17.1's test_transactional_batch.py
    /// asserts it for a batch naming a prefix of a hierarchical key), then what differs.
    #[error("bad request: Partition key provided either doesn't correspond to definition in the collection or doesn't match partition key field values specified in the document. {0}")]
    PartitionKeyMismatch(String),

    /// 404
    #[error("not found: {what}")]
    NotFound { what: String },

    /// 409: create of an id that already exists in the logical partition.
    #[error("conflict: an item with id '{id}' already exists in this logical partition")]
    Conflict { id: String },

    /// 409: a write would give two items of one logical partition the same values of a unique
    /// key of the container's unique key policy.
    #[error("conflict: unique index constraint violation: another item of this logical partition has the same {paths}")]
    UniqueKey { paths: String },

    /// 412: the `if-match` etag is not the item's current etag.
    #[error("precondition failed: the item's etag is {current}, the request expected {expected}")]
    PreconditionFailed { expected: String, current: String },

    /// 413
    #[error("request entity too large: the item is {size} bytes, the limit is {limit} bytes")]
    TooLarge { size: usize, limit: usize },

    /// 403 / sub-status 1014: the logical partition would grow past its limit.
    #[error(
        "partition key reached maximum size: logical partition {partition_key} would hold {size} bytes, the limit is {limit} bytes"
    )]
    PartitionFull {
        partition_key: String,
        size: u64,
        limit: u64,
    },

    /// 429: the physical partition spent its share of the provisioned throughput.
    #[error(
        "request rate is large: physical partition {partition} is over its {budget_ru_per_s} RU/s budget; retry after {} ms",
        retry_after.as_millis()
    )]
    TooManyRequests {
        partition: u32,
        budget_ru_per_s: f64,
        retry_after: Duration,
    },

    /// 408: a script overran its budget and was rolled back.
    #[error("request timeout: {0}")]
    RequestTimeout(String),

    /// 507: the disk (or the configured map limit) is full. Nothing committed is lost.
    #[error("insufficient storage: {0}")]
    StorageFull(String),

    /// 500: LMDB or the file system failed.
    #[error("storage error: {0}")]
    Storage(heed::Error),

    /// 500: stored bytes that do not decode (never expected; reported rather than hidden).
    #[error("corrupt data: {0}")]
    Corrupt(String),

    /// 503: the engine is shutting down.
    #[error("service unavailable: {0}")]
    Unavailable(String),
}

impl Error {
    pub fn bad(field: impl Into<String>, message: impl Into<String>) -> Self {
        Error::BadRequest {
            field: Some(field.into()),
            message: message.into(),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Error::BadRequest {
            field: None,
            message: message.into(),
        }
    }

    /// The HTTP status Cosmos DB answers for this error.
    pub fn status_code(&self) -> u16 {
        match self {
            Error::BadRequest { .. } | Error::PartitionKeyMismatch(_) => 400,
            Error::NotFound { .. } => 404,
            Error::Conflict { .. } | Error::UniqueKey { .. } => 409,
            Error::PreconditionFailed { .. } => 412,
            Error::TooLarge { .. } => 413,
            Error::PartitionFull { .. } => 403,
            Error::TooManyRequests { .. } => 429,
            Error::RequestTimeout(_) => 408,
            Error::StorageFull(_) => 507,
            Error::Storage(_) | Error::Corrupt(_) => 500,
            Error::Unavailable(_) => 503,
        }
    }

    /// Cosmos DB's sub-status where it has one that callers rely on.
    pub fn sub_status(&self) -> Option<u16> {
        match self {
            Error::PartitionFull { .. } => Some(1014),
            Error::PartitionKeyMismatch(_) => Some(1001),
            _ => None,
        }
    }

    /// For 429: how long to wait before retrying.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Error::TooManyRequests { retry_after, .. } => Some(*retry_after),
            _ => None,
        }
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error::bad_request(format!("invalid JSON: {e}"))
    }
}

impl From<heed::Error> for Error {
    /// LMDB's own findings of damage (a page of the wrong type, a page past the end), and stored
    /// bytes that do not decode, are corrupt data, said as such, not an unexplained storage error.
    fn from(e: heed::Error) -> Self {
        match e {
            heed::Error::Mdb(heed::MdbError::Corrupted | heed::MdbError::PageNotFound)
            | heed::Error::Decoding(_) => Error::Corrupt(format!(
                "the data file is damaged ({e}); restore it from a backup, run `engine check`"
            )),
            other => Error::Storage(other),
        }
    }
}

/// A request that failed, and the work it did before it failed: Cosmos DB charges a failed
/// request for what it consumed (a 404 point read ~1 RU, a unique-key 409 the write, a query its
/// reads; RU.md, "Failed requests"), and so does the engine, against the partition's budget and
/// in [`Failed::request_charge`]. `?` turns it into the plain [`Error`] where the charge is not
/// wanted, and an [`Error`] into a `Failed` that cost nothing (refused before any work).
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub struct Failed {
    pub error: Error,
    /// The work the engine did. `None`: refused before it did anything (a 429, a malformed
    /// request). Boxed: errors travel by value through every `?`.
    spent: Option<Box<crate::ru::Meter>>,
    /// RU charged besides: reported by an endpoint (the `cosmos` client's remote backend), or
    /// spent by the earlier pages of a call that reads several.
    charged_besides: f64,
}

impl Failed {
    pub(crate) fn spent(error: Error, meter: crate::ru::Meter) -> Self {
        Failed {
            error,
            spent: Some(Box::new(meter)),
            charged_besides: 0.0,
        }
    }

    /// An endpoint's failure with the charge it reported (`x-ms-request-charge`).
    pub fn reported(error: Error, request_charge: f64) -> Self {
        Failed {
            error,
            spent: None,
            charged_besides: request_charge,
        }
    }

    /// This failure after calls that already cost `request_charge` (the earlier pages of a
    /// query read to its end): the whole call's charge.
    pub fn after(mut self, request_charge: f64) -> Self {
        self.charged_besides += request_charge;
        self
    }

    /// The RU this failure cost, as `x-ms-request-charge` reports it (0 when nothing was done).
    pub fn request_charge(&self) -> f64 {
        let spent = self.spent.as_ref().map_or(0.0, |m| m.charge());
        ((spent + self.charged_besides) * 100.0).round() / 100.0
    }

    /// The work recorded so far, to add to (a query's user-defined functions).
    pub(crate) fn meter_mut(&mut self) -> &mut crate::ru::Meter {
        self.spent.get_or_insert_with(Default::default)
    }
}

impl std::ops::Deref for Failed {
    type Target = Error;
    fn deref(&self) -> &Error {
        &self.error
    }
}

impl From<Error> for Failed {
    fn from(error: Error) -> Self {
        Failed::reported(error, 0.0)
    }
}

impl From<Failed> for Error {
    fn from(f: Failed) -> Self {
        f.error
    }
}

impl From<heed::Error> for Failed {
    fn from(e: heed::Error) -> Self {
        Error::from(e).into()
    }
}

impl From<serde_json::Error> for Failed {
    fn from(e: serde_json::Error) -> Self {
        Error::from(e).into()
    }
}
