//! Databases and containers with their settings: partition key, indexing policy, TTL,
//! throughput, and the largest logical partitions (where the item browser starts).

use engine::{ContainerClient, ContainerDef, Engine};
use serde_json::Value;

/// One container as the overview lists it (from the in-memory catalog: no storage read).
#[derive(Debug, Clone)]
pub struct ContainerSummary {
    pub database: String,
    pub id: String,
    pub partition_key: String,
    pub default_ttl: String,
    pub throughput: String,
    pub indexing_mode: String,
    pub change_feed_retention: String,
    /// The unique key policy: each key's paths, or "none".
    pub unique_keys: String,
    pub partitions: usize,
    pub items: u64,
    pub bytes: u64,
    /// The indexing policy is being applied to existing items.
    pub rebuilding: bool,
}

impl ContainerSummary {
    pub fn of(def: &ContainerDef) -> Self {
        let (partitions, items, bytes) = def.totals();
        ContainerSummary {
            database: def.database().to_owned(),
            id: def.id().to_owned(),
            partition_key: def.partition_key().paths.join(", "),
            default_ttl: match def.default_ttl() {
                None => "off".into(),
                Some(-1) => "on (no default)".into(),
                Some(n) => format!("{n} s"),
            },
            throughput: def
                .throughput()
                .map_or_else(|| "unlimited".into(), |t| format!("{t} RU/s")),
            indexing_mode: def
                .indexing_policy()
                .get("indexingMode")
                .and_then(Value::as_str)
                .unwrap_or("consistent")
                .to_owned(),
            change_feed_retention: def.change_feed_retention().map_or_else(
                || "latest version".into(),
                |s| format!("all versions, {s} s"),
            ),
            unique_keys: unique_keys_text(def.unique_keys()),
            partitions,
            items,
            bytes,
            rebuilding: def.index_rebuild_progress().is_some(),
        }
    }
}

/// `/a, /b; /c` for two unique keys, `none` without a policy.
fn unique_keys_text(keys: &[Vec<String>]) -> String {
    if keys.is_empty() {
        return "none".into();
    }
    keys.iter()
        .map(|k| k.join(", "))
        .collect::<Vec<_>>()
        .join("; ")
}

pub struct DatabaseView {
    pub id: String,
    pub containers: Vec<ContainerSummary>,
}

/// Every database with its containers, sorted by id.
pub fn databases(engine: &Engine) -> Vec<DatabaseView> {
    engine
        .databases()
        .into_iter()
        .map(|d| {
            let mut containers: Vec<_> = engine
                .database(&d.id)
                .containers()
                .iter()
                .map(|c| ContainerSummary::of(c))
                .collect();
            containers.sort_by(|a, b| a.id.cmp(&b.id));
            DatabaseView {
                id: d.id,
                containers,
            }
        })
        .collect()
}

/// A logical partition: its key as typed in the explorer, its size and item count.
#[derive(Debug, Clone)]
pub struct LogicalPartition {
    pub key: String,
    pub items: u64,
    pub bytes: u64,
}

pub struct ContainerDetail {
    pub summary: ContainerSummary,
    pub indexing_policy: String,
    pub largest: Vec<LogicalPartition>,
}

/// Logical partitions listed on a container's page.
pub const LARGEST: usize = 20;

pub async fn detail(c: &ContainerClient, def: &ContainerDef) -> engine::Result<ContainerDetail> {
    let stats = c.stats(LARGEST).await?;
    let mut largest: Vec<LogicalPartition> = stats
        .partitions
        .iter()
        .flat_map(|p| &p.largest_logical_partitions)
        .map(|l| LogicalPartition {
            key: super::pk::text(&l.partition_key),
            items: l.items,
            bytes: l.bytes,
        })
        .collect();
    largest.sort_by_key(|l| std::cmp::Reverse(l.bytes));
    largest.truncate(LARGEST);
    Ok(ContainerDetail {
        summary: ContainerSummary::of(def),
        indexing_policy: serde_json::to_string_pretty(&def.indexing_policy())?,
        largest,
    })
}
