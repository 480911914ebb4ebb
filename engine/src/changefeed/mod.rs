//! The change feed: every write of a container, in LSN order per physical partition, written in
//! the same LMDB transaction as the item (so no acknowledged write is ever missing from it), and
//! the change-feed processor that delivers it to handlers with leases and checkpoints.

pub(crate) mod audit;
pub mod processor;
pub mod read;
pub mod status;
pub mod token;

pub use processor::{ChangeFeedProcessor, ChangeFeedProcessorBuilder, HandlerFailure, LeaseLag};
pub use read::{ChangeFeedOptions, ChangeFeedPage, ChangeFeedStart};
pub use status::{Checkpoint, LeaseStatus, ProcessorStatus};
pub use token::{ChangeFeedMode, FeedRange};
