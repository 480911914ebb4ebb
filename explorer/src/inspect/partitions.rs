//! Physical partitions: hash range, storage, items, RU/s over the last minute and 429s, from
//! the in-memory catalog and throughput meters (cheap enough to refresh during a load test);
//! the largest logical partitions from the engine's `stats` (a read of the partition counters).

use engine::{ContainerClient, ContainerDef, Engine};

use super::catalog::LogicalPartition;

#[derive(Debug, Clone)]
pub struct PartitionRow {
    pub id: u32,
    /// `[range_start, range_end)` of the EPK coordinate space, 16 hex digits each.
    pub range_start: String,
    pub range_end: String,
    /// The partition key range an SDK sees: its id and Cosmos EPK bounds, shortened (`None`
    /// for a container placed by the engine's own hash, one range to the SDKs).
    pub sdk_range: Option<SdkRange>,
    pub bytes: u64,
    pub items: u64,
    /// RU/s budget of the partition (`None`: unlimited).
    pub budget: Option<f64>,
    pub ru_last_second: f64,
    /// Average RU/s over the last minute.
    pub ru_per_s: f64,
    /// RU per second of the last minute, oldest first.
    pub ru_per_second: Vec<f64>,
    pub ru_total: f64,
    pub requests: u64,
    pub throttled: u64,
    pub throttled_last_minute: u64,
    pub parent: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct SdkRange {
    pub id: u32,
    pub min: String,
    pub max: String,
}

#[derive(Debug, Clone)]
pub struct ContainerLoad {
    pub database: String,
    pub container: String,
    pub throughput: Option<u32>,
    pub partitions: Vec<PartitionRow>,
}

impl ContainerLoad {
    /// The highest per-second RU of any partition in the last minute (the chart's scale).
    pub fn peak(&self) -> f64 {
        self.partitions
            .iter()
            .flat_map(|p| p.ru_per_second.iter().copied().chain(p.budget))
            .fold(0.0, f64::max)
    }

    /// Stored bytes of every physical partition.
    pub fn bytes(&self) -> u64 {
        self.partitions.iter().map(|p| p.bytes).sum()
    }

    /// Items of every physical partition.
    pub fn items(&self) -> u64 {
        self.partitions.iter().map(|p| p.items).sum()
    }

    pub fn ru_per_s(&self) -> f64 {
        self.partitions.iter().map(|p| p.ru_per_s).sum()
    }

    pub fn throttled_last_minute(&self) -> u64 {
        self.partitions
            .iter()
            .map(|p| p.throttled_last_minute)
            .sum()
    }
}

fn hex(v: u64) -> String {
    format!("{v:016X}")
}

/// An EPK bound as the table shows it: its first 12 digits (the rest is a hover away).
fn short(epk: &str) -> String {
    match epk.get(..12) {
        Some(head) if epk.len() > 12 => format!("{head}…"),
        _ if epk.is_empty() => "\"\"".into(),
        _ => epk.to_owned(),
    }
}

/// One container's partitions with their load.
pub fn load(c: &ContainerClient, def: &ContainerDef) -> engine::Result<ContainerLoad> {
    let partitions = c
        .partitions()?
        .into_iter()
        .map(|p| PartitionRow {
            id: p.id,
            range_start: hex(p.range_start),
            range_end: hex(p.range_end.unwrap_or(u64::MAX)),
            sdk_range: p.cosmos_range.as_ref().map(|r| SdkRange {
                id: p.range_id,
                min: short(&r.start),
                max: short(&r.end),
            }),
            bytes: p.bytes,
            items: p.items,
            budget: p.load.budget_ru_per_s,
            ru_last_second: p.load.ru_last_second,
            ru_per_s: p.load.ru_per_s_last_minute,
            ru_per_second: p.load.ru_per_second,
            ru_total: p.load.ru_total,
            requests: p.load.requests,
            throttled: p.load.throttled,
            throttled_last_minute: p.load.throttled_last_minute,
            parent: p.parent,
        })
        .collect();
    Ok(ContainerLoad {
        database: def.database().to_owned(),
        container: def.id().to_owned(),
        throughput: def.throughput(),
        partitions,
    })
}

/// Every container's partitions, by database and container.
pub fn all(engine: &Engine) -> Vec<ContainerLoad> {
    let mut out = Vec::new();
    for d in engine.databases() {
        let db = engine.database(&d.id);
        let mut defs = db.containers();
        defs.sort_by(|a, b| a.id().cmp(b.id()));
        for def in defs {
            if let Ok(l) = load(&db.container(def.id()), &def) {
                out.push(l);
            }
        }
    }
    out
}

/// The largest logical partitions of each physical partition, by partition id.
pub async fn largest(
    c: &ContainerClient,
    top: usize,
) -> engine::Result<Vec<(u32, Vec<LogicalPartition>)>> {
    Ok(c.stats(top)
        .await?
        .partitions
        .into_iter()
        .map(|p| {
            let lps = p
                .largest_logical_partitions
                .iter()
                .map(|l| LogicalPartition {
                    key: super::pk::text(&l.partition_key),
                    items: l.items,
                    bytes: l.bytes,
                })
                .collect();
            (p.id, lps)
        })
        .collect())
}
