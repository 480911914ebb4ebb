//! What the engine's benches share: loading many items with progress, reading every page of a
//! query.

use std::time::Instant;

use engine::{
    ContainerClient, ContainerProperties, Engine, EngineOptions, ItemOptions, PartitionKey,
    QueryOptions,
};
use serde_json::Value;

/// The runtime the benches drive the engine from: two workers, as the machine has two cores.
#[allow(dead_code)] // not every bench drives the engine from tokio
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// An engine in `dir` with database `bench` holding container `props`, loaded with `make(i)`
/// for each `i` below `items`.
#[allow(dead_code)] // the benches over one loaded container
pub async fn loaded(
    dir: &std::path::Path,
    props: ContainerProperties,
    items: u64,
    make: fn(u64) -> Value,
) -> (Engine, ContainerClient) {
    let engine = Engine::open(dir.join("engine"), EngineOptions::default()).unwrap();
    let db = engine.create_database("bench").await.unwrap();
    let c = db.create_container(props).await.unwrap();
    eprintln!("loading {items} items…");
    load(&c, 0..items, make).await;
    (engine, c)
}

/// Creates `make(i)` for each `i` of `range` with 256 requests in flight, reporting progress
/// every 100 000 items.
pub async fn load(c: &ContainerClient, range: std::ops::Range<u64>, make: fn(u64) -> Value) {
    let started = Instant::now();
    let (first, end) = (range.start, range.end);
    let mut set = tokio::task::JoinSet::new();
    for i in range {
        if set.len() >= 256 {
            set.join_next().await.unwrap().unwrap();
        }
        let c = c.clone();
        set.spawn(async move {
            let opts = ItemOptions {
                enable_content_response_on_write: false,
                ..Default::default()
            };
            c.create_item(&make(i), None, Some(opts)).await.unwrap();
        });
        if (i + 1) % 100_000 == 0 {
            eprintln!(
                "  loaded {}/{end} ({:.0}/s)",
                i + 1,
                (i + 1 - first) as f64 / started.elapsed().as_secs_f64()
            );
        }
    }
    while let Some(r) = set.join_next().await {
        r.unwrap();
    }
}

/// What every page of a query returned and cost.
#[allow(dead_code)] // each bench reads the fields it reports
pub struct AllPages {
    pub rows: Vec<Value>,
    pub request_charge: f64,
    pub items_read: u64,
    /// Distinct physical partitions visited over all pages.
    pub partitions: usize,
    pub pages: usize,
    pub millis: f64,
}

/// Every page of `sql` (`page` rows each, no RU or time budget per page), in `pk` if given.
#[allow(dead_code)] // not every bench queries
pub async fn all_pages(
    c: &ContainerClient,
    sql: &str,
    pk: Option<PartitionKey>,
    page: usize,
) -> AllPages {
    let started = Instant::now();
    let mut all = AllPages {
        rows: Vec::new(),
        request_charge: 0.0,
        items_read: 0,
        partitions: 0,
        pages: 0,
        millis: 0.0,
    };
    let (mut visited, mut continuation) = (std::collections::HashSet::new(), None);
    loop {
        let options = QueryOptions {
            partition_key: pk.clone(),
            max_item_count: Some(page),
            continuation: continuation.take(),
            max_request_units_per_page: Some(f64::MAX),
            max_duration_per_page: Some(std::time::Duration::from_secs(600)),
            ..Default::default()
        };
        let r = c
            .query_items::<Value>(sql, engine::NO_PARAMS, options)
            .await
            .unwrap();
        all.rows.extend(r.items);
        all.request_charge += r.request_charge;
        let m = r.query_metrics.unwrap();
        all.items_read += m.retrieved_document_count;
        visited.extend(m.partitions.iter().map(|p| p.partition));
        all.pages += 1;
        continuation = r.continuation;
        if continuation.is_none() {
            all.partitions = visited.len();
            all.millis = started.elapsed().as_secs_f64() * 1e3;
            return all;
        }
    }
}
