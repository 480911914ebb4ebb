//! Per-physical-partition metrics: storage, items, load, throttling and the largest logical
//! partitions (what `engine stats` prints and the explorer charts).

use serde::Serialize;
use serde_json::Value;

use super::container::ContainerClient;
use crate::error::Result;
use crate::storage::keys;
use crate::throughput::PartitionLoad;
use crate::writer::apply::decode_lp_stats;

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
    /// every logical partition: on the heavy lane (`blocking.rs`), never on the caller's async
    /// thread, so a page that shows it does not stall the requests beside it.
    pub async fn stats(&self, top: usize) -> Result<ContainerStats> {
        let c = self.clone();
        super::blocking::heavy(move || c.stats_now(top)).await
    }

    fn stats_now(&self, top: usize) -> Result<ContainerStats> {
        let shared = self.shared()?;
        let def = shared.def.load_full();
        let loads = shared.throughput.loads();
        let store = &self.engine.inner.store;
        let mut partitions = Vec::new();
        store.read(|rtxn| {
            for (i, p) in def.partitions.partitions.iter().enumerate() {
                let (start, end) = def.partitions.range_of(i);
                let lo = keys::coordinate_key(def.rid, start);
                let mut lps = Vec::new();
                for entry in store.lps.range(rtxn, &crate::storage::from(&lo))? {
                    let (k, v) = entry?;
                    if k[..4] != def.rid.to_be_bytes()
                        || end.is_some_and(|e| keys::epk_of(k).coordinate() >= e)
                    {
                        break;
                    }
                    let (bytes, items, pk) = decode_lp_stats(v);
                    lps.push(LogicalPartitionStats {
                        partition_key: pk.unwrap_or(Value::Null),
                        bytes,
                        items,
                    });
                }
                let count = lps.len() as u64;
                let mut index_entries = 0;
                for entry in store
                    .index
                    .prefix_iter(rtxn, &keys::feed_prefix(def.rid, p.id))?
                {
                    if crate::index::is_count_key(entry?.0) {
                        continue;
                    }
                    index_entries += 1;
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
            Ok(())
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
