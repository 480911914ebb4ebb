//! A remote answer's failure as the engine's error, so an access pattern matches one error type
//! whatever the backend (`Error::NotFound`, `Error::Conflict`, … by Cosmos DB's status codes).

use std::time::Duration;

use crate::{Error, Failed};

/// The engine error for an HTTP status, the service's message and its sub-status.
pub(crate) fn from_status(
    status: u16,
    sub_status: Option<u32>,
    message: String,
    retry_after: Option<Duration>,
) -> Error {
    match status {
        // A refused continuation token, named as the engine names it (field `continuation`),
        // so a listing says "that page link is no longer valid" on either backend: the SDK's
        // own check (20007) or the endpoint's 400 that names the token.
        400 if sub_status == Some(20007) || message.to_lowercase().contains("continuation") => {
            Error::bad("continuation", message)
        }
        400 if sub_status == Some(1001) => Error::PartitionKeyMismatch(message),
        400 => Error::bad_request(message),
        401 => Error::Unavailable(format!(
            "the endpoint refused the key (401 Unauthorized): {}",
            // The service goes on with the string it signed, over several lines: for its
            // own logs, not a person's screen.
            message
                .split("Server used the following payload")
                .next()
                .unwrap_or_default()
                .trim()
        )),
        403 if sub_status == Some(1014) => Error::PartitionFull {
            partition_key: message,
            size: 0,
            limit: 0,
        },
        404 => Error::NotFound { what: message },
        409 if message.to_lowercase().contains("unique") => Error::UniqueKey { paths: message },
        409 => Error::Conflict { id: message },
        412 => Error::PreconditionFailed {
            expected: message,
            current: String::new(),
        },
        413 => Error::TooLarge { size: 0, limit: 0 },
        429 => Error::TooManyRequests {
            partition: 0,
            budget_ru_per_s: 0.0,
            retry_after: retry_after.unwrap_or(Duration::from_millis(100)),
        },
        408 => Error::RequestTimeout(message),
        507 => Error::StorageFull(message),
        _ => Error::Unavailable(format!("the endpoint answered {status}: {message}")),
    }
}

/// The SDK's sub-statuses for a continuation token it cannot resume the query from (its
/// `ClientContinuationToken…` family): 20203 shape mismatch (a single-partition query's token on a
/// fan-out, or the reverse), 20204 unexpected nested shape, 20205 invalid EPK range, 20213 saved
/// range no longer covered, 20214 invalid ORDER BY state (e.g. a boundary RID that is not a
/// Cosmos DB document RID).
const REFUSED_TOKENS: [u32; 5] = [20203, 20204, 20205, 20213, 20214];

/// The engine error for an SDK failure: its status when the endpoint answered, else the
/// transport's message (unreachable host, TLS) as 503.
pub(crate) fn from_sdk(e: azure_data_cosmos::CosmosError) -> Error {
    let status = e.status();
    let code = u16::from(status.status_code());
    let sub = status.sub_status().map(|s| u32::from(u16::from(s)));
    let retry_after = e
        .response()
        .and_then(|r| r.headers().retry_after_ms)
        .map(Duration::from_millis);
    if !e.is_from_wire() {
        // The SDK's own refusal of a request (a malformed continuation token: 400/20007) is
        // the caller's mistake, not an unreachable endpoint.
        if code == 400 {
            return from_status(code, sub, e.to_string(), None);
        }
        // So is a well-formed token that cannot resume this query (another query's shape, a
        // forged ORDER BY boundary, ranges the account no longer has): the SDK says 500, but
        // it is a stale or foreign page link, not an endpoint that is down.
        if sub.is_some_and(|s| REFUSED_TOKENS.contains(&s)) {
            return Error::bad("continuation", e.to_string());
        }
        return Error::Unavailable(format!("the Cosmos DB endpoint did not answer: {e}"));
    }
    from_status(code, sub, message_of(&e), retry_after)
}

/// [`from_sdk`] with the charge the endpoint reported for the failed request (Cosmos DB charges
/// a 404 point read, a 409, a 412 what they consumed; 0 when it did not answer).
pub(crate) fn charged_from_sdk(e: azure_data_cosmos::CosmosError) -> Failed {
    let charge = e
        .response()
        .and_then(|r| r.headers().request_charge)
        .map_or(0.0, |c| c.value());
    Failed::reported(from_sdk(e), charge)
}

/// The service's own message (its JSON body's `message`), else the error's text (which wraps
/// it in the SDK's "Cosmos DB returned HTTP 400/0: Unknown. Details: …").
fn message_of(e: &azure_data_cosmos::CosmosError) -> String {
    use azure_data_cosmos_driver::models::ResponseBody;
    e.response()
        .and_then(|r| match r.body() {
            ResponseBody::Bytes(b) => serde_json::from_slice::<serde_json::Value>(b).ok(),
            _ => None,
        })
        .and_then(|body| body["message"].as_str().map(str::to_owned))
        .unwrap_or_else(|| e.to_string())
}
