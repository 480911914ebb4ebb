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

use engine::{ContainerProperties, Engine, EngineOptions, PartitionKey};
use serde_json::{json, Value};

mod common;

fn event(i: u64) -> Value {
    json!({
        "id": format!("e{i}"), "tenantId": format!("t{}", i % 1000),
        "userId": format!("u{}", (i / 1000) % 100), "sessionId": format!("s{}", i / 100_000),
        "kind": "view", "at": i,
    })
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
        let r = rt.block_on(common::all_pages(&c, sql, pk, 1000));
        println!(
            "| {name} | {} of 16 | {} | {} | {:.1} | {:.1} ms |",
            r.partitions,
            r.items_read,
            r.rows.len(),
            r.request_charge,
            r.millis
        );
    }
}
