//! The apps' one client for their data, with two backends behind the same calls:
//!
//! - **embedded**: the engine in this process, on LMDB files (the demo, the tests, a laptop);
//! - **remote**: any Cosmos DB for NoSQL endpoint — Azure Cosmos DB, the emulator, or this
//!   repository's `gateway` — through the official Rust SDK `azure_data_cosmos`, plus signed
//!   REST requests for what the SDK has no call for (`remote/rest.rs`).
//!
//! An access pattern calls [`Container`] the same way on both, and every call records its
//! charge and routing on the request's ledger ([`ledger`]), read from the engine's metrics
//! embedded and from `x-ms-request-charge` remote, so a page's footer and its
//! `x-ms-request-charge` header come out of the client itself.
//!
//! ```no_run
//! # async fn demo() -> cosmos::Result<()> {
//! use cosmos::{Account, ContainerProperties, Labelled};
//! let account = Account::from_env_or_embedded("data")?; // COSMOS_ENDPOINT/COSMOS_KEY, else ./data
//! let db = account.create_database_if_not_exists("blog").await?;
//! let posts = db.create_container_if_not_exists(ContainerProperties::new("posts", "/postId")).await?;
//! let post = posts
//!     .read_item::<serde_json::Value>("p1", "p1", None)
//!     .labelled("[Q2] read post")
//!     .await?;
//! # Ok(()) }
//! ```

mod account;
mod batch;
mod container;
mod database;
pub mod ledger;
mod processor;
mod remote;
mod settings;

pub use account::Account;
pub use batch::TransactionalBatch;
pub use container::Container;
pub use database::Database;
pub use ledger::{EngineCall, Labelled, RequestCharge, Routing};
pub use processor::{
    dead_letter, ChangeFeedProcessor, ChangeFeedProcessorBuilder, StartFrom, LAG_ESTIMATE,
};
pub use settings::ConnectionSettings;

pub use engine::{
    BatchOperationResult, BatchResponse, ContainerProperties, Diagnostics, Error, Failed,
    FeedResponse, ItemOptions, ItemResponse, PartitionKey, PatchOperation, QueryOptions, Result,
    StoredProcedureResponse, TriggerOperation, NO_PARAMS,
};
