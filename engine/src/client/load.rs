//! The load of a container's physical partitions, from memory only (no storage read): cheap
//! enough for a metrics scrape or a page that refreshes every second.

use serde::Serialize;

use super::container::ContainerClient;
use crate::error::Result;
use crate::partition::cosmos::{self, EpkRange};
use crate::partition::Placement;
use crate::throughput::PartitionLoad;

/// One physical partition: the share of the hash space it owns, what it stores and its load.
#[derive(Debug, Clone, Serialize)]
pub struct PhysicalPartitionInfo {
    pub id: u32,
    /// The EPK coordinate range `[range_start, range_end)`; `None` end is the top of the space.
    pub range_start: u64,
    pub range_end: Option<u64>,
    pub items: u64,
    /// Bytes of stored items.
    pub bytes: u64,
    /// The last change-feed sequence number written in this partition.
    pub lsn: u64,
    /// The partition this one was split from.
    pub parent: Option<u32>,
    /// The partition key range the REST API shows for this partition: its id (new after every
    /// split), the ids it descends from, and its Cosmos EPK bounds (`None` for a container
    /// placed by the engine's own hash, which shows as one range).
    pub range_id: u32,
    pub range_parents: Vec<u32>,
    pub cosmos_range: Option<EpkRange>,
    pub load: PartitionLoad,
}

impl ContainerClient {
    /// The ids of the physical partitions that hold the logical partition `key` today (one), or
    /// for a prefix of a hierarchical key every partition its range overlaps, in range order.
    pub fn partitions_of(&self, key: &crate::PartitionKey) -> Result<Vec<u32>> {
        let def = self.read_container()?;
        let (lo, hi) = def.partition_key.scope(key)?.coordinates();
        let map = &def.partitions;
        Ok(map
            .indexes_overlapping(lo, hi)
            .map(|i| map.partitions[i].id)
            .collect())
    }

    /// The container's physical partitions in range order, with their load.
    pub fn partitions(&self) -> Result<Vec<PhysicalPartitionInfo>> {
        let shared = self.shared()?;
        let def = shared.def.load();
        let loads = shared.throughput.loads();
        let map = &def.partitions;
        Ok(map
            .partitions
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let (range_start, range_end) = map.range_of(i);
                let load = loads.iter().find(|l| l.partition == p.id).cloned();
                PhysicalPartitionInfo {
                    id: p.id,
                    range_start,
                    range_end,
                    items: p.items,
                    bytes: p.bytes,
                    lsn: p.lsn,
                    parent: p.parent,
                    range_id: p.range_id(),
                    range_parents: p.range_parents.clone(),
                    cosmos_range: (def.partition_key.placement == Placement::Cosmos)
                        .then(|| cosmos::range_of(&def.partition_key, map, i)),
                    load: load.unwrap_or_else(|| PartitionLoad::idle(p.id)),
                }
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::{ContainerProperties, Engine, EngineOptions};

    #[tokio::test]
    async fn loads_count_requests_and_ru_per_partition() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let db = engine.create_database("d").await.unwrap();
        let c = db
            .create_container(ContainerProperties::new("c", "/pk").with_initial_partitions(2))
            .await
            .unwrap();
        let created = c
            .create_item(&json!({"id": "a", "pk": "a"}), None, None)
            .await
            .unwrap();
        let loads: Vec<_> = c
            .partitions()
            .unwrap()
            .into_iter()
            .map(|p| p.load)
            .collect();
        assert_eq!(loads.len(), 2);
        assert_eq!(loads.iter().map(|l| l.requests).sum::<u64>(), 1);
        let total: f64 = loads.iter().map(|l| l.ru_total).sum();
        assert!((total - created.request_charge).abs() < 1e-9);
        assert_eq!(loads[0].ru_per_second.len(), 59);
    }
}
