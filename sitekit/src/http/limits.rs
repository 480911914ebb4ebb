//! What every server does about clients that hold on: a deadline for reading a request's body
//! (a client that sends the headers, then one byte every few seconds, would otherwise hold its
//! connection and a file descriptor forever), and a cap on one address's requests in flight (so
//! thousands of such clients from one address cannot exhaust the process's file limit). Headers
//! have actix's own deadline (`client_request_timeout`); idle keep-alive connections its
//! `keep_alive`.

use std::sync::Arc;
use std::time::Duration;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage, HttpResponse};
use futures_util::StreamExt;

/// The limits of one server.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Time allowed to receive a request's whole body once its headers are in.
    pub body_timeout: Duration,
    /// Requests in flight per client address.
    pub requests_per_address: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            body_timeout: Duration::from_secs(10),
            requests_per_address: 256,
        }
    }
}

/// Requests in flight per address, shared by the server's workers.
pub type InFlight = netguard::PerAddress;

/// Middleware: the per-address cap and the body deadline.
pub async fn limit_clients(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let limits = req
        .app_data::<web::Data<Limits>>()
        .map(|l| l.get_ref().clone())
        .unwrap_or_default();
    let table = req
        .app_data::<web::Data<Arc<InFlight>>>()
        .map(|t| t.get_ref().clone());
    let _slot = match (table, req.peer_addr()) {
        (Some(table), Some(peer)) => match table.take(peer.ip(), limits.requests_per_address) {
            Some(slot) => Some(slot),
            None => {
                let res = HttpResponse::build(StatusCode::TOO_MANY_REQUESTS)
                    .insert_header(("Retry-After", "5"))
                    .insert_header(("Connection", "close"))
                    .body("Too many requests in flight from your address.");
                return Ok(req.into_response(res));
            }
        },
        _ => None,
    };
    let deadline = tokio::time::Instant::now() + limits.body_timeout;
    let body = req.take_payload();
    let timed = futures_util::stream::unfold(body, move |mut body| async move {
        match tokio::time::timeout_at(deadline, body.next()).await {
            Ok(Some(chunk)) => Some((chunk, body)),
            Ok(None) => None,
            Err(_) => Some((
                Err(PayloadError::Io(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "the request body did not arrive in time",
                ))),
                body,
            )),
        }
    })
    // One error ends the body.
    .scan(false, |failed, item| {
        let done = *failed;
        *failed = item.is_err();
        std::future::ready((!done).then_some(item))
    });
    req.set_payload(Payload::from(
        Box::pin(timed) as actix_http::BoxedPayloadStream
    ));
    Ok(next.call(req).await?.map_into_boxed_body())
}
