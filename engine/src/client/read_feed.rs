//! Reading many items without a query: one logical partition, or the whole container in key
//! order with continuations (a read feed).

use serde::de::DeserializeOwned;

use super::container::ContainerClient;
use super::response::{Diagnostics, FeedResponse};
use crate::error::{Error, Result};
use crate::partition::PartitionKey;
use crate::ru::Meter;
use crate::storage::audit;
use crate::storage::keys::{self, DocHeader};
use crate::ttl;

impl ContainerClient {
    /// Every item of one logical partition, in id order (a single-partition prefix scan).
    pub async fn read_all_items_in_partition<T: DeserializeOwned + Send + 'static>(
        &self,
        partition_key: impl Into<PartitionKey>,
    ) -> Result<FeedResponse<T>> {
        let pk = partition_key.into();
        let shared = self.shared()?;
        let def = shared.def.load_full();
        let pk = def.partition_key.full_key(pk)?;
        let epk = def.partition_key.epk(&pk);
        let pp = def.partitions.owner(&epk).id;
        let prefix = keys::partition_prefix(def.rid, &epk);
        let now = ttl::now();
        let ((items, meter), retries) = self
            .retrying(|| {
                let (me, shared, ttl) = (self.clone(), shared.clone(), def.default_ttl);
                crate::blocking::heavy(move || {
                    shared.throughput.admit(pp)?;
                    me.scan_prefix::<T>(&prefix, ttl, now)
                })
            })
            .await?;
        let charge = meter.charge();
        shared.throughput.charge(pp, charge);
        let mut diagnostics = Diagnostics::from_meter(&meter, vec![pp]);
        diagnostics.throttle_retries = retries;
        Ok(FeedResponse {
            items,
            request_charge: charge,
            continuation: None,
            diagnostics,
            query_metrics: None,
        })
    }
    /// Reads the whole container in key order, `max_item_count` items per page (a "read feed":
    /// visits every physical partition). Pass the previous page's continuation to go on.
    ///
    /// Each physical partition read to its end is checked against its item counter (the count
    /// of a partition a page leaves unfinished travels in the continuation): a damaged B-tree
    /// that ends the walk early or skips a subtree is an error naming the file, never a short
    /// feed (issue 34).
    pub async fn read_all_items<T: DeserializeOwned + Send + 'static>(
        &self,
        max_item_count: usize,
        continuation: Option<&str>,
    ) -> Result<FeedResponse<T>> {
        let shared = self.shared()?;
        let rid = shared.def.load().rid;
        let resume = match continuation {
            Some(c) => Some(FeedCursor::decode(c, rid)?),
            None => None,
        };
        let now = ttl::now();
        let me = self.clone();
        let (items, next, meter, visited) = crate::blocking::heavy(move || {
            let store = &me.engine.inner.store;
            store.read(|rtxn| {
                let def = me.definition_in(rtxn)?;
                me.read_feed_page::<T>(rtxn, &def, resume.as_ref(), max_item_count.max(1), now)
            })
        })
        .await?;
        let charge = meter.charge();
        for pp in &visited {
            shared.throughput.charge(*pp, charge / visited.len() as f64);
        }
        Ok(FeedResponse {
            items,
            request_charge: charge,
            continuation: next.map(|c| c.encode()),
            diagnostics: Diagnostics::from_meter(&meter, visited),
            query_metrics: None,
        })
    }

    /// One page of the read feed in one snapshot: its items, the cursor of the next page (when
    /// the page is full), the work, the partitions visited.
    #[allow(clippy::type_complexity)]
    fn read_feed_page<T: DeserializeOwned>(
        &self,
        rtxn: &heed::RoTxn,
        def: &crate::catalog::ContainerDef,
        after: Option<&FeedCursor>,
        max: usize,
        now: u64,
    ) -> Result<(Vec<T>, Option<FeedCursor>, Meter, Vec<u32>)> {
        let store = &self.engine.inner.store;
        let name = def.full_id();
        let parts = &def.partitions;
        let prefix = keys::container_prefix(def.rid);
        let mut meter = Meter {
            queries: 1,
            ..Default::default()
        };
        let mut items = Vec::new();
        let mut visited: Vec<u32> = Vec::new();
        // The partition being walked and the keys counted in it; partitions before it were
        // checked by earlier pages.
        let mut tally = match after {
            Some(c) => {
                let i = parts.index_of(&keys::epk_of(&c.key));
                let p = &parts.partitions[i];
                let carried = c.tally.filter(|t| t.start == p.start);
                PartitionTally {
                    index: i,
                    n: carried.map_or(0, |t| t.n),
                    lsn: carried.map_or(p.lsn, |t| t.lsn),
                    on: carried.is_some(),
                }
            }
            None => PartitionTally::fresh(parts, 0),
        };
        let lower: Vec<u8> = after.map_or_else(|| prefix.to_vec(), |c| c.key.clone());
        let from = match after {
            Some(_) => std::ops::Bound::Excluded(lower.as_slice()),
            None => std::ops::Bound::Included(lower.as_slice()),
        };
        let mut prev: Option<&[u8]> = after.map(|c| c.key.as_slice());
        let mut last: Option<Vec<u8>> = None;
        let mut full = false;
        for entry in store
            .docs
            .range(rtxn, &(from, std::ops::Bound::Unbounded))?
        {
            let (k, v) = entry?;
            if k < lower.as_slice() || prev.is_some_and(|p| k <= p) {
                return Err(audit::went_back(store, &name));
            }
            prev = Some(k);
            if !k.starts_with(&prefix) {
                break;
            }
            if items.len() >= max {
                full = true;
                break;
            }
            let i = parts.index_of(&keys::epk_of(k));
            if i != tally.index {
                // Every partition from the one just left up to this one is finished.
                tally.settle(store, def, i)?;
                tally = PartitionTally::fresh(parts, i);
            }
            tally.n += 1;
            let pp = parts.partitions[i].id;
            if visited.last() != Some(&pp) {
                visited.push(pp);
            }
            last = Some(k.to_vec());
            let (h, json) = DocHeader::read(k, v, &name)?;
            if ttl::is_expired(&h, def.default_ttl, now) {
                continue;
            }
            meter.scan_item(v.len());
            items.push(parse_item::<T>(k, json, &name)?);
        }
        if !full {
            // The container's end: the partition walked and every one after it are finished.
            tally.settle(store, def, parts.partitions.len())?;
        }
        meter.partitions_visited = visited.len() as u64;
        let next = if items.len() >= max {
            last.map(|key| FeedCursor {
                key,
                tally: tally.on.then(|| Carried {
                    start: parts.partitions[tally.index].start,
                    lsn: tally.lsn,
                    n: tally.n,
                }),
            })
        } else {
            None
        };
        Ok((items, next, meter, visited))
    }

    /// Loads every live item under `prefix` in one read transaction.
    fn scan_prefix<T: DeserializeOwned>(
        &self,
        prefix: &[u8],
        default_ttl: Option<i64>,
        now: u64,
    ) -> Result<(Vec<T>, Meter)> {
        let store = &self.engine.inner.store;
        store.read(|rtxn| {
            let mut meter = Meter {
                queries: 1,
                partitions_visited: 1,
                ..Default::default()
            };
            let mut out = Vec::new();
            let name = format!("{}/{}", self.database, self.id);
            // The keys walked, checked against the logical partition's counter (issue 34).
            let mut walked = 0u64;
            let mut prev: Option<&[u8]> = None;
            for entry in store.docs.prefix_iter(rtxn, prefix)? {
                let (k, v) = entry?;
                if prev.is_some_and(|p| k <= p) {
                    return Err(audit::went_back(store, &name));
                }
                prev = Some(k);
                walked += 1;
                let (h, json) = DocHeader::read(k, v, &name)?;
                if ttl::is_expired(&h, default_ttl, now) {
                    continue;
                }
                meter.scan_item(v.len());
                out.push(parse_item::<T>(k, json, &name)?);
            }
            let counted = audit::lp_items(store, rtxn, prefix)?;
            if walked != counted {
                return Err(audit::damaged(
                    store,
                    format!(
                        "a read of logical partition {} of container '{name}' found {walked} items where its counter records {counted}",
                        keys::show(&prefix[4..])
                    ),
                ));
            }
            Ok((out, meter))
        })
    }
}

