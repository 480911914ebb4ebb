//! Static assets, compiled into the binary (no CDN, nothing to deploy beside it).

use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};

const SITE_CSS: &str = include_str!("../../../templates/static/site.css");

/// A weak validator that changes whenever the stylesheet does.
fn etag() -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in SITE_CSS.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100000001b3);
    }
    format!("W/\"{h:016x}\"")
}

async fn site_css(req: HttpRequest) -> HttpResponse {
    let tag = etag();
    if req
        .headers()
        .get(header::IF_NONE_MATCH)
        .is_some_and(|v| v.as_bytes() == tag.as_bytes())
    {
        return HttpResponse::NotModified().finish();
    }
    HttpResponse::Ok()
        .content_type("text/css; charset=utf-8")
        .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
        .insert_header((header::ETAG, tag))
        .body(SITE_CSS)
}

/// Where a site serves its access patterns (the footer links there when
/// [`Site::patterns`](crate::Site::patterns) says it does).
pub const PATTERNS_PATH: &str = "/access-patterns";

/// `GET` [`PATTERNS_PATH`]: an app's `ACCESS_PATTERNS.md` as the repository has it (plain
/// text: a browser shows it; no Markdown renderer for one page), so the codes in a page's
/// footer (`[Q4] read product`) lead to the pattern's query, partition key and measured RU.
pub fn patterns_route(markdown: &'static str) -> actix_web::Route {
    web::get().to(move || async move {
        HttpResponse::Ok()
            .content_type("text/plain; charset=utf-8")
            .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
            .body(markdown)
    })
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/static/site.css", web::get().to(site_css));
}
