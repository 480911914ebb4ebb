//! Hierarchical partition keys (issue 23): a prefix query over 1 M items in 16 physical
//! partitions visits only the partitions its prefix's range overlaps, against the same filter
//! as a full fan-out (a filter on the second path alone), in one run.
//!
//! 1 000 tenants × 100 users × 10 sessions, one item each (`BENCH_ITEMS` to change the size):
//! - `["t7"]`: one tenant (1 000 items) — the prefix;
//! - `["t7", "u3"]`: one user of it (10 items) — the two-value prefix;
//! - `WHERE c.userId = 'u3'` with no key: every partition (10 000 items);
//! - `WHERE c.at % 1000 = 7`: the tenant's items found without the key (a full fan-out).
//!
//! `cargo bench -p engine --bench hierarchical`

use std::time::Instant;

use engine::{
    ContainerClient, ContainerProperties, Engine, EngineOptions, PartitionKey, QueryOptions,
};
use serde_json::{json, Value};

mod common;

fn event(i: u64) -> Value {
    json!({
        "id": format!("e{i}"), "tenantId": format!("t{}", i % 1000),
        "userId": format!("u{}", (i / 1000) % 100), "sessionId": format!("s{}", i / 100_000),
        "kind": "view", "at": i,
    })
}

/// Every page of `sql`: (rows, RU, items read, partitions visited, milliseconds).
async fn run(
    c: &ContainerClient,
    sql: &str,
    pk: Option<PartitionKey>,
) -> (usize, f64, u64, usize, f64) {
    let started = Instant::now();
    let (mut rows, mut ru, mut read, mut cont) = (0, 0.0, 0, None);
    let mut visited = std::collections::HashSet::new();
    loop {
        let r = c
            .query_items::<Value>(
                sql,
                engine::NO_PARAMS,
                QueryOptions {
                    partition_key: pk.clone(),
                    max_item_count: Some(1000),
                    continuation: cont.take(),
                    max_request_units_per_page: Some(f64::MAX),
                    max_duration_per_page: Some(std::time::Duration::from_secs(600)),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        rows += r.items.len();
        ru += r.request_charge;
        let m = r.query_metrics.unwrap();
        read += m.retrieved_document_count;
        visited.extend(m.partitions.iter().map(|p| p.partition));
        match r.continuation {
            Some(c) => cont = Some(c),
            None => {
                return (
                    rows,
                    ru,
                    read,
                    visited.len(),
                    started.elapsed().as_secs_f64() * 1e3,
                )
            }
        }
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let n: u64 = std::env::var("BENCH_ITEMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path().join("engine"), EngineOptions::default()).unwrap();
    let c = rt.block_on(async {
        let db = engine.create_database("bench").await.unwrap();
        // Only what the queries filter on is indexed: the load is the point, not the index.
        let policy =
            json!({"includedPaths": [{"path": "/userId/?"}], "excludedPaths": [{"path": "/*"}]});
        db.create_container(
            ContainerProperties::hierarchical("events", &["/tenantId", "/userId", "/sessionId"])
                .with_initial_partitions(16)
                .with_indexing_policy(policy),
        )
        .await
        .unwrap()
    });
    eprintln!("loading {n} events…");
    rt.block_on(common::load(&c, 0..n, event));
    let key = |values: &[&str]| {
        let values: Vec<Value> = values.iter().map(|v| json!(v)).collect();
        Some(PartitionKey::from_json_values(&values, "pk").unwrap())
    };
    println!("| query | partitions visited | items read | rows | RU | time |");
    println!("|---|---|---|---|---|---|");
    let cases: [(&str, &str, Option<PartitionKey>); 6] = [
        ("prefix [\"t7\"]", "SELECT c.id FROM c", key(&["t7"])),
        (
            "the prefix as a filter",
            "SELECT c.id FROM c WHERE c.tenantId = 't7'",
            None,
        ),
        // The same 1 000 items found without the key: every partition, every item.
        (
            "the same items, no key",
            "SELECT c.id FROM c WHERE c.at % 1000 = 7",
            None,
        ),
        (
            "prefix [\"t7\",\"u3\"]",
            "SELECT c.id FROM c",
            key(&["t7", "u3"]),
        ),
        ("full key", "SELECT c.id FROM c", key(&["t7", "u3", "s0"])),
        (
            "fan-out on /userId",
            "SELECT c.id FROM c WHERE c.userId = 'u3'",
            None,
        ),
    ];
    for (name, sql, pk) in cases {
        let (rows, ru, read, visited, ms) = rt.block_on(run(&c, sql, pk));
        println!("| {name} | {visited} of 16 | {read} | {rows} | {ru:.1} | {ms:.1} ms |");
    }
}