/// A stored item's JSON as `T`; JSON that does not parse is corrupt data naming the item.
fn parse_item<T: DeserializeOwned>(key: &[u8], json: &[u8], container: &str) -> Result<T> {
    crate::item::parse_stored::<T>(json).map_err(|e| match e {
        Error::Corrupt(why) => {
            keys::corrupt_item(key, container, &format!("its JSON does not parse ({why})"))
        }
        other => other,
    })
}

/// Where a read feed resumes: after `key`, with the count of the partition it is inside.
struct FeedCursor {
    key: Vec<u8>,
    tally: Option<Carried>,
}

/// A partition's count carried from page to page.
#[derive(Clone, Copy)]
struct Carried {
    /// The partition's start coordinate (a split keeps the lower half's, whose count stays true).
    start: u64,
    /// Its LSN when the count began: a write since makes the count moot.
    lsn: u64,
    n: u64,
}

impl FeedCursor {
    /// `hex(key)`, then `.start.lsn.n` in hex when a count is carried (a bare key, as pages
    /// handed out before, resumes without one).
    fn encode(&self) -> String {
        match self.tally {
            Some(t) => format!(
                "{}.{:x}.{:x}.{:x}",
                keys::hex(&self.key),
                t.start,
                t.lsn,
                t.n
            ),
            None => keys::hex(&self.key),
        }
    }

