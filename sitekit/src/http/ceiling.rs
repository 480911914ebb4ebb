//! The HTTP ceiling: `GET /static/ceiling?bytes=N`, an HTML page of exactly N bytes that makes no
//! engine call, served by the same actix setup as every page (the same middleware: sessions, RU
//! header, security headers, access log). A load test reads a page's throughput as a ratio of
//! this one at the same size (`loadtest/ceiling.js`): what the engine and rendering cost on top
//! of HTTP.
//!
//! Served to loopback clients only (the load tests run on the machine they measure): to anyone
//! else it is a 404, since a page of up to 1 MB per request for free is an amplifier. Behind the
//! trusted proxy the client is the address the proxy names, so the proxy's own loopback
//! connection does not open it to the world.

use std::net::IpAddr;

use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;

use crate::WebError;

/// Largest ceiling page (a blog home page is ~60 KB).
const MAX_BYTES: usize = 1 << 20;
const HEAD: &str = "<!doctype html><html><head><title>ceiling</title></head><body><p>";
const TAIL: &str = "</p></body></html>";

#[derive(Deserialize)]
pub struct Size {
    bytes: usize,
}

/// The page body: `HEAD`, filler, `TAIL`, `bytes` long in all (never shorter than its markup).
pub fn page(bytes: usize) -> String {
    let fill = bytes.saturating_sub(HEAD.len() + TAIL.len());
    let mut s = String::with_capacity(HEAD.len() + fill + TAIL.len());
    s.push_str(HEAD);
    s.extend(std::iter::repeat_n('x', fill));
    s.push_str(TAIL);
    s
}

/// Whether the client (as [`crate::http::proxy::client_address`] sees it) is on this machine.
fn from_loopback(req: &HttpRequest) -> bool {
    crate::http::proxy::client_address(req)
        .parse::<IpAddr>()
        .is_ok_and(|ip| ip.is_loopback())
}

async fn ceiling(req: HttpRequest, size: web::Query<Size>) -> Result<HttpResponse, WebError> {
    if !from_loopback(&req) {
        return Err(WebError::NotFound);
    }
    if size.bytes > MAX_BYTES {
        return Err(WebError::BadRequest(format!("bytes: at most {MAX_BYTES}")));
    }
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(page(size.bytes)))
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/static/ceiling", web::get().to(ceiling));
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_page_has_the_size_asked_for() {
        for n in [0, 10, 83, 60_000] {
            let p = super::page(n);
            assert_eq!(p.len(), n.max(83), "{n}");
            assert!(p.ends_with("</html>"));
        }
    }
}
