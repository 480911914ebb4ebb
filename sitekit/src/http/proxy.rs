//! Who the client is and which host it asked for. Forwarded headers (`X-Forwarded-For`,
//! `X-Forwarded-Host`) are written by whoever sends the request, so they are believed only when
//! the connection comes from the reverse proxy named with `--trusted-proxy`; otherwise anyone
//! could dodge a throttle, lock out someone else's address, or pass the CSRF origin check with a
//! host of their choosing.

use std::net::IpAddr;

use actix_web::http::header;
use actix_web::{web, HttpRequest};

/// The reverse proxy whose forwarded headers are believed (registered by the server).
#[derive(Debug, Clone, Copy, Default)]
pub struct TrustedProxy(pub Option<IpAddr>);

fn via_trusted_proxy(req: &HttpRequest) -> bool {
    let trusted = req.app_data::<web::Data<TrustedProxy>>().and_then(|t| t.0);
    match (trusted, req.peer_addr()) {
        (Some(proxy), Some(peer)) => peer.ip() == proxy,
        _ => false,
    }
}

/// The client's address: the connection's peer, or the address the trusted proxy appended.
pub fn client_address(req: &HttpRequest) -> String {
    if via_trusted_proxy(req) {
        let forwarded = req
            .headers()
            .get("x-forwarded-for")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .map(str::trim)
            .and_then(|v| v.parse::<IpAddr>().ok());
        if let Some(ip) = forwarded {
            return ip.to_string();
        }
    }
    req.peer_addr()
        .map(|a| a.ip().to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// The host the client asked for: the `Host` header (or the HTTP/2 authority), or the
/// trusted proxy's `X-Forwarded-Host`.
pub fn requested_host(req: &HttpRequest) -> Option<String> {
    if via_trusted_proxy(req) {
        if let Some(h) = req
            .headers()
            .get("x-forwarded-host")
            .and_then(|v| v.to_str().ok())
        {
            return Some(h.trim().to_owned());
        }
    }
    req.headers()
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .or_else(|| req.uri().authority().map(|a| a.to_string()))
}

/// The scheme the client used: `https` only through the trusted proxy's `X-Forwarded-Proto`
/// (the servers here speak plain HTTP).
pub fn requested_scheme(req: &HttpRequest) -> String {
    if via_trusted_proxy(req) {
        if let Some(p) = req
            .headers()
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
        {
            return p.trim().to_owned();
        }
    }
    // Not `connection_info()`: it believes `X-Forwarded-Proto` and `Forwarded` from anyone.
    if req.app_config().secure() {
        "https".into()
    } else {
        "http".into()
    }
}
