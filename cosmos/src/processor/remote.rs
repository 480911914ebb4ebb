//! The change-feed processor on a remote account, the engine's lease design over the REST
//! change feed: one lease per feed range in the lease container (`{id, processor, range,
//! continuation, owner, expires}`), a checkpoint written only after the handler succeeded, and
//! ownership that expires unless renewed. Every process running the same processor on the same
//! account reads the leases each poll, takes its fair share of those unowned or expired
//! (`ceil(leases / live owners)`) with an etag-conditioned replace, and gives back any above its
//! share; a process that holds none while another holds them all takes one of those (the .NET
//! SDK's lease stealing), so the holder sees it: two app processes split the work, and when one
//! dies the other takes its leases over once they expire. A checkpoint that finds the etag changed means the lease was taken over:
//! the batch is left to the new owner (delivery is at least once, as with Cosmos DB's own
//! processor). When a split divides a lease's range, its owner replaces it with one lease per
//! child range, each carrying the parent's continuation (the SDK reads a parent's token for a
//! child range as the child's share of it), so the children can go to different processes.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use azure_data_cosmos::feed::{ContinuationToken, FeedRange};
use azure_data_cosmos::options::{ChangeFeedOptions, ChangeFeedStartFrom, MaxItemCountHint};
use azure_data_cosmos::FeedScope;
use futures_util::TryStreamExt;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::watch;

use super::{ErrorCallback, Handler, StartFrom};
use crate::container::Container;
use crate::ledger::Routing;
use crate::remote::from_sdk;
use crate::{Error, ItemOptions, QueryOptions, Result, NO_PARAMS};

/// Most changes handed to the handler at once.
const MAX_BATCH: usize = 1000;
/// Most changes a lag estimate counts per lease ("propagating: 100 changes" means at least).
const ESTIMATE_MAX: usize = 100;

