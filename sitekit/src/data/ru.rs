//! Request units per HTTP request: every engine call an access pattern makes is recorded on the
//! request's [`RequestCharge`]; the footer lists the calls and `x-ms-request-charge` carries the
//! total, so a load test reads what each page cost the way the Cosmos DB SDKs report it.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{HttpMessage, HttpRequest};
use serde::Serialize;

pub use cosmos::ledger::{EngineCall, RequestCharge, Routing};

/// The response header Cosmos DB uses for a request's charge.
pub const REQUEST_CHARGE_HEADER: &str = "x-ms-request-charge";

/// The request's ledger, put there by [`track_request_charge`] (a fresh one outside it).
pub fn request_charge(req: &HttpRequest) -> RequestCharge {
    req.extensions()
        .get::<RequestCharge>()
        .cloned()
        .unwrap_or_default()
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

/// Most calls a [`LastAction`] keeps (its total counts them all).
pub const LAST_ACTION_CALLS: usize = 12;

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
    // Every `cosmos` call the handler makes is recorded on this ledger (`cosmos::ledger`).
    let mut res = cosmos::ledger::scope(charge.clone(), next.call(req)).await?;
    if let Some((session, path)) = post {
        let mut calls = charge.calls();
        // The note travels in the session cookie (4 KB at most): the first calls and the total.
        calls.truncate(LAST_ACTION_CALLS);
        // Without the queries' text: 12 texts of up to 160 characters, encrypted and base64'd,
        // would push the cookie past 4 KB (the page this lands on lists its own queries).
        for call in &mut calls {
            call.query = None;
        }
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
