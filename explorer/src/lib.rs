//! The Data Explorer: the engine as the Cosmos DB portal's Data Explorer shows it, served beside
//! the demo sites. Databases and containers, items per logical partition (open, edit with an
//! etag check, delete), a query editor with the portal's "Query stats", physical partitions drawn
//! as SVG, change-feed processors, stored procedures and triggers, and `/metrics` for Prometheus.
//!
//! Read-only unless started with writes allowed ([`ExplorerOptions::writes`]). Answers only to
//! loopback host names (and those allowed), and only with its token ([`guard`]).
//!
//! - [`inspect`]: what the pages read from the engine and do to it, one file per concept; every
//!   engine call is recorded on the request's RU ledger (the footer).
//! - `routes/`: one thin handler per page or action.
//! - [`svg`]: the partition charts, drawn on the server.
//! - [`prometheus`]: the `/metrics` exposition.
//! - [`guard`]: the Host check and the token.

pub mod error;
pub mod guard;
pub mod inspect;
pub mod prometheus;
mod routes;
mod startup;
pub mod svg;

pub use error::ExplorerError;
pub use startup::{Explorer, ExplorerOptions, SITE};