pub(crate) struct Settings {
    pub name: String,
    pub source: Container,
    pub leases: Container,
    pub handler: Handler,
    pub on_error: Option<ErrorCallback>,
    pub start: StartFrom,
    pub poll_interval: Duration,
    pub lease_expiry: Duration,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Lease {
    id: String,
    processor: String,
    /// The feed range, in the SDK's text form.
    range: String,
    /// Where the handled changes end (the SDK's token); `None` before the first batch.
    continuation: Option<String>,
    /// Who holds the lease ("" for nobody) and until when (Unix milliseconds).
    owner: String,
    expires: u64,
    #[serde(rename = "_etag", default, skip_serializing)]
    etag: String,
}

struct Inner {
    s: Settings,
    /// `{name}.{database}.{container}`: the leases' partition key.
    key: String,
    /// This process's name on the leases it holds.
    owner: String,
    stop: watch::Sender<bool>,
    task: Mutex<Option<tokio::task::JoinHandle<()>>>,
    delivered: AtomicU64,
    failures: AtomicU64,
    last_error: Mutex<Option<String>>,
    /// Leases whose last batch failed: consecutive failures, and no retry before (Unix ms).
    backoff: Mutex<std::collections::HashMap<String, (u32, u64)>>,
    /// The leases as this process last saw them (listed every acquire interval, its own
    /// writes kept as it makes them): what the lag estimate reads from, without a query.
    known: Mutex<Vec<Lease>>,
    /// Per lease this process holds: when its last read that reached the end of the feed began
    /// (Unix ms), once what it read was handled — "nothing pending as of then", for free.
    drained: Mutex<std::collections::HashMap<String, u64>>,
    /// When the leases are next listed and balanced (Unix ms): every [`acquire_interval`].
    next_balance: AtomicU64,
}

/// The .NET and Java processors' lease timings (`ChangeFeedLeaseOptions`:
/// `DefaultRenewInterval` 17 s, `DefaultAcquireInterval` 13 s, `DefaultExpirationInterval` 60 s;
/// Microsoft.Azure.Cosmos/src/ChangeFeedProcessor/Configuration/ChangeFeedLeaseOptions.cs) as
/// fractions of the expiry, so a test that shortens the expiry shortens them all alike. Idle,
/// a process then pays per lease one empty change-feed read per poll delay (5 s), one renewal
/// per 17 s, and one query of the leases per 13 s: what an idle SDK processor pays on Azure.
const RENEW_SIXTIETHS: u32 = 17;
const ACQUIRE_SIXTIETHS: u32 = 13;

/// How often a lease this process holds is renewed.
fn renew_interval(expiry: Duration) -> Duration {
    expiry * RENEW_SIXTIETHS / 60
}

/// How often the leases are listed, taken up to this process's share and split when their
/// range was divided.
fn acquire_interval(expiry: Duration) -> Duration {
    expiry * ACQUIRE_SIXTIETHS / 60
}

#[derive(Clone)]
pub(crate) struct Processor(Arc<Inner>);

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Processor {
    pub fn new(s: Settings) -> Self {
        let link = s
            .source
            .remote_client()
            .map(|c| c.link.replace("dbs/", "").replace("/colls/", "."))
            .unwrap_or_default();
        let key = format!("{}.{link}", s.name);
        // Unique per processor instance: two in one process are two owners too.
        static INSTANCES: AtomicU64 = AtomicU64::new(0);
        let owner = format!(
            "{}-{}-{:x}-{}",
            std::env::var("HOSTNAME").unwrap_or_else(|_| "host".into()),
            std::process::id(),
            now_ms(),
            INSTANCES.fetch_add(1, Ordering::Relaxed)
        );
        let (stop, _) = watch::channel(false);
        Processor(Arc::new(Inner {
            s,
            key,
            owner,
            stop,
            task: Mutex::new(None),
            delivered: AtomicU64::new(0),
            failures: AtomicU64::new(0),
            last_error: Mutex::new(None),
            backoff: Default::default(),
            known: Default::default(),
            drained: Default::default(),
            next_balance: AtomicU64::new(0),
        }))
    }

    /// Creates the leases on first run (one per feed range; a lease another process created
    /// first is kept) and starts the polling task.
    pub async fn start(&self) -> Result<()> {
        let inner = &self.0;
        if inner.list().await?.is_empty() {
            let sdk = &inner.source_client()?.sdk;
            let ranges = sdk.read_feed_ranges(None).await.map_err(from_sdk)?;
            for range in ranges {
                let range = range.to_string();
                let lease = Lease {
                    id: format!("{}.{}", inner.key, lease_suffix(&range)),
                    processor: inner.key.clone(),
                    range,
                    continuation: None,
                    owner: String::new(),
                    expires: 0,
                    etag: String::new(),
                };
                match inner.s.leases.create_item(&lease, None, None).await {
                    Ok(_) | Err(Error::Conflict { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        let _ = inner.stop.send(false);
        let me = self.0.clone();
        *inner.task.lock() = Some(tokio::spawn(async move { me.run().await }));
        Ok(())
    }

    pub async fn stop(&self) {
        let _ = self.0.stop.send(true);
        let task = self.0.task.lock().take();
        if let Some(t) = task {
            let _ = t.await;
        }
    }

    /// Changes after each lease's checkpoint, counted up to [`ESTIMATE_MAX`] per lease: one
    /// change-feed read per lease from the checkpoints this process last saw (at most a poll
    /// interval old), so a page that shows "propagation done" pays about 1 RU per lease.
    pub async fn pending(&self) -> Result<u64> {
        self.pending_since(None).await
    }

    /// [`Self::pending`] as far as changes made before `since` (Unix ms) go: a lease this
    /// process read to its end (and handled) after `since` has nothing of them left, with no
    /// read at all; one it holds but has not drained since counts as pending (its next poll, a
    /// moment away, will); only another process's leases are read. `None`: every lease is read.
    pub async fn pending_since(&self, since: Option<u64>) -> Result<u64> {
        let mut leases = self.0.known.lock().clone();
        if leases.is_empty() {
            leases = self.0.list().await?;
        }
        let mut n = 0;
        let now = now_ms();
        for lease in leases {
            let drained = self.0.drained.lock().get(&lease.id).copied();
            let mine = lease.owner == self.0.owner && lease.expires > now;
            match (since, drained) {
                (Some(since), Some(at)) if at >= since => {}
                (Some(_), _) if mine => n += 1,
                _ => n += self.0.read(&lease, ESTIMATE_MAX).await?.0.len() as u64,
            }
        }
        Ok(n)
    }

    pub fn delivered(&self) -> u64 {
        self.0.delivered.load(Ordering::Relaxed)
    }

    pub fn failures(&self) -> (u64, Option<String>) {
        (
            self.0.failures.load(Ordering::Relaxed),
            self.0.last_error.lock().clone(),
        )
    }
}

/// A lease id's suffix for a range: its bounds without the characters ids may not hold.
fn lease_suffix(range: &str) -> String {
    let s: String = range
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    if s.trim_matches('-').is_empty() {
        "all".into()
    } else {
        s
    }
}

impl Inner {
    fn source_client(&self) -> Result<&crate::remote::RemoteContainer> {
        self.s
            .source
            .remote_client()
            .ok_or_else(|| Error::bad_request("a remote processor needs a remote source"))
    }

    fn report(&self, e: &str) {
        self.failures.fetch_add(1, Ordering::Relaxed);
        *self.last_error.lock() = Some(e.to_owned());
        if let Some(cb) = &self.s.on_error {
            cb(e);
        }
    }

    async fn list(&self) -> Result<Vec<Lease>> {
        let options = QueryOptions {
            partition_key: Some(self.key.as_str().into()),
            ..Default::default()
        };
        Ok(self
            .s
            .leases
            .query_all::<Lease>("SELECT * FROM c", NO_PARAMS, options)
            .await?
            .items)
    }

    /// Writes `lease` if nobody changed it since it was read; `false` when someone did.
    async fn save(&self, lease: &mut Lease) -> Result<bool> {
        let options = Some(ItemOptions::if_match(lease.etag.clone()));
        match self
            .s
            .leases
            .replace_item(&*lease, &lease.id.clone(), None, options)
            .await
        {
            Ok(r) => {
                lease.etag = r.etag.unwrap_or_default();
                Ok(true)
            }
            Err(Error::PreconditionFailed { .. }) | Err(Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    async fn run(self: Arc<Self>) {
        let mut stop = self.stop.subscribe();
        loop {
            if *stop.borrow() {
                break;
            }
            if let Err(e) = self.tick().await {
                self.report(&e.to_string());
            }
            tokio::select! {
                _ = tokio::time::sleep(self.s.poll_interval) => {}
                _ = stop.changed() => {}
            }
        }
        // Give the leases back, so another process need not wait for them to expire.
        if let Ok(leases) = self.list().await {
            for mut lease in leases.into_iter().filter(|l| l.owner == self.owner) {
                lease.owner.clear();
                lease.expires = 0;
                let _ = self.save(&mut lease).await;
            }
        }
    }

    /// One round: every acquire interval, take this process's share of the leases; then deliver
    /// what each lease it holds has.
    async fn tick(&self) -> Result<()> {
        let now = now_ms();
        let expires = now + self.s.lease_expiry.as_millis() as u64;
        let mine = if now >= self.next_balance.load(Ordering::Relaxed) {
            let mine = self.balance(now, expires).await?;
            let every = acquire_interval(self.s.lease_expiry).as_millis() as u64;
            self.next_balance.store(now + every, Ordering::Relaxed);
            mine
        } else {
            let known = self.known.lock();
            (known.iter())
                .filter(|l| l.owner == self.owner && l.expires > now)
                .cloned()
                .collect()
        };
        for lease in mine {
            self.deliver(lease, expires).await?;
        }
        Ok(())
    }

    /// Lists the leases, takes those unowned or expired up to this process's fair share, splits
    /// those whose range was divided and gives back any above the share: the leases it holds.
    async fn balance(&self, now: u64, expires: u64) -> Result<Vec<Lease>> {
        let leases = self.list().await?;
        *self.known.lock() = leases.clone();
        let live = |l: &Lease| !l.owner.is_empty() && l.expires > now;
        let mut owners: Vec<&str> = leases
            .iter()
            .filter(|l| live(l))
            .map(|l| l.owner.as_str())
            .collect();
        owners.push(&self.owner);
        owners.sort_unstable();
        owners.dedup();
        let fair = leases.len().div_ceil(owners.len());
        let mut mine = Vec::new();
        let mut free = Vec::new();
        let mut leases_held = Vec::new();
        for lease in leases {
            if lease.owner == self.owner && lease.expires > now {
                mine.push(lease);
            } else if !live(&lease) {
                free.push(lease);
            } else {
                leases_held.push(lease);
            }
        }
        // Nothing free and none held: one lease of the biggest holder, taken as a free one is.
        let stolen = (free.is_empty() && mine.is_empty())
            .then(|| self.lease_to_steal(&leases_held, fair))
            .flatten();
        for mut lease in free.into_iter().chain(stolen) {
            if mine.len() >= fair {
                break;
            }
            lease.owner = self.owner.clone();
            lease.expires = expires;
            if self.save(&mut lease).await? {
                self.remember(&lease);
                mine.push(lease);
            }
        }
        let mut mine = self.split_divided(mine, expires).await?;
        while mine.len() > fair {
            let mut lease = mine.pop().expect("more than fair");
            lease.owner.clear();
            lease.expires = 0;
            if self.save(&mut lease).await? {
                self.remember(&lease);
            }
        }
        Ok(mine)
    }

    /// With nothing free and no lease held, one lease of the process holding the most, if that
    /// one holds more than its share (one more when this process needs several) — the .NET
    /// SDK's `EqualPartitionsBalancingStrategy.GetLeaseToSteal`. Without it a process started
    /// beside one that holds every lease would never get any: the holder counts only the
    /// owners it sees on leases. The holder learns of the loss when its next checkpoint or
    /// renewal finds the etag changed, and a batch it had in flight may then come twice; so
    /// this process takes one lease only, and once it holds one the holder sees it and gives
    /// back what is above its share between two batches (no batch in flight, nothing twice).
    /// .NET steals on every round it is short; here that would race the holder's give-back.
    fn lease_to_steal(&self, held: &[Lease], fair: usize) -> Option<Lease> {
        let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
        for lease in held {
            *counts.entry(lease.owner.as_str()).or_default() += 1;
        }
        let (biggest, count) = counts.into_iter().max_by_key(|(_, n)| *n)?;
        // Holding none, this process needs its whole share.
        let spare = if fair > 1 { fair - 1 } else { fair };
        (count > spare)
            .then(|| held.iter().find(|l| l.owner == biggest).cloned())
            .flatten()
    }

    /// Keeps `lease` as this process last wrote it, for the rounds between two listings and
    /// the lag estimate.
    fn remember(&self, lease: &Lease) {
        let mut known = self.known.lock();
        match known.iter_mut().find(|k| k.id == lease.id) {
            Some(k) => *k = lease.clone(),
            None => known.push(lease.clone()),
        }
    }

    /// `mine` with every lease whose range a split divided replaced by one per child range (the
    /// SDK's routing map learns of a split when a read meets the old range's 410). Children are
    /// created before the parent goes, so a process that dies in between leaves both: the parent
    /// is split again by whoever holds it next (children that exist are kept), and its changes
    /// may come twice, never not at all.
    async fn split_divided(&self, mine: Vec<Lease>, expires: u64) -> Result<Vec<Lease>> {
        let ranges = self
            .source_client()?
            .sdk
            .read_feed_ranges(None)
            .await
            .map_err(from_sdk)?;
        let mut out = Vec::with_capacity(mine.len());
        for lease in mine {
            let children: Vec<&FeedRange> = match lease.range.parse::<FeedRange>() {
                Ok(range) => ranges.iter().filter(|r| r.is_subset_of(&range)).collect(),
                Err(_) => Vec::new(),
            };
            if children.len() < 2 {
                out.push(lease);
                continue;
            }
            for child in children {
                let range = child.to_string();
                let mut child = Lease {
                    id: format!("{}.{}", self.key, lease_suffix(&range)),
                    processor: self.key.clone(),
                    range,
                    continuation: lease.continuation.clone(),
                    owner: self.owner.clone(),
                    expires,
                    etag: String::new(),
                };
                match self.s.leases.create_item(&child, None, None).await {
                    Ok(r) => {
                        child.etag = r.etag.unwrap_or_default();
                        self.remember(&child);
                        out.push(child);
                    }
                    Err(Error::Conflict { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
            let options = Some(ItemOptions::if_match(lease.etag.clone()));
            match self
                .s
                .leases
                .delete_item(&lease.id, self.key.as_str(), options)
                .await
            {
                Ok(_) | Err(Error::NotFound { .. }) | Err(Error::PreconditionFailed { .. }) => {}
                Err(e) => return Err(e),
            }
            self.known.lock().retain(|k| k.id != lease.id);
            tracing::info!(lease = %lease.id, "a split divided the lease's range: one lease per child");
        }
        Ok(out)
    }

    /// The changes after `lease`'s checkpoint (up to `limit`) and the token after them.
    async fn read(&self, lease: &Lease, limit: usize) -> Result<(Vec<Value>, Option<String>)> {
        let range: FeedRange = lease
            .range
            .parse()
            .map_err(|e| Error::Corrupt(format!("lease {}: range: {e}", lease.id)))?;
        let mut options = ChangeFeedOptions::default().with_max_item_count(
            MaxItemCountHint::Limit(std::num::NonZeroU32::new(limit as u32).expect("non-zero")),
        );
        if let Some(c) = &lease.continuation {
            options = options.with_continuation_token(ContinuationToken::from_string(c.clone()));
        }
        let start = match self.s.start {
            StartFrom::Beginning => ChangeFeedStartFrom::Beginning,
            StartFrom::Now => ChangeFeedStartFrom::Now,
        };
        let mut pages = self
            .source_client()?
            .sdk
            .query_change_feed::<Value>(FeedScope::range(range), start, Some(options))
            .await
            .map_err(from_sdk)?;
        let mut items = Vec::new();
        let mut charge = 0.0;
        while items.len() < limit {
            let Some(page) = pages.try_next().await.map_err(from_sdk)? else {
                break;
            };
            charge += page.headers().request_charge().map_or(0.0, |c| c.value());
            let before = items.len();
            items.extend(page.items().iter().filter_map(|i| i.current().cloned()));
            if items.len() == before {
                break;
            }
        }
        let token = pages
            .to_continuation_token()
            .ok()
            .map(|t| t.as_str().to_owned());
        // One feed range: one physical partition, read in its own order.
        crate::ledger::record(
            "read change feed",
            self.s.source.id(),
            Routing::SinglePartition,
            1,
            charge,
        );
        Ok((items, token))
    }

    async fn deliver(&self, mut lease: Lease, expires: u64) -> Result<()> {
        let waiting = (self.backoff.lock().get(&lease.id)).is_some_and(|b| b.1 > now_ms());
        let started = now_ms();
        let (items, token) = if waiting {
            // Backing off after a failure: only renew.
            (Vec::new(), lease.continuation.clone())
        } else {
            self.read(&lease, MAX_BATCH).await?
        };
        let reached_end = !waiting && items.len() < MAX_BATCH;
        if !items.is_empty() {
            let n = items.len() as u64;
            if let Err(e) = (self.s.handler)(items).await {
                // Not checkpointed: the same changes come again, after a wait that doubles
                // from 200 ms to 5 s (at the poll interval's pace), as the engine's does.
                let mut backoff = self.backoff.lock();
                let (failures, until) = backoff.entry(lease.id.clone()).or_default();
                *failures += 1;
                *until = now_ms() + (100u64 << (*failures).min(6)).min(5000);
                drop(backoff);
                self.report(&format!("lease {}: {e}", lease.id));
                return Ok(());
            }
            self.backoff.lock().remove(&lease.id);
            self.delivered.fetch_add(n, Ordering::Relaxed);
        }
        if reached_end {
            self.drained.lock().insert(lease.id.clone(), started);
        }
        let renew_by = (self.s.lease_expiry - renew_interval(self.s.lease_expiry)).as_millis();
        let renew = lease.expires < now_ms() + renew_by as u64;
        let moved = token.is_some() && token != lease.continuation;
        // Checkpoint after delivering (or when a first read pinned "now" down), or to renew.
        if moved || renew {
            if moved {
                lease.continuation = token;
            }
            lease.expires = expires;
            if self.save(&mut lease).await? {
                self.remember(&lease);
            } else {
                // Taken over: listed again at the next round, so it is delivered no more.
                self.known.lock().retain(|k| k.id != lease.id);
                tracing::info!(lease = %lease.id, "lease taken over by another process");
            }
        }
        Ok(())
    }
}
