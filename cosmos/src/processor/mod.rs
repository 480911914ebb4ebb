//! Change-feed processors on either backend, built the same way:
//!
//! ```ignore
//! let p = posts.change_feed_processor("copyPosts")
//!     .lease_container(leases.clone())
//!     .start_from(StartFrom::Now)
//!     .handler(|changes| async move { copy(changes).await })
//!     .build()?;
//! p.start().await?;
//! ```
//!
//! Embedded, it is the engine's processor (woken by each commit, one owner of every lease).
//! Remote, it is `remote.rs`: the same lease design over the REST change feed, with lease
//! ownership that expires and is renewed, so several app processes on one account share the
//! leases and one takes over what another left when it died.
//!
//! On both, a batch the handler keeps failing on is retried a bounded number of times, then its
//! failing changes are set aside as dead letters and the processor goes on ([`dead_letter`]).

pub mod dead_letter;
mod remote;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::container::Container;
use crate::ledger::Labelled;
use crate::{Error, Result};

/// How long a lease that read no changes waits before reading again: the SDKs' default feed
/// poll delay, 5 s (.NET `ChangeFeedProcessorOptions.DefaultFeedPollDelay`,
/// Microsoft.Azure.Cosmos/src/ChangeFeedProcessor/Configuration/ChangeFeedProcessorOptions.cs;
/// Java's `ChangeFeedProcessorOptions` likewise). Idle, a processor costs one empty change-feed
/// read per lease (per physical partition) per delay — what an idle app pays on Azure too.
pub const FEED_POLL_DELAY: Duration = Duration::from_secs(5);

/// How long a remote lease stays its owner's without renewal: the .NET and Java processors'
/// default `LeaseExpirationInterval`, 60 s (`ChangeFeedLeaseOptions.DefaultExpirationInterval`).
/// A process that dies leaves its leases to the others after at most this long.
pub const LEASE_EXPIRY: Duration = Duration::from_secs(60);

/// The label of the calls a remote processor's lag estimate makes on a page's ledger (the
/// leases' query and the change-feed reads): the cost of showing "propagation done".
pub const LAG_ESTIMATE: &str = "[lag] change-feed estimate";

pub(crate) type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;
pub(crate) type Handler = Arc<dyn Fn(Vec<Value>) -> BoxFuture<Result<(), String>> + Send + Sync>;
pub(crate) type ErrorCallback = Arc<dyn Fn(&str) + Send + Sync>;

/// Where a processor starts reading the first time (later, its checkpoints rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartFrom {
    Beginning,
    Now,
}

pub struct ChangeFeedProcessorBuilder {
    name: String,
    source: Container,
    leases: Option<Container>,
    handler: Option<dead_letter::TypedHandler>,
    on_error: Option<ErrorCallback>,
    max_attempts: Option<u32>,
    start: StartFrom,
    poll_interval: Duration,
    lease_expiry: Duration,
}

impl Container {
    /// A processor named `name` over this container's change feed.
    pub fn change_feed_processor(&self, name: &str) -> ChangeFeedProcessorBuilder {
        ChangeFeedProcessorBuilder {
            name: name.to_owned(),
            source: self.clone(),
            leases: None,
            handler: None,
            on_error: None,
            max_attempts: Some(dead_letter::DEFAULT_MAX_ATTEMPTS),
            start: StartFrom::Beginning,
            poll_interval: FEED_POLL_DELAY,
            lease_expiry: LEASE_EXPIRY,
        }
    }
}

impl ChangeFeedProcessorBuilder {
    /// [`FEED_POLL_DELAY`], for those who show or measure it.
    pub const FEED_POLL_DELAY: Duration = FEED_POLL_DELAY;

    /// Where the leases live: a container whose partition key path is `/processor`.
    pub fn lease_container(mut self, leases: Container) -> Self {
        self.leases = Some(leases);
        self
    }

