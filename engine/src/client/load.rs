//! The load of a container's physical partitions, from memory only (no storage read): cheap
//! enough for a metrics scrape or a page that refreshes every second.

use super::container::ContainerClient;
use crate::error::Result;
use crate::throughput::PartitionLoad;

impl ContainerClient {
    /// RU, requests and 429s of every physical partition, by partition id.
    pub fn partition_loads(&self) -> Result<Vec<PartitionLoad>> {
        Ok(self.shared()?.throughput.loads())
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
        let loads = c.partition_loads().unwrap();
        assert_eq!(loads.len(), 2);
        assert_eq!(loads.iter().map(|l| l.requests).sum::<u64>(), 1);
        let total: f64 = loads.iter().map(|l| l.ru_total).sum();
        assert!((total - created.request_charge).abs() < 1e-9);
        assert_eq!(loads[0].ru_per_second.len(), 59);
    }
}
