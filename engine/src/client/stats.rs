//! Per-physical-partition metrics: storage, items, load, throttling and the largest logical
//! partitions (what `engine stats` prints and the explorer charts).

use serde::Serialize;
use serde_json::Value;

use super::container::ContainerClient;
use crate::error::Result;
use crate::storage::keys::decode_lp_stats;
use crate::storage::{audit, keys};
use crate::throughput::PartitionLoad;

#[derive(Debug, Clone, Serialize)]
pub struct LogicalPartitionStats {
    /// The partition key value (`null` also stands for PartitionKey.None).
    pub partition_key: Value,
    pub bytes: u64,
    pub items: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct PhysicalPartitionStats {
    pub id: u32,
    /// EPK coordinate range `[range_start, range_end)` as 16 hex digits; end `FFFF…` is the top.
    pub range_start: String,
    pub range_end: String,
    pub bytes: u64,
    pub items: u64,
    pub logical_partitions: u64,
    pub lsn: u64,
    /// Index entries this partition holds.
    pub index_entries: u64,
    pub parent: Option<u32>,
    pub load: Option<PartitionLoad>,
    pub largest_logical_partitions: Vec<LogicalPartitionStats>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ContainerStats {
    pub database: String,
    pub container: String,
    pub partition_key: String,
    pub throughput: Option<u32>,
    pub bytes: u64,
    pub items: u64,
    pub partitions: Vec<PhysicalPartitionStats>,
}

impl ContainerClient {
    /// Metrics of every physical partition, with its `top` largest logical partitions. It walks
    /// every logical partition: on the heavy lane (`crate::blocking`), never on the caller's async
    /// thread, so a page that shows it does not stall the requests beside it.
    pub async fn stats(&self, top: usize) -> Result<ContainerStats> {
        let c = self.clone();
        crate::blocking::heavy(move || c.stats_now(top)).await
    }

    /// Read in one snapshot, with the partition map and counters of that snapshot. What it walks
    /// is checked against what the engine counts (issue 34): a physical partition's logical
    /// partitions (from `lps`) must sum to its item counter, and its index entries to its
    /// per-path entry counts (kept by every write, in other pages), so a damaged page is an
    /// error naming the file instead of wrong figures.
    fn stats_now(&self, top: usize) -> Result<ContainerStats> {
        let shared = self.shared()?;
        let loads = shared.throughput.loads();
        let store = &self.engine.inner.store;
        let mut partitions = Vec::new();
        let def = store.read(|rtxn| {
            let def = self.definition_in(rtxn)?;
            let name = def.full_id();
            for (i, p) in def.partitions.partitions.iter().enumerate() {
                let (start, end) = def.partitions.range_of(i);
                let lo = keys::coordinate_key(def.rid, start);
                let hi = end
                    .map(|e| keys::coordinate_key(def.rid, e).to_vec())
                    .unwrap_or_else(|| (def.rid + 1).to_be_bytes().to_vec());
                let mut lps = Vec::new();
                let mut lp_items = 0u64;
                let mut prev: Option<&[u8]> = None;
                for entry in store.lps.range(
                    rtxn,
                    &(
                        std::ops::Bound::Included(lo.as_slice()),
                        std::ops::Bound::Excluded(hi.as_slice()),
                    ),
                )? {
                    let (k, v) = entry?;
                    if k < lo.as_slice() || prev.is_some_and(|p| k <= p) {
                        return Err(audit::went_back(store, &name));
                    }
                    prev = Some(k);
                    let (bytes, items, pk) = decode_lp_stats(v);
                    lp_items += items;
                    lps.push(LogicalPartitionStats {
                        partition_key: pk.unwrap_or(Value::Null),
                        bytes,
                        items,
                    });
                }
                if lp_items != p.items {
                    return Err(audit::damaged(
                        store,
                        format!(
                            "physical partition {} of container '{name}' counts {} items, its logical partitions {lp_items}",
                            p.id, p.items
                        ),
                    ));
                }
                let count = lps.len() as u64;
                let (mut index_entries, mut counted) = (0u64, 0u64);
                let prefix = keys::feed_prefix(def.rid, p.id);
                let mut prev: Option<&[u8]> = None;
                for entry in store.index.prefix_iter(rtxn, &prefix)? {
                    let (k, v) = entry?;
                    if prev.is_some_and(|p| k <= p) {
                        return Err(audit::went_back(store, &name));
                    }
                    prev = Some(k);
                    if crate::index::is_count_key(k) {
                        counted += v.try_into().map(u64::from_be_bytes).unwrap_or(u64::MAX);
                        continue;
                    }
                    index_entries += 1;
                }
                // A rebuild rewrites entries and counts as it goes: compared once it is done.
                if def.index_rebuild.is_none() && counted != index_entries {
                    return Err(audit::damaged(
                        store,
                        format!(
                            "physical partition {} of container '{name}' holds {index_entries} index entries, its index counts {counted}",
                            p.id
                        ),
                    ));
                }
                lps.sort_by_key(|l| std::cmp::Reverse(l.bytes));
                lps.truncate(top);
                partitions.push(PhysicalPartitionStats {
                    id: p.id,
                    range_start: format!("{start:016X}"),
                    range_end: end
                        .map_or_else(|| "FFFFFFFFFFFFFFFF".into(), |e| format!("{e:016X}")),
                    bytes: p.bytes,
                    items: p.items,
                    logical_partitions: count,
                    lsn: p.lsn,
                    index_entries,
                    parent: p.parent,
                    load: loads.iter().find(|l| l.partition == p.id).cloned(),
                    largest_logical_partitions: lps,
                });
            }
            Ok(def)
        })?;
        Ok(ContainerStats {
            database: def.database.clone(),
            container: def.id.clone(),
            partition_key: def.partition_key.paths.join(","),
            throughput: def.throughput,
            bytes: partitions.iter().map(|p| p.bytes).sum(),
            items: partitions.iter().map(|p| p.items).sum(),
            partitions,
        })
    }
}
