//! The public API, shaped like the Azure Cosmos DB SDKs: engine → database → container.

pub mod batch;
mod by_rid;
pub mod charged;
pub mod container;
pub mod database;
pub mod engine;
pub mod load;
pub mod options;
mod partition_delete;
pub mod query;
pub mod read_feed;
pub(crate) mod registry;
pub mod response;
mod rows;
pub mod scripts;
pub mod scripts_list;
pub mod stats;
pub mod users;
