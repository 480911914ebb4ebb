//! An embedded document engine with the Azure Cosmos DB model, on LMDB.
//!
//! ```no_run
//! # async fn demo() -> engine::Result<()> {
//! use engine::{ContainerProperties, Engine, EngineOptions};
//! use serde_json::json;
//!
//! let engine = Engine::open("data", EngineOptions::default())?;
//! let db = engine.create_database_if_not_exists("blog").await?;
//! let posts = db.create_container_if_not_exists(ContainerProperties::new("posts", "/postId")).await?;
//! let created = posts.create_item(&json!({"id": "p1", "postId": "p1", "title": "Hello"}), None, None).await?;
//! println!("{} RU", created.request_charge);
//! let read = posts.read_item::<serde_json::Value>("p1", "p1", None).await?;
//! # Ok(()) }
//! ```
//!
//! See `DESIGN.md` for how it is built and `RU.md` for what requests cost.

#![warn(unnameable_types)]

mod blocking;
mod catalog;
mod changefeed;
mod check;
mod client;
mod error;
mod geojson;
mod index;
mod item;
mod partition;
pub mod rid;
mod ru;
mod scripts;
mod sql;
mod storage;
mod throughput;
mod ttl;
mod unique;
mod users;
mod writer;

pub use catalog::{ComputedProperty, ContainerDef, DatabaseDef};
pub use changefeed::{
    ChangeFeedMode, ChangeFeedOptions, ChangeFeedPage, ChangeFeedProcessor,
    ChangeFeedProcessorBuilder, ChangeFeedStart, Checkpoint, FeedRange, HandlerFailure, LeaseLag,
    LeaseStatus, ProcessorStatus,
};
pub use check::{failed as check_failed, ContainerReport};
pub use client::batch::{BatchOperationResult, BatchResponse, TransactionalBatch};
pub use client::charged::ChargedContainer;
pub use client::container::ContainerClient;
pub use client::database::DatabaseClient;
pub use client::engine::Engine;
pub use client::load::PhysicalPartitionInfo;
pub use client::options::{EngineOptions, ItemOptions, RetryOptions};
pub use client::query::{check_query, query_values, QueryOptions, NO_PARAMS};
pub use client::read_feed::ItemCount;
pub use client::response::{Diagnostics, FeedResponse, ItemResponse};
pub use client::scripts::{ScriptsClient, StoredProcedureResponse};
pub use client::scripts_list::{ScriptList, TriggerInfo};
pub use client::stats::{ContainerStats, LogicalPartitionStats, PhysicalPartitionStats};
pub use client::users::UsersClient;
pub use error::{Error, Failed, Result};
pub use index::policy::{
    complete as complete_indexing_policy, CompositePath, IndexPath, IndexingPolicy, SpatialPath,
};
pub use item::{PatchOperation, SYSTEM_PROPERTIES};
pub use partition::cosmos::EpkRange;
pub use partition::{PartitionKey, PartitionKeyDefinition, Placement};
pub use scripts::js::JavaScript;
pub use scripts::{
    PreTriggerCall, ScriptBudget, ScriptContext, StoredProcedure, Trigger, TriggerOperation,
};
pub use sql::run::{PartitionCost, QueryMetrics};
pub use sql::QueryError;
pub use storage::StorageOptions;
pub use throughput::PartitionLoad;
pub use users::{PermissionDef, PermissionMode, PermissionSpec, UserDef};
pub use writer::ops::ContainerProperties;

/// The query language over in-memory documents, without storage, for the engine's conformance
/// tests and fuzz targets. Not part of the API: it may change with any release.
#[doc(hidden)]
pub mod testing {
    pub use crate::index::terms::set_term_counts;
    pub use crate::sql::exec::canonical;
    pub use crate::sql::functions::names as function_names;
    pub use crate::sql::{execute, parse, Params, Query};
    pub use crate::storage::pages::set_leaf_checks;
}
