//! The change-feed processor: delivers a container's changes to a handler, at least once and in
//! order per logical partition, with one lease per physical partition range stored in a lease
//! container and a checkpoint written only after the handler succeeded.
//!
//! - **First run** starts from the beginning (by default), so a new denormalized view bootstraps
//!   itself; later runs resume from the leases' checkpoints, after a restart or a crash.
//! - **Wake-up on commit**: workers wait on the container's commit signal, not only a poll
//!   interval, so propagation lag is a few milliseconds.
//! - **Failures**: a failing batch is retried with exponential backoff (never skipped) and
//!   reported to the `on_error` callback and the processor's counters.
//! - **Splits**: when a lease's range now spans two partitions, the lease is replaced by one per
//!   child in one transactional batch (all leases of a processor share a logical partition).
//! - **Leases** are documents `{id, processor, range, continuation}` in a container whose partition
//!   key path is `/processor`. One processor instance owns all leases of its name (the engine is
//!   embedded: there is no fleet of hosts to balance across).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::read::{ChangeFeedOptions, ChangeFeedStart};
use super::token::{ChangeFeedMode, FeedRange, FeedToken};
use crate::client::batch::TransactionalBatch;
use crate::client::container::ContainerClient;
use crate::client::options::ItemOptions;
use crate::error::{Error, Result};

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;
type Handler = Arc<dyn Fn(Vec<Value>) -> BoxFuture<Result<(), String>> + Send + Sync>;
type ErrorCallback = Arc<dyn Fn(&HandlerFailure) + Send + Sync>;

/// A batch the handler failed on (it is retried until it succeeds or the processor stops).
#[derive(Debug, Clone)]
pub struct HandlerFailure {
    pub lease: String,
    pub attempt: u32,
    pub error: String,
    pub batch_size: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Lease {
    id: String,
    processor: String,
    range: FeedRange,
    continuation: String,
}

/// How far behind one lease is.
#[derive(Debug, Clone, Serialize)]
pub struct LeaseLag {
    pub lease: String,
    pub range: FeedRange,
    /// Changes committed but not yet handled.
    pub pending: u64,
}

pub struct ChangeFeedProcessorBuilder {
    name: String,
    source: ContainerClient,
    leases: Option<ContainerClient>,
    handler: Option<Handler>,
    on_error: Option<ErrorCallback>,
    start: ChangeFeedStart,
    mode: ChangeFeedMode,
    max_items: usize,
    poll_interval: Duration,
    max_backoff: Duration,
}

impl ContainerClient {
    /// A processor named `name` over this container's change feed.
    pub fn change_feed_processor(&self, name: &str) -> ChangeFeedProcessorBuilder {
        ChangeFeedProcessorBuilder {
            name: name.to_owned(),
            source: self.clone(),
            leases: None,
            handler: None,
            on_error: None,
            start: ChangeFeedStart::Beginning,
            mode: ChangeFeedMode::LatestVersion,
            max_items: 100,
            poll_interval: Duration::from_secs(5),
            max_backoff: Duration::from_secs(5),
        }
    }
}

impl ChangeFeedProcessorBuilder {
    /// Where leases and checkpoints live (partition key path `/processor`).
    pub fn lease_container(mut self, leases: ContainerClient) -> Self {
        self.leases = Some(leases);
        self
    }