    fn decode(c: &str, rid: u32) -> Result<FeedCursor> {
        let bad = || {
            Error::bad(
                "continuation",
                "the continuation token is not one this container issued",
            )
        };
        let mut parts = c.split('.');
        let key = match parts.next().and_then(keys::unhex) {
            Some(bytes) if bytes.len() >= 20 && bytes[..4] == rid.to_be_bytes() => bytes,
            _ => return Err(bad()),
        };
        let nums: Vec<u64> = parts
            .map(|p| u64::from_str_radix(p, 16).map_err(|_| bad()))
            .collect::<Result<_>>()?;
        let tally = match nums[..] {
            [] => None,
            [start, lsn, n] => Some(Carried { start, lsn, n }),
            _ => return Err(bad()),
        };
        Ok(FeedCursor { key, tally })
    }
}

/// The keys a read feed counted in one physical partition (by its index in the map).
struct PartitionTally {
    index: usize,
    n: u64,
    lsn: u64,
    /// False when the count cannot be known (resumed without one, or under another map).
    on: bool,
}

impl PartitionTally {
    fn fresh(parts: &crate::partition::map::PartitionMap, index: usize) -> Self {
        PartitionTally {
            index,
            n: 0,
            lsn: parts.partitions.get(index).map_or(0, |p| p.lsn),
            on: true,
        }
    }

    /// The walk left this partition for partition `next` (or the container's end): this one,
    /// and every one between (the walk found none of their keys), must hold what they count.
    fn settle(
        &self,
        store: &crate::storage::Store,
        def: &crate::catalog::ContainerDef,
        next: usize,
    ) -> Result<()> {
        let parts = &def.partitions.partitions;
        let check = |i: usize, n: u64, on: bool, lsn: u64| -> Result<()> {
            let Some(p) = parts.get(i) else {
                return Ok(());
            };
            if on && p.lsn == lsn && p.items != n {
                return Err(audit::damaged(
                    store,
                    format!(
                        "a read of physical partition {} of container '{}' found {n} items where its counter records {}",
                        p.id,
                        def.full_id(),
                        p.items
                    ),
                ));
            }
            Ok(())
        };
        check(self.index, self.n, self.on, self.lsn)?;
        let between = parts.iter().enumerate().take(next).skip(self.index + 1);
        for (i, p) in between {
            check(i, 0, true, p.lsn)?;
        }
        Ok(())
    }
}

/// What a container's own counters say it holds beside what a walk of its stored items finds,
/// both in one snapshot: a damaged B-tree can silently hide items from every scan, and the
/// counters (kept in other pages, by every write) are how a reader of "all items" notices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ItemCount {
    /// Items the counters record (the physical partitions', or the logical partition's).
    pub expected: u64,
    /// Items the walk found, expired ones not yet purged included.
    pub stored: u64,
    /// Of those, the ones not expired.
    pub live: u64,
    /// The sum of the partitions' LSNs: it changes with every write to the container.
    pub version: u64,
}

impl ItemCount {
    /// Items the counters record that the walk did not find.
    pub fn missing(&self) -> u64 {
        self.expected.saturating_sub(self.stored)
    }
}

impl ContainerClient {
    /// The container's write version (see [`ItemCount::version`]), from its definition alone.
    pub fn write_version(&self) -> Result<u64> {
        let store = &self.engine.inner.store;
        store.read(|rtxn| Ok(version_of(&*self.definition_in(rtxn)?)))
    }

    /// Counts the stored items (of one logical partition with `partition_key`) and reads the
    /// counters, in one read transaction.
    pub fn count_items(&self, partition_key: Option<&PartitionKey>) -> Result<ItemCount> {
        let store = &self.engine.inner.store;
        let now = ttl::now();
        store.read(|rtxn| {
            let def = self.definition_in(rtxn)?;
            let (prefix, expected) = match partition_key {
                Some(pk) => {
                    let pk = def.partition_key.full_key(pk.clone())?;
                    let prefix = keys::partition_prefix(def.rid, &def.partition_key.epk(&pk));
                    let items = store
                        .lps
                        .get(rtxn, &prefix)?
                        .map_or(0, |v| crate::storage::keys::decode_lp_stats(v).1);
                    (prefix.to_vec(), items)
                }
                None => (
                    keys::container_prefix(def.rid).to_vec(),
                    def.partitions.partitions.iter().map(|p| p.items).sum(),
                ),
            };
            let (mut stored, mut live) = (0, 0);
            for entry in store.docs.prefix_iter(rtxn, &prefix)? {
                let (k, v) = entry?;
                stored += 1;
                let (h, _) = DocHeader::read(k, v, &def.full_id())?;
                if !ttl::is_expired(&h, def.default_ttl, now) {
                    live += 1;
                }
            }
            Ok(ItemCount {
                expected,
                stored,
                live,
                version: version_of(&def),
            })
        })
    }
}

fn version_of(def: &crate::catalog::ContainerDef) -> u64 {
    def.partitions
        .partitions
        .iter()
        .fold(0u64, |s, p| s.wrapping_add(p.lsn))
}
