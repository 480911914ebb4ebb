//! Partitioning: partition key values, their hashes and physical partition ranges (splitting one
//! is the writer's: `writer/split.rs`).

pub mod cosmos;
mod hash;
pub mod key;
pub mod map;
pub mod range;
pub mod v1;

pub(crate) use key::KeyScope;
pub use key::{Epk, PartitionKey, PartitionKeyDefinition, Placement};
pub use map::{PartitionMap, PhysicalPartition};
pub use range::FeedRange;
