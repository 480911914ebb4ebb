//! Request units per request: every call a [`Container`](crate::Container) makes is recorded on
//! the ledger of the task it runs in, so a page lists the calls behind it and sums their charge
//! the way the Cosmos DB SDKs report it (`x-ms-request-charge`) — without an access pattern
//! writing any of it down. A web server gives each request a ledger with [`scope`]; a call made
//! outside any scope (a seed, a worker) is recorded nowhere. A call that fails is recorded too,
//! with its status ([`EngineCall::error_status`]) and what it cost (a 404 point read 1 RU, a
//! unique-key 409 the write), as Cosmos DB charges failed requests; the app gets the plain error,
//! and [`measured`] tells what one call cost, failed or not.
//!
//! A call is named by the access pattern that makes it, `.labelled("[Q6] query feed")` on its
//! future; an unlabelled call is named after what it did ("query feed").

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use tokio::task::futures::TaskLocalFuture;

tokio::task_local! {
    static LEDGER: RequestCharge;
    static LABEL: Cow<'static, str>;
}

/// Runs `f` with `charge` as the ledger of every call it makes.
pub fn scope<F: Future>(charge: RequestCharge, f: F) -> TaskLocalFuture<RequestCharge, F> {
    LEDGER.scope(charge, f)
}

/// The ledger of the current task, if it runs inside [`scope`].
pub fn current() -> Option<RequestCharge> {
    LEDGER.try_with(Clone::clone).ok()
}

/// Runs `f` on a ledger of its own and returns that ledger too (what `f` alone cost); the calls
/// are also recorded on the enclosing ledger, so a page still lists them.
pub async fn measured<F: Future>(f: F) -> (F::Output, RequestCharge) {
    let own = RequestCharge::default();
    let out = LEDGER.scope(own.clone(), f).await;
    if let Some(outer) = current() {
        for call in own.calls() {
            outer.record(call);
        }
    }
    (out, own)
}

/// Names the calls a future makes on the ledger: the access pattern's label.
pub trait Labelled: Future + Sized {
    fn labelled(
        self,
        label: impl Into<Cow<'static, str>>,
    ) -> TaskLocalFuture<Cow<'static, str>, Self> {
        LABEL.scope(label.into(), self)
    }
}

impl<F: Future> Labelled for F {}

/// How a call was routed: what the seeds teach to look at first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Routing {
    /// A point read or write: id and partition key known.
    Point,
    /// A query confined to one logical partition.
    SinglePartition,
    /// A query sent to every physical partition.
    FanOut,
    /// A stored procedure: one transaction in one logical partition.
    Procedure,
}

impl Routing {
    pub fn label(&self) -> &'static str {
        match self {
            Routing::Point => "point",
            Routing::SinglePartition => "single-partition",
            Routing::FanOut => "fan-out",
            Routing::Procedure => "stored procedure",
        }
    }

    /// The footer's CSS class for this routing.
    pub fn css_class(&self) -> &'static str {
        match self {
            Routing::Point => "point",
            Routing::SinglePartition => "single",
            Routing::FanOut => "fanout",
            Routing::Procedure => "procedure",
        }
    }
}

impl std::fmt::Display for Routing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// One call behind a page.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EngineCall {
    /// What the access pattern did, e.g. `[Q6] query feed`.
    pub operation: String,
    pub container: String,
    pub routing: Routing,
    /// Physical partitions visited (0: the endpoint did not say, as a remote fan-out).
    pub partitions: usize,
    pub request_charge: f64,
    /// The status of a call that failed (404, 409, 412, 408, …), still charged what it did
    /// (engine/RU.md, "Failed requests"); `None` when it succeeded.
    #[serde(default)]
    pub error_status: Option<u16>,
    /// A query call's SQL, cut at [`QUERY_TEXT_CHARS`] characters: what the footer shows beside
    /// the pattern's label, so the cost sits next to the query that made it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
}

/// Most characters of a query's text the ledger keeps (a page may list dozens of calls).
pub const QUERY_TEXT_CHARS: usize = 160;

/// `sql` on one line, cut at [`QUERY_TEXT_CHARS`] characters with an ellipsis.
pub fn query_text(sql: &str) -> String {
    let one_line = sql.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(QUERY_TEXT_CHARS) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
        None => one_line,
    }
}

impl EngineCall {
    /// What to say beside the routing when it would mislead: a fan-out over a container that has
    /// one physical partition now visits just that one, but grows with every split.
    pub fn routing_note(&self) -> &'static str {
        if self.routing == Routing::FanOut && self.partitions == 1 {
            "every partition; this container has 1 now"
        } else {
            ""
        }
    }
}

/// The calls of one request. Cheap to clone (all clones share the list).
#[derive(Debug, Clone, Default)]
pub struct RequestCharge {
    calls: Arc<Mutex<Vec<EngineCall>>>,
}

impl RequestCharge {
    pub fn record(&self, call: EngineCall) {
        self.calls.lock().push(call);
    }

    pub fn total(&self) -> f64 {
        let sum: f64 = self.calls.lock().iter().map(|c| c.request_charge).sum();
        // `+ 0.0`: an empty f64 sum is -0.0, which would print as "-0.00".
        (sum * 100.0).round() / 100.0 + 0.0
    }

    pub fn calls(&self) -> Vec<EngineCall> {
        self.calls.lock().clone()
    }
}

/// Records a finished call on the current ledger (if any), under the current label or, without
/// one, `what` and the container (`query feed`).
pub(crate) fn record(
    what: &str,
    container: &str,
    routing: Routing,
    partitions: usize,
    charge: f64,
) {
    record_call(what, container, routing, partitions, charge, None, None);
}

/// Records a finished query, with its text.
pub(crate) fn record_query(
    sql: &str,
    container: &str,
    routing: Routing,
    partitions: usize,
    charge: f64,
) {
    record_call(
        "query",
        container,
        routing,
        partitions,
        charge,
        None,
        Some(sql),
    );
}

/// Records a call that failed, with what it cost, and returns its error for the caller.
pub(crate) fn record_failure(
    what: &str,
    container: &str,
    routing: Routing,
    failed: engine::Failed,
    sql: Option<&str>,
) -> engine::Error {
    let charge = failed.request_charge();
    let status = failed.status_code();
    record_call(what, container, routing, 0, charge, Some(status), sql);
    failed.error
}

fn record_call(
    what: &str,
    container: &str,
    routing: Routing,
    partitions: usize,
    charge: f64,
    error_status: Option<u16>,
    sql: Option<&str>,
) {
    let Some(ledger) = current() else { return };
    let operation = LABEL
        .try_with(|l| l.to_string())
        .unwrap_or_else(|_| format!("{what} {container}"));
    ledger.record(EngineCall {
        operation,
        container: container.to_owned(),
        routing,
        partitions,
        request_charge: charge,
        error_status,
        query: sql.map(query_text),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_text_is_one_line_and_cut_at_a_character() {
        assert_eq!(
            query_text("SELECT *\n   FROM c\tWHERE c.id = @id"),
            "SELECT * FROM c WHERE c.id = @id"
        );
        // Multi-byte characters: the cut falls between characters, never inside one.
        let long = "é".repeat(QUERY_TEXT_CHARS + 5);
        let cut = query_text(&long);
        assert_eq!(cut.chars().count(), QUERY_TEXT_CHARS + 1);
        assert!(cut.ends_with("é…"));
    }
}
