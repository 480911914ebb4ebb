//! The API suite again, on a remote account: the same tests against the gateway through the
//! official Rust SDK (the backend a fork uses on Azure Cosmos DB), with the same assertions —
//! RU footers included, since the gateway charges what the engine charges.

/// This binary runs the suite on the gateway (`api` on the embedded engine).
const REMOTE: bool = true;

#[path = "api/accounts.rs"]
mod accounts;
#[path = "api/admin.rs"]
mod admin;
#[path = "api/checkout.rs"]
mod checkout;
#[path = "api/helpers.rs"]
mod helpers;
#[path = "api/hostile.rs"]
mod hostile;
#[path = "api/security.rs"]
mod security;
#[path = "api/shop.rs"]
mod shop;
