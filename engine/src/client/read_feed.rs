//! Reading many items without a query: one logical partition, or the whole container in key
//! order with continuations (a read feed).

use serde::de::DeserializeOwned;

use super::container::ContainerClient;
use super::response::{Diagnostics, FeedResponse};
use crate::error::{Error, Result};
use crate::partition::PartitionKey;
use crate::ru::Meter;
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
                super::blocking::heavy(move || {
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
    pub async fn read_all_items<T: DeserializeOwned + Send + 'static>(
        &self,
        max_item_count: usize,
        continuation: Option<&str>,
    ) -> Result<FeedResponse<T>> {
        let shared = self.shared()?;
        let def = shared.def.load_full();
        let after = match continuation {
            Some(c) => Some(decode_continuation(c, def.rid)?),
            None => None,
        };
        let now = ttl::now();
        let me = self.clone();
        let def_in = def.clone();
        let (items, last, meter, visited) = super::blocking::heavy(move || {
            let def = def_in;
            let store = &me.engine.inner.store;
            let prefix = keys::container_prefix(def.rid);
            store.read(|rtxn| {
                let mut meter = Meter {
                    queries: 1,
                    ..Default::default()
                };
                let mut items = Vec::new();
                let mut last: Option<Vec<u8>> = None;
                let mut visited: Vec<u32> = Vec::new();
                let lower = after.clone().unwrap_or_else(|| prefix.to_vec());
                for entry in store.docs.range(rtxn, &crate::storage::from(&lower))? {
                    let (k, v) = entry?;
                    if !k.starts_with(&prefix) || items.len() >= max_item_count.max(1) {
                        break;
                    }
                    if after.as_deref() == Some(k) {
                        continue;
                    }
                    let pp = def.partitions.owner(&keys::epk_of(k)).id;
                    if visited.last() != Some(&pp) {
                        visited.push(pp);
                    }
                    last = Some(k.to_vec());
                    let (h, json) = DocHeader::read(k, v, &def.full_id())?;
                    if ttl::is_expired(&h, def.default_ttl, now) {
                        continue;
                    }
                    meter.scan_item(v.len());
                    items.push(parse_item::<T>(k, json, &def.full_id())?);
                }
                meter.partitions_visited = visited.len() as u64;
                Ok((items, last, meter, visited))
            })
        })
        .await?;
        let charge = meter.charge();
        for pp in &visited {
            shared.throughput.charge(*pp, charge / visited.len() as f64);
        }
        let continuation = if items.len() >= max_item_count.max(1) {
            last.map(|k| keys::hex(&k))
        } else {
            None
        };
        Ok(FeedResponse {
            items,
            request_charge: charge,
            continuation,
            diagnostics: Diagnostics::from_meter(&meter, visited),
            query_metrics: None,
        })
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
            for entry in store.docs.prefix_iter(rtxn, prefix)? {
                let (k, v) = entry?;
                let (h, json) = DocHeader::read(k, v, &name)?;
                if ttl::is_expired(&h, default_ttl, now) {
                    continue;
                }
                meter.scan_item(v.len());
                out.push(parse_item::<T>(k, json, &name)?);
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

fn decode_continuation(c: &str, rid: u32) -> Result<Vec<u8>> {
    match keys::unhex(c) {
        Some(bytes) if bytes.len() >= 20 && bytes[..4] == rid.to_be_bytes() => Ok(bytes),
        _ => Err(Error::bad(
            "continuation",
            "the continuation token is not one this container issued",
        )),
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
                        .map_or(0, |v| crate::writer::apply::decode_lp_stats(v).1);
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
