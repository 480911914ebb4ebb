//! Request units per HTTP request: every engine call an access pattern makes is recorded on the
//! request's [`RequestCharge`]; the footer lists the calls and `x-ms-request-charge` carries the
//! total, so a load test reads what each page cost the way the Cosmos DB SDKs report it.

use std::future::{ready, Ready};
use std::sync::Arc;

use actix_web::body::MessageBody;
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use engine::{ContainerClient, FeedResponse, ItemResponse, StoredProcedureResponse};
use parking_lot::Mutex;
use serde::Serialize;

/// The response header Cosmos DB uses for a request's charge.
pub const REQUEST_CHARGE_HEADER: &str = "x-ms-request-charge";

/// How an engine call was routed: what the seeds teach to look at first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
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
}

impl Routing {
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

/// One engine call behind a page.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct EngineCall {
    /// What the access pattern did, e.g. `read customer` or `query products by category`.
    pub operation: String,
    pub container: String,
    pub routing: Routing,
    /// Physical partitions visited.
    pub partitions: usize,
    pub request_charge: f64,
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

/// The engine calls of one HTTP request. Cheap to clone (all clones share the list).
#[derive(Debug, Clone, Default)]
pub struct RequestCharge {
    calls: Arc<Mutex<Vec<EngineCall>>>,
}

impl RequestCharge {
    pub fn record(&self, call: EngineCall) {
        self.calls.lock().push(call);
    }

    /// A point operation (read, create, replace, upsert, patch, delete).
    pub fn item<T>(&self, operation: &str, container: &ContainerClient, r: &ItemResponse<T>) {
        self.record(EngineCall {
            operation: operation.to_owned(),
            container: container.id().to_owned(),
            routing: Routing::Point,
            partitions: r.diagnostics.partitions.len().max(1),
            request_charge: r.request_charge,
        });
    }

    /// A query (one page or all of them); routing comes from the engine's query metrics.
    pub fn query<T>(&self, operation: &str, container: &ContainerClient, r: &FeedResponse<T>) {
        let routed = r.query_metrics.as_ref().is_some_and(|m| m.routed);
        self.record(EngineCall {
            operation: operation.to_owned(),
            container: container.id().to_owned(),
            routing: if routed {
                Routing::SinglePartition
            } else {
                Routing::FanOut
            },
            partitions: r.diagnostics.partitions.len().max(1),
            request_charge: r.request_charge,
        });
    }

    pub fn procedure<T>(
        &self,
        operation: &str,
        container: &ContainerClient,
        r: &StoredProcedureResponse<T>,
    ) {
        self.record(EngineCall {
            operation: operation.to_owned(),
            container: container.id().to_owned(),
            routing: Routing::Procedure,
            partitions: 1,
            request_charge: r.request_charge,
        });
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

/// The request's ledger, put there by [`track_request_charge`] (a fresh one outside it).
impl FromRequest for RequestCharge {
    type Error = actix_web::Error;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(Ok(req
            .extensions()
            .get::<RequestCharge>()
            .cloned()
            .unwrap_or_default()))
    }
}

/// A form post's engine calls, kept in the session for the page its redirect lands on: a write
/// answers with a 303 and no page of its own, so without this the cost of writes — the heart of
/// the articles' comparisons — would never be on a page.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct LastAction {
    /// `POST /posts/{id}/comments`.
    pub request: String,
    pub calls: Vec<EngineCall>,
    pub total_ru: f64,
}

/// The session key of the [`LastAction`].
pub const LAST_ACTION: &str = "last_action";

/// Middleware: gives each request a ledger and answers with its total in `x-ms-request-charge`
/// (also on error pages, whose engine calls cost RU too); a redirected form post leaves its
/// calls for the next page ([`LastAction`]).
pub async fn track_request_charge(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let charge = RequestCharge::default();
    req.extensions_mut().insert(charge.clone());
    let post = (req.method() == actix_web::http::Method::POST).then(|| {
        (
            actix_session::SessionExt::get_session(&req),
            req.path().to_owned(),
        )
    });
    let mut res = next.call(req).await?;
    if let Some((session, path)) = post {
        let calls = charge.calls();
        if res.status().is_redirection() && !calls.is_empty() {
            let _ = session.insert(
                LAST_ACTION,
                LastAction {
                    request: format!("POST {path}"),
                    total_ru: charge.total(),
                    calls,
                },
            );
        }
    }
    let total = HeaderValue::from_str(&format!("{:.2}", charge.total()))
        .expect("a number is a valid header value");
    res.headers_mut()
        .insert(HeaderName::from_static(REQUEST_CHARGE_HEADER), total);
    Ok(res)
}
