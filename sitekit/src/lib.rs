//! The web plumbing both sites share, written once, in five parts:
//! - [`http`]: the server and what every request passes through (middleware, error pages, limits
//!   on slow clients, the app's gate, the client's address behind a proxy, assets, metrics);
//! - [`accounts`]: argon2id sign-in with throttling, revocable sessions, CSRF tokens on every
//!   form, device cookies, names and unique claims;
//! - [`pages`]: the layout with its RU footer, form checks, paging by continuation, formatting;
//! - [`data`]: the app's containers in a handler, reached through `cosmos`, and the RU of every
//!   call on the request's ledger;
//! - [`background`]: change-feed workers, rename propagation and progress of long work.
//!
//! An app brings its containers, access patterns, routes and templates.

pub mod accounts;
pub mod background;
pub mod data;
pub mod http;
pub mod pages;
#[cfg(feature = "testing")]
pub mod testing;

/// For this crate's unit tests: a database on a real embedded engine in a temporary directory.
#[cfg(test)]
pub(crate) async fn test_database() -> (cosmos::Database, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine::Engine::open(dir.path(), Default::default()).unwrap();
    let db = cosmos::Account::embedded(engine)
        .create_database_if_not_exists("d")
        .await
        .unwrap();
    (db, dir)
}

pub use data::db::Db;
pub use data::ru::{EngineCall, RequestCharge, Routing};
pub use http::error::WebError;
pub use pages::layout::{Ctx, Page, Site};