    /// The handler: an async function of a batch of changes. An `Err` retries the same batch.
    pub fn handler<F, Fut, E>(mut self, f: F) -> Self
    where
        F: Fn(Vec<Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = std::result::Result<(), E>> + Send + 'static,
        E: std::fmt::Display,
    {
        let f = Arc::new(f);
        self.handler = Some(Arc::new(move |batch| {
            let fut = f(batch);
            Box::pin(async move { fut.await.map_err(|e| e.to_string()) })
        }));
        self
    }

    /// Called for every failed attempt of a batch.
    pub fn on_error(mut self, f: impl Fn(&HandlerFailure) + Send + Sync + 'static) -> Self {
        self.on_error = Some(Arc::new(f));
        self
    }

    /// Where a first run starts (default: the beginning). Ignored once leases exist.
    pub fn start_from(mut self, start: ChangeFeedStart) -> Self {
        self.start = start;
        self
    }

    pub fn mode(mut self, mode: ChangeFeedMode) -> Self {
        self.mode = mode;
        self
    }

    pub fn max_items_per_batch(mut self, n: usize) -> Self {
        self.max_items = n.max(1);
        self
    }

    /// Fallback poll interval when no commit wakes the workers (default 5 s, the SDKs' feed poll
    /// delay).
    pub fn poll_interval(mut self, d: Duration) -> Self {
        self.poll_interval = d;
        self
    }

    /// Longest wait between retries of a failing batch (default 5 s).
    pub fn max_backoff(mut self, d: Duration) -> Self {
        self.max_backoff = d;
        self
    }

    pub fn build(self) -> Result<ChangeFeedProcessor> {
        let leases = self
            .leases
            .ok_or_else(|| Error::bad("leaseContainer", "a processor needs a lease container"))?;
        let handler = self
            .handler
            .ok_or_else(|| Error::bad("handler", "a processor needs a handler"))?;
        let lease_def = leases.read_container()?;
        if lease_def.partition_key.paths != ["/processor"] {
            return Err(Error::bad(
                "leaseContainer",
                format!(
                    "the lease container's partition key must be /processor, not {}",
                    lease_def.partition_key.paths[0]
                ),
            ));
        }
        let rid = self.source.read_container()?.rid;
        let (stop, _) = watch::channel(false);
        let processor = ChangeFeedProcessor {
            inner: Arc::new(Inner {
                key: format!("{}.{rid}", self.name),
                name: self.name,
                source: self.source,
                leases,
                handler,
                on_error: self.on_error,
                start: self.start,
                mode: self.mode,
                max_items: self.max_items,
                poll_interval: self.poll_interval,
                max_backoff: self.max_backoff,
                stop,
                tasks: Mutex::new(Vec::new()),
                delivered: AtomicU64::new(0),
                failures: AtomicU64::new(0),
                last_error: Mutex::new(None),
            }),
        };
        processor
            .inner
            .source
            .engine
            .inner
            .processors
            .register(&processor.inner);
        Ok(processor)
    }
}

pub(super) struct Inner {
    pub(super) name: String,
    /// `{name}.{container rid}`: the leases' partition key.
    pub(super) key: String,
    pub(super) source: ContainerClient,
    pub(super) leases: ContainerClient,
    handler: Handler,
    on_error: Option<ErrorCallback>,
    start: ChangeFeedStart,
    mode: ChangeFeedMode,
    max_items: usize,
    poll_interval: Duration,
    max_backoff: Duration,
    pub(super) stop: watch::Sender<bool>,
    pub(super) tasks: Mutex<Vec<JoinHandle<()>>>,
    pub(super) delivered: AtomicU64,
    pub(super) failures: AtomicU64,
    pub(super) last_error: Mutex<Option<String>>,
}

/// A running (or stopped) processor.
#[derive(Clone)]
pub struct ChangeFeedProcessor {
    pub(super) inner: Arc<Inner>,
}

impl ChangeFeedProcessor {
    /// Acquires the leases (creating them on first run) and starts one worker per lease.
    pub async fn start(&self) -> Result<()> {
        let mut leases = self.read_leases().await?;
        if leases.is_empty() {
            let mut batch = TransactionalBatch::new(self.inner.key.as_str());
            for range in self.inner.source.feed_ranges()? {
                let options = ChangeFeedOptions {
                    mode: self.inner.mode,
                    start: self.inner.start.clone(),
                    range: Some(range),
                    ..Default::default()
                };
                let lease = Lease {
                    id: lease_id(&self.inner.key, &range),
                    processor: self.inner.key.clone(),
                    range,
                    continuation: self.inner.source.change_feed_token(&options)?,
                };
                batch = batch.upsert_item(&lease);
            }
            let r = self.inner.leases.execute_batch(batch).await?;
            if let Some(e) = r.error_message {
                return Err(Error::Unavailable(format!("creating leases failed: {e}")));
            }
            leases = self.read_leases().await?;
        }
        let _ = self.inner.stop.send(false);
        for (lease, etag) in leases {
            spawn_worker(self.inner.clone(), lease, etag);
        }
        Ok(())
    }

