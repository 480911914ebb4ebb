//! Limits like the service's, so a slow or oversized client costs the gateway little: the item
//! size (the engine's 2 MB), a request-size cap, header, idle and body timeouts, connection caps
//! (per worker and per client address).

use std::time::Duration;

use actix_web::web;
use futures_util::StreamExt;

use crate::error::GatewayError;

#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest request body read: 2 MiB, the service's request-size limit. It counts the bytes
    /// on the wire, so an item under 2 MiB sent with every non-ASCII character escaped can be
    /// over it (the Python SDK's `test_encoding.py` expects that 413). A larger body is refused
    /// with 413 before it is read whole.
    pub max_request_bytes: usize,
    /// Time a client has to send its request line and headers, counted from the connection's
    /// start: a connection that sends nothing, or only part of a request line, is closed.
    pub header_timeout: Duration,
    /// How long a connection may stay idle between requests (HTTP/1.1 keep-alive; over HTTP/2
    /// the interval of the pings that check the client is still there).
    pub keep_alive: Duration,
    /// Longest wait for the next chunk of a body: a client that sends one byte every 10 s is
    /// cut off after the first pause.
    pub body_idle_timeout: Duration,
    /// Time a client has to send its whole body, however it paces it.
    pub body_timeout: Duration,
    /// Open connections per worker thread; past it the gateway stops accepting until one closes.
    pub max_connections_per_worker: usize,
    /// Open connections per client address; past it a new one from that address is closed at
    /// once, so one address cannot take the connections every other client needs.
    pub connections_per_address: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_request_bytes: 2 << 20,
            header_timeout: Duration::from_secs(5),
            keep_alive: Duration::from_secs(5),
            body_idle_timeout: Duration::from_secs(5),
            body_timeout: Duration::from_secs(30),
            max_connections_per_worker: 1024,
            connections_per_address: 256,
        }
    }
}

/// Reads a request body within the limits.
pub async fn read_body(
    mut payload: web::Payload,
    declared: Option<usize>,
    limits: &Limits,
) -> Result<Vec<u8>, GatewayError> {
    let too_large = |n: usize| {
        GatewayError::TooLarge(format!(
            "the request body is {n} bytes or more; the limit is {} bytes",
            limits.max_request_bytes
        ))
    };
    if let Some(n) = declared {
        if n > limits.max_request_bytes {
            return Err(too_large(n));
        }
    }
    let deadline = tokio::time::Instant::now() + limits.body_timeout;
    let mut body = Vec::with_capacity(declared.unwrap_or(0).min(limits.max_request_bytes));
    loop {
        let idle = tokio::time::Instant::now() + limits.body_idle_timeout;
        let next = tokio::time::timeout_at(idle.min(deadline), payload.next()).await;
        match next {
            Err(_) => {
                return Err(GatewayError::RequestTimeout(
                    "the request body arrived too slowly; send it without pauses".into(),
                ))
            }
            Ok(None) => return Ok(body),
            Ok(Some(Err(e))) => {
                return Err(GatewayError::BadRequest(format!(
                    "the request body could not be read: {e}"
                )))
            }
            Ok(Some(Ok(chunk))) => {
                if body.len() + chunk.len() > limits.max_request_bytes {
                    return Err(too_large(body.len() + chunk.len()));
                }
                body.extend_from_slice(&chunk);
            }
        }
    }
}
