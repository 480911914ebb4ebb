//! The blog through real HTTP on a real engine: one test (at least) per request of `004_*`.

/// This binary runs the suite on the embedded engine (`api_remote` on the gateway).
const REMOTE: bool = false;

mod backfill;
mod helpers;
mod hostile;
mod models;
mod posts;
mod throughput;
mod users;