    /// Stops every worker after its current batch; checkpoints already written stay.
    pub async fn stop(&self) {
        let _ = self.inner.stop.send(true);
        loop {
            let tasks: Vec<_> = std::mem::take(&mut *self.inner.tasks.lock());
            if tasks.is_empty() {
                break;
            }
            for t in tasks {
                let _ = t.await;
            }
        }
    }

    /// Changes each lease has yet to deliver.
    pub async fn estimate_lag(&self) -> Result<Vec<LeaseLag>> {
        let mut out = Vec::new();
        for (lease, _) in self.read_leases().await? {
            out.push(LeaseLag {
                pending: self
                    .inner
                    .source
                    .change_feed_pending(&lease.continuation)
                    .await?,
                lease: lease.id,
                range: lease.range,
            });
        }
        Ok(out)
    }

    /// Changes delivered to the handler successfully (counting redeliveries).
    pub fn delivered(&self) -> u64 {
        self.inner.delivered.load(Ordering::Relaxed)
    }

    /// Failed handler attempts, and the last error.
    pub fn failures(&self) -> (u64, Option<String>) {
        (
            self.inner.failures.load(Ordering::Relaxed),
            self.inner.last_error.lock().clone(),
        )
    }

    async fn read_leases(&self) -> Result<Vec<(Lease, String)>> {
        read_leases(&self.inner).await
    }
}

async fn read_leases(inner: &Inner) -> Result<Vec<(Lease, String)>> {
    let docs = inner
        .leases
        .read_all_items_in_partition::<Value>(inner.key.as_str())
        .await?
        .items;
    docs.into_iter()
        .map(|d| {
            let etag = d
                .get("_etag")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let lease: Lease =
                serde_json::from_value(d).map_err(|e| Error::Corrupt(format!("lease: {e}")))?;
            Ok((lease, etag))
        })
        .collect()
}

fn lease_id(key: &str, range: &FeedRange) -> String {
    format!("{key}.{:016x}", range.start)
}

fn spawn_worker(inner: Arc<Inner>, lease: Lease, etag: String) {
    let handle = tokio::spawn(worker(inner.clone(), lease, etag));
    inner.tasks.lock().push(handle);
}

async fn worker(inner: Arc<Inner>, mut lease: Lease, mut etag: String) {
    let mut stop = inner.stop.subscribe();
    let mut commits = match inner.source.shared() {
        Ok(s) => s.commits.subscribe(),
        Err(_) => return,
    };
    loop {
        if *stop.borrow() {
            return;
        }
        commits.mark_unchanged();
        let options = ChangeFeedOptions {
            mode: inner.mode,
            start: ChangeFeedStart::Continuation(lease.continuation.clone()),
            max_item_count: inner.max_items,
            ..Default::default()
        };
        let page = match inner.source.change_feed(&options).await {
            Ok(p) => p,
            Err(e) => {
                let wait = e.retry_after().unwrap_or(inner.poll_interval);
                *inner.last_error.lock() = Some(e.to_string());
                if sleep_or_stop(&mut stop, wait).await {
                    return;
                }
                continue;
            }
        };
        let had_items = !page.items.is_empty();
        if had_items {
            let n = page.items.len();
            let mut attempt = 0u32;
            loop {
                match (inner.handler)(page.items.clone()).await {
                    Ok(()) => break,
                    Err(error) => {
                        attempt += 1;
                        inner.failures.fetch_add(1, Ordering::Relaxed);
                        *inner.last_error.lock() = Some(error.clone());
                        let failure = HandlerFailure {
                            lease: lease.id.clone(),
                            attempt,
                            error,
                            batch_size: n,
                        };
                        match &inner.on_error {
                            Some(cb) => cb(&failure),
                            None => eprintln!("change feed processor {}: {failure:?}", inner.key),
                        }
                        let backoff =
                            Duration::from_millis(50u64.saturating_mul(1 << attempt.min(10)));
                        if sleep_or_stop(&mut stop, backoff.min(inner.max_backoff)).await {
                            return;
                        }
                    }
                }
            }
            inner.delivered.fetch_add(n as u64, Ordering::Relaxed);
        }
        // Checkpoint only now that the handler succeeded.
        if page.continuation != lease.continuation {
            lease.continuation = page.continuation;
            match checkpoint(&inner, &mut lease, &mut etag).await {
                Ok(Some(children)) => {
                    for (child, child_etag) in children {
                        spawn_worker(inner.clone(), child, child_etag);
                    }
                    return;
                }
                Ok(None) => {}
                Err(e) => {
                    *inner.last_error.lock() = Some(format!("checkpoint of {}: {e}", lease.id));
                    if sleep_or_stop(&mut stop, inner.poll_interval).await {
                        return;
                    }
                    continue;
                }
            }
        }
        if !had_items {
            // Wait for a commit to this lease's partitions, or the poll interval, or stop.
            let poll = tokio::time::sleep(inner.poll_interval);
            tokio::pin!(poll);
            loop {
                tokio::select! {
                    woke = commits.changed() => {
                        if woke.is_err()
                            || inner.source.change_feed_may_have_changes(&lease.continuation)
                        {
                            break;
                        }
                    }
                    _ = &mut poll => break,
                    _ = stop.changed() => break,
                }
            }
        }
    }
}

/// Writes the lease's continuation. When its range now spans several partitions, replaces it by
/// one lease per child (atomically) and returns them.
async fn checkpoint(
    inner: &Inner,
    lease: &mut Lease,
    etag: &mut String,
) -> Result<Option<Vec<(Lease, String)>>> {
    let rid = inner.source.read_container()?.rid;
    let token = FeedToken::decode(&lease.continuation, rid)?;
    if token.cursors.len() > 1 && token.epk.is_none() {
        let mut batch = TransactionalBatch::new(inner.key.as_str());
        let mut children = Vec::new();
        for c in &token.cursors {
            let child_token = FeedToken {
                cursors: vec![c.clone()],
                ..token.clone()
            };
            let child = Lease {
                id: lease_id(&inner.key, &c.range),
                processor: inner.key.clone(),
                range: c.range,
                continuation: child_token.encode(),
            };
            batch = batch.upsert_item(&child);
            children.push(child);
        }
        if children.iter().all(|c| c.id != lease.id) {
            batch = batch.delete_item(&lease.id, Some(etag.clone()));
        }
        let r = inner.leases.execute_batch(batch).await?;
        if let Some(e) = r.error_message {
            return Err(Error::Unavailable(e));
        }
        let fresh = read_leases(inner).await?;
        let ids: Vec<_> = children.iter().map(|c| c.id.clone()).collect();
        return Ok(Some(
            fresh
                .into_iter()
                .filter(|(l, _)| ids.contains(&l.id))
                .collect(),
        ));
    }
    let r = inner
        .leases
        .replace_item(
            &*lease,
            &lease.id.clone(),
            None,
            Some(ItemOptions::if_match(etag.clone())),
        )
        .await?;
    *etag = r.etag.unwrap_or_default();
    Ok(None)
}

/// Sleeps for `d`; true when the processor was stopped meanwhile.
async fn sleep_or_stop(stop: &mut watch::Receiver<bool>, d: Duration) -> bool {
    tokio::select! {
        _ = tokio::time::sleep(d) => *stop.borrow(),
        _ = stop.changed() => true,
    }
}
