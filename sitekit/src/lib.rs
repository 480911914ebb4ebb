//! The web plumbing both sites share, written once: RU accounting per request ([`ru`]), the
//! app's containers in a handler, reached through `cosmos` ([`db`]), signed cookie sessions
//! ([`session`]), CSRF tokens on every form ([`csrf`]), argon2id sign-in with throttling
//! ([`auth`], [`signin`], [`throttle`], [`device`]), what access patterns return ([`access`]),
//! form checks ([`form`]), the page layout ([`layout`]), error pages ([`error`]), static assets
//! ([`assets`]), request metrics ([`telemetry`]), change-feed workers and their lag ([`workers`])
//! and the server ([`server`]). An app brings its containers, access patterns, routes and
//! templates.

pub mod access;
pub mod assets;
pub mod auth;
pub mod ceiling;
pub mod claim;
pub mod csrf;
pub mod db;
pub mod dead_letter;
pub mod device;
pub mod error;
pub mod form;
pub mod format;
pub mod gate;
pub mod guard;
pub mod layout;
pub mod names;
pub mod next;
pub mod paging;
pub mod progress;
pub mod propagation;
pub mod proxy;
pub mod ru;
pub mod server;
pub mod session;
pub mod sessions;
pub mod signin;
pub mod telemetry;
#[cfg(feature = "testing")]
pub mod testing;
pub mod throttle;
pub mod time;
pub mod workers;

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

pub use db::Db;
pub use error::WebError;
pub use layout::{Ctx, Page, Site};
pub use ru::{EngineCall, RequestCharge, Routing};
