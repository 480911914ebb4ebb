//! The explorer's routes, one thin handler each. Container pages live under
//! `/dbs/{db}/colls/{coll}` as in Cosmos DB's resource paths.

mod changefeed;
mod container;
mod home;
mod items;
mod metrics;
mod partitions;
mod query;
mod scripts;

use actix_web::web;
use sitekit::pages::paging::url_escape;

use crate::{Explorer, ExplorerError};

pub fn configure(cfg: &mut web::ServiceConfig) {
    const C: &str = "/dbs/{db}/colls/{coll}";
    cfg.route("/", web::get().to(home::home))
        .route("/partitions", web::get().to(partitions::all))
        .route("/changefeed", web::get().to(changefeed::processors))
        .route("/metrics", web::get().to(metrics::metrics))
        .route(C, web::get().to(container::container))
        .route(&format!("{C}/items"), web::get().to(items::list))
        .route(&format!("{C}/items/{{id}}"), web::get().to(items::show))
        .route(&format!("{C}/items/{{id}}"), web::post().to(items::edit))
        .route(
            &format!("{C}/items/{{id}}/delete"),
            web::post().to(items::delete),
        )
        .route(&format!("{C}/query"), web::get().to(query::query))
        .route(
            &format!("{C}/partitions"),
            web::get().to(partitions::container),
        )
        .route(&format!("{C}/scripts"), web::get().to(scripts::list))
        .route(&format!("{C}/scripts/{{id}}"), web::post().to(scripts::run));
}

/// Where a container's pages live.
/// The database and container names in a container URL (`/dbs/{db}/colls/{coll}`), for the
/// breadcrumbs.
pub fn names_of(base: &str) -> (String, String) {
    let mut parts = base.trim_start_matches('/').split('/');
    let (_, db, _, coll) = (parts.next(), parts.next(), parts.next(), parts.next());
    (
        url_unescape(db.unwrap_or_default()),
        url_unescape(coll.unwrap_or_default()),
    )
}

/// Decodes `%XX` escapes (as `url_escape` writes them).
fn url_unescape(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = || std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok();
        match (bytes[i], hex().and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub fn container_url(db: &str, coll: &str) -> String {
    format!("/dbs/{}/colls/{}", url_escape(db), url_escape(coll))
}

/// Refuses a write unless the explorer was started with writes allowed.
fn require_writes(x: &Explorer) -> Result<(), ExplorerError> {
    if x.options.writes {
        Ok(())
    } else {
        Err(ExplorerError::ReadOnly)
    }
}
