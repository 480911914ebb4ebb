//! The blog through real HTTP on a real engine: one test (at least) per request of `004_*`.

mod helpers;
mod hostile;
mod models;
mod posts;
mod throughput;
mod users;
