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
use sitekit::paging::url_escape;

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
