//! Query benchmarks (see BENCHMARKS.md), each side by side in one run:
//! - a single-partition query returning 25 items vs the same query on SQLite with an index on
//!   the JSON property, over the same stored JSON (system properties included); both return
//!   parsed JSON values;
//! - ORDER BY ... TOP 100 over 100 K and 1 M items in 8 partitions: items read and RU must grow
//!   with partitions × 100, not with items.
//!
//! `cargo bench -p engine --bench query` (`BENCH_LARGE=0` stops at 100 K items).

use std::time::{Duration, Instant};

use engine::{ContainerClient, ContainerProperties, Engine, EngineOptions, QueryOptions};
use serde_json::{json, Value};

fn product(i: u64) -> Value {
    json!({
        "id": format!("p{i}"), "categoryId": format!("cat{}", i / 25), "categoryName": format!("Category {}", i / 25),
        "sku": format!("SKU-{i:08}"), "name": format!("Product {i}"), "price": (i * 7919 % 100_000) as f64 / 100.0,
        "tags": [{"id": "t1", "name": "Tag-1"}, {"id": format!("t{}", i % 50), "name": format!("Tag-{}", i % 50)}]
    })
}

/// Median of `runs` timings of `f`.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut t: Vec<Duration> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed()
        })
        .collect();
    t.sort();
    t[runs / 2]
}

mod common;

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path().join("engine"), EngineOptions::default()).unwrap();
    let n = 100_000u64;
    eprintln!("loading {n} products into the engine and SQLite…");
    let c = rt.block_on(async {
        let db = engine.create_database("bench").await.unwrap();
        let c = db
            .create_container(
                ContainerProperties::new("product", "/categoryId").with_initial_partitions(8),
            )
            .await
            .unwrap();
        common::load(&c, 0..n, product).await;
        c
    });
    let conn = rusqlite::Connection::open(dir.path().join("sqlite.db")).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.execute_batch(
        "CREATE TABLE items (pk TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (pk, id));
         CREATE INDEX by_category ON items (json_extract(body, '$.categoryId'));",
    )
    .unwrap();
    {
        let tx = conn.unchecked_transaction().unwrap();
        let mut stmt = tx
            .prepare("INSERT INTO items (pk, id, body) VALUES (?1, ?2, ?3)")
            .unwrap();
        // The same bytes the engine stores and returns: the item with its system properties.
        let mut cont: Option<String> = None;
        loop {
            let page = rt
                .block_on(c.read_all_items::<Value>(5000, cont.as_deref()))
                .unwrap();
            for p in &page.items {
                stmt.execute((
                    p["categoryId"].as_str().unwrap(),
                    p["id"].as_str().unwrap(),
                    p.to_string(),
                ))
                .unwrap();
            }
            match page.continuation {
                Some(next) => cont = Some(next),
                None => break,
            }
        }
        drop(stmt);
        tx.commit().unwrap();
    }

    // 1. Single-partition query returning 25 items.
    let mut k = 0u64;
    // Called from async code, as an app's handlers do: one runtime entry for the whole loop.
    let engine_time = rt.block_on(async {
        let mut times = Vec::with_capacity(2001);
        for _ in 0..2001 {
            k = (k + 37) % 4000;
            let started = Instant::now();
            let r = c
                .query_items::<Value>(
                    "SELECT * FROM c WHERE c.categoryId = @id",
                    &[("@id", json!(format!("cat{k}")))],
                    QueryOptions::default(),
                )
                .await
                .unwrap();
            assert_eq!(r.items.len(), 25);
            times.push(started.elapsed());
        }
        times.sort();
        times[times.len() / 2]
    });
    let mut stmt = conn
        .prepare("SELECT body FROM items WHERE json_extract(body, '$.categoryId') = ?1")
        .unwrap();
    let sqlite_time = median(2001, || {
        k = (k + 37) % 4000;
        let rows: Vec<Value> = stmt
            .query_map([format!("cat{k}")], |r| r.get::<_, String>(0))
            .unwrap()
            .map(|s| serde_json::from_str(&s.unwrap()).unwrap())
            .collect();
        assert_eq!(rows.len(), 25);
    });
    let charge = rt
        .block_on(c.query_items::<Value>(
            "SELECT * FROM c WHERE c.categoryId = 'cat7'",
            engine::NO_PARAMS,
            QueryOptions::default(),
        ))
        .unwrap()
        .request_charge;
    println!(
        "single-partition query, 25 items of {n}: engine {:.1} µs ({charge} RU), SQLite + JSON index {:.1} µs, engine/SQLite time {:.2}",
        engine_time.as_secs_f64() * 1e6,
        sqlite_time.as_secs_f64() * 1e6,
        engine_time.as_secs_f64() / sqlite_time.as_secs_f64()
    );

    // 2. ORDER BY ... TOP 100 across 8 partitions, at 100 K and (unless BENCH_LARGE=0) 1 M items.
    let top = |c: &ContainerClient| {
        let mut last = None;
        let t = median(51, || {
            last = Some(
                rt.block_on(c.query_all::<Value>(
                    "SELECT TOP 100 c.id, c.price FROM c ORDER BY c.price DESC",
                    engine::NO_PARAMS,
                    QueryOptions::default(),
                ))
                .unwrap(),
            );
        });
        let r = last.unwrap();
        let m = r.query_metrics.clone().unwrap();
        (t, r.request_charge, m.retrieved_document_count, m.plan)
    };
    let (t1, ru1, read1, plan1) = top(&c);
    println!("ORDER BY price DESC TOP 100, {n} items, 8 partitions: {:.2} ms, {ru1} RU, {read1} items read ({plan1})", t1.as_secs_f64() * 1e3);
    if std::env::var("BENCH_LARGE").as_deref() != Ok("0") {
        eprintln!("loading 900 000 more…");
        rt.block_on(common::load(&c, n..1_000_000, product));
        let (t2, ru2, read2, plan2) = top(&c);
        println!("ORDER BY price DESC TOP 100, 1000000 items, 8 partitions: {:.2} ms, {ru2} RU, {read2} items read ({plan2})", t2.as_secs_f64() * 1e3);
        println!(
            "10x the items: time x{:.2}, RU x{:.2}, items read x{:.2}",
            t2.as_secs_f64() / t1.as_secs_f64(),
            ru2 / ru1,
            read2 as f64 / read1 as f64
        );
    }
}
