//! What each change-feed processor is doing, for status pages: its leases with their checkpoints
//! and lag, what it delivered and its last error. Read-only; processors register themselves with
//! their engine when built, and are forgotten when the last handle to them is dropped.

use std::sync::atomic::Ordering;

use serde::Serialize;
use serde_json::Value;

use super::processor::{ChangeFeedProcessor, Inner};
use super::token::{FeedRange, FeedToken};
use crate::client::engine::Engine;
use crate::error::Result;

/// Where a lease has checkpointed: the last LSN handled in one physical partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Checkpoint {
    pub partition: u32,
    pub lsn: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct LeaseStatus {
    pub id: String,
    pub range: FeedRange,
    pub checkpoints: Vec<Checkpoint>,
    /// Changes committed in the range but not yet handled.
    pub pending: u64,
    /// When the lease was last written (Unix seconds): its last checkpoint.
    pub checkpointed_at: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ProcessorStatus {
    pub name: String,
    pub database: String,
    pub container: String,
    pub lease_database: String,
    pub lease_container: String,
    /// Workers are running (started and not stopped).
    pub running: bool,
    /// Changes handed to the handler successfully (redeliveries counted).
    pub delivered: u64,
    /// Failed handler attempts.
    pub failures: u64,
    pub last_error: Option<String>,
    pub leases: Vec<LeaseStatus>,
}

impl ProcessorStatus {
    /// Changes not yet handled, over all leases.
    pub fn lag(&self) -> u64 {
        self.leases.iter().map(|l| l.pending).sum()
    }
}

impl Engine {
    /// Every change-feed processor built on this engine and still held by its owner.
    pub fn change_feed_processors(&self) -> Vec<ChangeFeedProcessor> {
        self.inner
            .processors
            .live::<Inner>()
            .into_iter()
            .map(|inner| ChangeFeedProcessor { inner })
            .collect()
    }
}

impl ChangeFeedProcessor {
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The processor's leases (read from the lease container), checkpoints, lag and counters.
    pub async fn status(&self) -> Result<ProcessorStatus> {
        let inner = &self.inner;
        let source = inner.source.read_container()?;
        let lease_def = inner.leases.read_container()?;
        let docs = inner
            .leases
            .read_all_items_in_partition::<Value>(inner.key.as_str())
            .await?
            .items;
        let mut leases = Vec::new();
        for d in docs {
            let text = |k: &str| d.get(k).and_then(Value::as_str).unwrap_or_default();
            let continuation = text("continuation");
            let token = FeedToken::decode(continuation, source.rid)?;
            leases.push(LeaseStatus {
                id: text("id").to_owned(),
                range: serde_json::from_value(d.get("range").cloned().unwrap_or_default())
                    .unwrap_or(FeedRange::FULL),
                checkpoints: token
                    .cursors
                    .iter()
                    .map(|c| Checkpoint {
                        partition: c.partition,
                        lsn: c.lsn,
                    })
                    .collect(),
                pending: inner.source.change_feed_pending(continuation).await?,
                checkpointed_at: d.get("_ts").and_then(Value::as_u64),
            });
        }
        leases.sort_by_key(|l| l.range.start);
        let running = !*inner.stop.borrow() && inner.tasks.lock().iter().any(|t| !t.is_finished());
        Ok(ProcessorStatus {
            name: inner.name.clone(),
            database: source.database.clone(),
            container: source.id.clone(),
            lease_database: lease_def.database.clone(),
            lease_container: lease_def.id.clone(),
            running,
            delivered: inner.delivered.load(Ordering::Relaxed),
            failures: inner.failures.load(Ordering::Relaxed),
            last_error: inner.last_error.lock().clone(),
            leases,
        })
    }
}
