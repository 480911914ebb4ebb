//! WebStore through real HTTP on a real engine in a temporary directory: one module per area,
//! one test (at least) per access pattern, its data, its routing and its RU header.

/// This binary runs the suite on the embedded engine (`api_remote` on the gateway).
const REMOTE: bool = false;

mod accounts;
mod admin;
mod checkout;
mod helpers;
mod hostile;
mod metering;
mod security;
mod shop;
mod startup;