    /// What handles each batch of changed items (retried with back-off; see
    /// [`dead_letter_after`](Self::dead_letter_after)). An [`Error`] it returns that is the
    /// account's passing state (429, 408, 503, 507) is retried without counting.
    pub fn handler<F, Fut, E>(mut self, f: F) -> Self
    where
        F: Fn(Vec<Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = std::result::Result<(), E>> + Send + 'static,
        E: std::fmt::Display + 'static,
    {
        let f = Arc::new(f);
        self.handler = Some(Arc::new(move |batch| {
            let fut = f(batch);
            Box::pin(async move { fut.await.map_err(dead_letter::Failure::of) })
        }));
        self
    }

    /// How many failed attempts of one batch before the changes that fail alone are set aside
    /// in the lease container (default [`dead_letter::DEFAULT_MAX_ATTEMPTS`]); at least 1.
    pub fn dead_letter_after(mut self, attempts: u32) -> Self {
        self.max_attempts = Some(attempts.max(1));
        self
    }

    /// Retries a failing batch until it succeeds, however long (nothing is ever set aside).
    pub fn retry_forever(mut self) -> Self {
        self.max_attempts = None;
        self
    }

    /// Called with each failed attempt's error.
    pub fn on_error(mut self, f: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.on_error = Some(Arc::new(f));
        self
    }

    pub fn start_from(mut self, start: StartFrom) -> Self {
        self.start = start;
        self
    }

    /// How long an idle lease waits before reading again (default [`FEED_POLL_DELAY`]). The
    /// embedded engine also wakes a lease at once on a commit to its partitions, so this only
    /// paces the reads that find nothing; remote, it is the delay before every idle read.
    pub fn poll_interval(mut self, d: Duration) -> Self {
        self.poll_interval = d;
        self
    }

    /// Remote: how long a lease stays its owner's without renewal (default [`LEASE_EXPIRY`]);
    /// another process takes it over after that. Leases are renewed every 17/60 of it and
    /// listed and balanced every 13/60 of it: the SDKs' 17 s and 13 s of a 60 s expiry.
    pub fn lease_expiry(mut self, d: Duration) -> Self {
        self.lease_expiry = d;
        self
    }

    pub fn build(self) -> Result<ChangeFeedProcessor> {
        let leases = self
            .leases
            .ok_or_else(|| Error::bad("leaseContainer", "a processor needs a lease container"))?;
        let handler = self
            .handler
            .ok_or_else(|| Error::bad("handler", "a processor needs a handler"))?;
        let handler = dead_letter::bounded(
            self.name.clone(),
            leases.clone(),
            handler,
            self.max_attempts,
        );
        match (self.source.embedded_client(), leases.embedded_client()) {
            (Some(source), Some(lease_client)) => {
                let on_error = self.on_error.clone();
                let engine_handler = handler.clone();
                let p = source
                    .change_feed_processor(&self.name)
                    .lease_container(lease_client.clone())
                    .start_from(match self.start {
                        StartFrom::Beginning => engine::ChangeFeedStart::Beginning,
                        StartFrom::Now => engine::ChangeFeedStart::Now,
                    })
                    .poll_interval(self.poll_interval)
                    .handler(move |batch| engine_handler(batch))
                    .on_error(move |f| {
                        if let Some(cb) = &on_error {
                            cb(&f.error)
                        }
                    })
                    .build()?;
                Ok(ChangeFeedProcessor(Backend::Embedded(p)))
            }
            (None, None) => Ok(ChangeFeedProcessor(Backend::Remote(
                remote::Processor::new(remote::Settings {
                    name: self.name,
                    source: self.source,
                    leases,
                    handler,
                    on_error: self.on_error,
                    start: self.start,
                    poll_interval: self.poll_interval,
                    lease_expiry: self.lease_expiry,
                }),
            ))),
            _ => Err(Error::bad(
                "leaseContainer",
                "the source and lease containers must be on the same account",
            )),
        }
    }
}

/// A running (or stopped) processor. Cheap to clone.
#[derive(Clone)]
pub struct ChangeFeedProcessor(Backend);

#[derive(Clone)]
enum Backend {
    Embedded(engine::ChangeFeedProcessor),
    Remote(remote::Processor),
}

impl ChangeFeedProcessor {
    /// Acquires leases (creating them on first run) and starts delivering changes.
    pub async fn start(&self) -> Result<()> {
        match &self.0 {
            Backend::Embedded(p) => p.start().await,
            Backend::Remote(p) => p.start().await,
        }
    }

    /// Stops after the current batches are checkpointed (remote: and gives its leases back).
    pub async fn stop(&self) {
        match &self.0 {
            Backend::Embedded(p) => p.stop().await,
            Backend::Remote(p) => p.stop().await,
        }
    }

    /// Changes committed but not yet handled (remote: at most one page per lease is counted,
    /// enough to say whether propagation is done). Embedded, the engine knows it in memory
    /// (free); remote, it is a query of the leases and a change-feed read per lease, recorded
    /// on the page's ledger under [`LAG_ESTIMATE`].
    pub async fn pending(&self) -> Result<u64> {
        match &self.0 {
            Backend::Embedded(p) => Ok(p.estimate_lag().await?.iter().map(|l| l.pending).sum()),
            Backend::Remote(p) => p.pending().labelled(LAG_ESTIMATE).await,
        }
    }

    /// Whether changes made before `since` are still pending: [`Self::pending`] embedded; remote,
    /// free for the leases this process has read to their end since then (a page asking "has my
    /// rename been carried?" pays a change-feed read only for another process's leases).
    pub async fn pending_since(&self, since: std::time::SystemTime) -> Result<u64> {
        match &self.0 {
            Backend::Embedded(_) => self.pending().await,
            Backend::Remote(p) => {
                let ms = since
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_millis() as u64);
                p.pending_since(Some(ms)).labelled(LAG_ESTIMATE).await
            }
        }
    }

    /// Changes delivered to the handler successfully (counting redeliveries).
    pub fn delivered(&self) -> u64 {
        match &self.0 {
            Backend::Embedded(p) => p.delivered(),
            Backend::Remote(p) => p.delivered(),
        }
    }

    /// Failed handler attempts, and the last error.
    pub fn failures(&self) -> (u64, Option<String>) {
        match &self.0 {
            Backend::Embedded(p) => p.failures(),
            Backend::Remote(p) => p.failures(),
        }
    }
}
