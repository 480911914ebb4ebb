//! The cost of checking scans against the counters (issue 34): full scans, the paged read feed
//! and COUNT(1) from the counters, timed with the checks in the engine. Built at the commit
//! before the checks with this same file, the two binaries give the before/after ratio
//! (BENCHMARKS.md, "Scans checked against the counters"). Then the leaf checks of index scans
//! and change-feed walks, off and on in turn in this one process
//! (`engine::testing::set_leaf_checks`): filters and ORDER BY from the index, the change feed.

mod common;

use std::time::{Duration, Instant};

use engine::{ContainerClient, ContainerProperties, Engine, EngineOptions, QueryOptions};
use serde_json::{json, Value};

fn item(i: u64) -> Value {
    json!({"id": format!("i{i}"), "pk": format!("p{}", i % 100), "n": i, "body": "x".repeat(300)})
}

fn own_partition(i: u64) -> Value {
    json!({"id": format!("i{i}"), "pk": format!("i{i}"), "n": i, "body": "x".repeat(300)})
}

fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            f();
            started.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

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
    let (c, own) = rt.block_on(async {
        let db = engine.create_database("bench").await.unwrap();
        let none = json!({"indexingMode": "none"});
        let c = db
            .create_container(
                ContainerProperties::new("c", "/pk")
                    .with_initial_partitions(4)
                    .with_indexing_policy(none),
            )
            .await
            .unwrap();
        common::load(&c, 0..n, item).await;
        let none = json!({"indexingMode": "none"});
        let own = db
            .create_container(
                ContainerProperties::new("own", "/pk")
                    .with_initial_partitions(4)
                    .with_indexing_policy(none),
            )
            .await
            .unwrap();
        common::load(&own, 0..n, own_partition).await;
        (c, own)
    });
    let query_all = |c: &ContainerClient, sql: &str| {
        let mut opts = QueryOptions {
            max_item_count: Some(1000),
            ..Default::default()
        };
        let mut rows = 0;
        loop {
            let page = rt
                .block_on(c.query_items::<Value>(sql, engine::NO_PARAMS, opts.clone()))
                .unwrap();
            rows += page.items.len();
            match page.continuation {
                Some(next) => opts.continuation = Some(next),
                None => return rows,
            }
        }
    };
    let t = median(9, || {
        assert_eq!(query_all(&c, "SELECT VALUE c.id FROM c") as u64, n);
    });
    println!(
        "SELECT VALUE c.id, {n} items, pages of 1000: {:.1} ms",
        t.as_secs_f64() * 1e3
    );
    let t = median(9, || {
        assert_eq!(query_all(&c, "SELECT VALUE SUM(c.n) FROM c"), 1);
    });
    println!(
        "SELECT VALUE SUM(c.n), {n} items (one page): {:.1} ms",
        t.as_secs_f64() * 1e3
    );
    let t = median(9, || {
        let mut cont: Option<String> = None;
        let mut items = 0;
        loop {
            let page = rt
                .block_on(c.read_all_items::<Value>(1000, cont.as_deref()))
                .unwrap();
            items += page.items.len();
            match page.continuation {
                Some(next) => cont = Some(next),
                None => break,
            }
        }
        assert_eq!(items as u64, n);
    });
    println!(
        "read feed, {n} items, pages of 1000: {:.1} ms",
        t.as_secs_f64() * 1e3
    );
    leaf_checks(&rt, &engine, &c, &query_all);
    for (name, c) in [("100 logical partitions", &c), ("one per item", &own)] {
        let t = median(51, || {
            assert_eq!(query_all(c, "SELECT VALUE COUNT(1) FROM c"), 1);
        });
        println!(
            "SELECT VALUE COUNT(1) from the counters, {n} items, {name}: {:.3} ms",
            t.as_secs_f64() * 1e3
        );
    }
}

/// Times `f` with the leaf checks off and on, alternately (`rounds` of each), and prints the
/// medians and their ratio.
fn off_and_on(name: &str, rounds: usize, mut f: impl FnMut()) {
    let (mut off, mut on) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        for (checks, times) in [(false, &mut off), (true, &mut on)] {
            engine::testing::set_leaf_checks(checks);
            let started = Instant::now();
            f();
            times.push(started.elapsed());
        }
    }
    engine::testing::set_leaf_checks(true);
    let mid = |t: &mut Vec<Duration>| {
        t.sort();
        t[t.len() / 2].as_secs_f64() * 1e3
    };
    let (off, on) = (mid(&mut off), mid(&mut on));
    println!(
        "{name}: leaf checks off {off:.2} ms, on {on:.2} ms, on/off {:.3}",
        on / off
    );
}

/// Index scans (a container indexing /n only, 50 000 items) and the change feed of `c`.
fn leaf_checks(
    rt: &tokio::runtime::Runtime,
    engine: &Engine,
    c: &ContainerClient,
    query_all: &dyn Fn(&ContainerClient, &str) -> usize,
) {
    let n = 50_000u64;
    let ix = rt.block_on(async {
        let only_n = json!({
            "includedPaths": [{"path": "/n/?"}],
            "excludedPaths": [{"path": "/*"}]
        });
        let ix = engine
            .database("bench")
            .create_container(
                ContainerProperties::new("ix", "/pk")
                    .with_initial_partitions(4)
                    .with_indexing_policy(only_n),
            )
            .await
            .unwrap();
        common::load(&ix, 0..n, item).await;
        ix
    });
    off_and_on(
        "COUNT(1) WHERE c.n >= 0 (50 000 index entries, no item read)",
        9,
        || {
            assert_eq!(
                query_all(&ix, "SELECT VALUE COUNT(1) FROM c WHERE c.n >= 0"),
                1
            );
        },
    );
    off_and_on(
        "c.id WHERE c.n >= 10000 AND c.n < 30000, pages of 1000",
        9,
        || {
            assert_eq!(
                query_all(
                    &ix,
                    "SELECT VALUE c.id FROM c WHERE c.n >= 10000 AND c.n < 30000"
                ),
                20_000
            );
        },
    );
    off_and_on("c.id WHERE c.n = 777 (one entry)", 51, || {
        assert_eq!(
            query_all(&ix, "SELECT VALUE c.id FROM c WHERE c.n = 777"),
            1
        );
    });
    off_and_on("c.id ORDER BY c.n, 50 000 items, pages of 1000", 9, || {
        assert_eq!(
            query_all(&ix, "SELECT VALUE c.id FROM c ORDER BY c.n") as u64,
            n
        );
    });
    off_and_on(
        "change feed from the beginning, 100 000 items, pages of 1000",
        9,
        || {
            let mut opts = engine::ChangeFeedOptions {
                max_item_count: 1000,
                ..Default::default()
            };
            let mut items = 0;
            loop {
                let page = rt.block_on(c.change_feed(&opts)).unwrap();
                if page.not_modified() {
                    break;
                }
                items += page.items.len();
                opts.start = engine::ChangeFeedStart::Continuation(page.continuation);
            }
            assert_eq!(items, 100_000);
        },
    );
}
