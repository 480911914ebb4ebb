//! The HTTP ceiling: `GET /static/ceiling?bytes=N`, an HTML page of exactly N bytes that makes no
//! engine call, served by the same actix setup as every page (the same middleware: sessions, RU
//! header, security headers, access log). A load test reads a page's throughput as a ratio of
//! this one at the same size (`loadtest/ceiling.js`): what the engine and rendering cost on top
//! of HTTP.

use actix_web::{web, HttpResponse};
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

async fn ceiling(size: web::Query<Size>) -> Result<HttpResponse, WebError> {
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
