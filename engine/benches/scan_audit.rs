//! The cost of checking scans against the counters (issue 34): full scans, the paged read feed
//! and COUNT(1) from the counters, timed with the checks in the engine. Built at the commit
//! before the checks with this same file, the two binaries give the before/after ratio
//! (BENCHMARKS.md, "Scans checked against the counters"). Then the leaf checks of index scans
//! and change-feed walks, off and on in turn in this one process
//! (`engine::testing::set_leaf_checks`): filters and ORDER BY from the index, the change feed.
//! Last, the index's term counters off and on in turn (`engine::testing::set_term_counts`):
//! index ranges compared with them, and creates that keep them (`SCAN_AUDIT=terms` runs only
//! this part).

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
    if std::env::var("SCAN_AUDIT").is_ok_and(|v| v == "terms") {
        return term_counts(&rt, &engine);
    }
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

/// Times `f` with the term counters off and on, alternately (`rounds` of each); the medians.
fn counters_off_and_on(rounds: usize, mut f: impl FnMut(bool)) -> (f64, f64) {
    let (mut off, mut on) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        for (counters, times) in [(false, &mut off), (true, &mut on)] {
            engine::testing::set_term_counts(counters);
            let started = Instant::now();
            f(counters);
            times.push(started.elapsed());
        }
    }
    engine::testing::set_term_counts(true);
    let mid = |t: &mut Vec<Duration>| {
        t.sort();
        t[t.len() / 2].as_secs_f64() * 1e3
    };
    (mid(&mut off), mid(&mut on))
}

/// Items whose `cat` repeats (7 values) and `k` too (100 values), 10 logical partitions: a
/// logical partition's share of a value (~700 of the ~1 800 entries its physical partition holds,
/// past the 1 024 below which a routed equality used to read the value's whole range), and a
/// second equality missing for most items the first finds.
fn paired(i: u64) -> Value {
    json!({"id": format!("i{i}"), "pk": format!("p{}", i % 10), "cat": i % 7, "k": i % 100, "body": "x".repeat(300)})
}

fn customer(i: u64) -> Value {
    json!({
        "id": format!("c{i}"), "customerId": format!("u{}", i % 1000), "type": "customer",
        "title": "Mr.", "firstName": format!("First{i}"), "lastName": format!("Last{}", i % 500),
        "email": format!("user{i}@example.com"), "phone": ["555-0100", "555-0101"],
        "creationDate": "2026-11-27T00:00:00Z",
        "addresses": [{"addressLine1": format!("{i} Main St"), "city": "Seattle",
                       "state": "WA", "country": "US", "zipCode": "98101"}],
        "password": {"hash": "x".repeat(40), "salt": "y".repeat(16)}, "body": "z".repeat(300)
    })
}

/// The term counters' cost: index ranges compared with them (a container indexing `/n` only,
/// 50 000 items: one distinct value per entry, the counters' worst case), and creates keeping
/// them (every path indexed, ~20 terms a customer; 64 writers × 20 creates a round, each
/// durable, as `core`'s `create_64_concurrent`). The RU of a create, off and on, must agree.
fn term_counts(rt: &tokio::runtime::Runtime, engine: &Engine) {
    let n = 50_000u64;
    let (ix, customers, pair) = rt.block_on(async {
        let db = engine.create_database_if_not_exists("terms").await.unwrap();
        let only_n = json!({
            "includedPaths": [{"path": "/n/?"}],
            "excludedPaths": [{"path": "/*"}]
        });
        let ix = db
            .create_container(
                ContainerProperties::new("ix", "/pk")
                    .with_initial_partitions(4)
                    .with_indexing_policy(only_n),
            )
            .await
            .unwrap();
        common::load(&ix, 0..n, item).await;
        let customers = db
            .create_container(ContainerProperties::new("customers", "/customerId"))
            .await
            .unwrap();
        let pair = db
            .create_container(
                ContainerProperties::new("pair", "/pk")
                    .with_initial_partitions(4)
                    .with_indexing_policy(json!({
                        "includedPaths": [{"path": "/cat/?"}, {"path": "/k/?"}],
                        "excludedPaths": [{"path": "/*"}]
                    })),
            )
            .await
            .unwrap();
        common::load(&pair, 0..n, paired).await;
        (ix, customers, pair)
    });
    let query_in = |c: &ContainerClient, sql: &str, pk: Option<&str>| {
        let mut opts = QueryOptions {
            max_item_count: Some(1000),
            partition_key: pk.map(Into::into),
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
    for (name, sql, pk, rows, rounds) in [
        (
            "c.id WHERE c.cat = 3 in one logical partition (715 rows, pages of 1000)",
            "SELECT VALUE c.id FROM c WHERE c.cat = 3",
            Some("p3"),
            715,
            21,
        ),
        (
            "c.id WHERE c.cat = 3 AND c.k = 7 (7 143 found by cat, 7 072 of them lack k = 7: each read)",
            "SELECT VALUE c.id FROM c WHERE c.cat = 3 AND c.k = 7",
            None,
            71,
            9,
        ),
        (
            "c.id WHERE c.k = 7 AND c.cat = 3 (500 found by k, 429 lack cat = 3: each read)",
            "SELECT VALUE c.id FROM c WHERE c.k = 7 AND c.cat = 3",
            None,
            71,
            21,
        ),
    ] {
        let (off, on) =
            counters_off_and_on(rounds, |_| assert_eq!(query_in(&pair, sql, pk), rows));
        println!(
            "{name}: checks off {off:.2} ms, on {on:.2} ms, on/off {:.3}",
            on / off
        );
    }
    let query_all = |sql: &str| {
        let mut opts = QueryOptions {
            max_item_count: Some(1000),
            ..Default::default()
        };
        let mut rows = 0;
        loop {
            let page = rt
                .block_on(ix.query_items::<Value>(sql, engine::NO_PARAMS, opts.clone()))
                .unwrap();
            rows += page.items.len();
            match page.continuation {
                Some(next) => opts.continuation = Some(next),
                None => return rows,
            }
        }
    };
    for (name, sql, rows, rounds) in [
        (
            "COUNT(1) WHERE c.n >= 0 (50 000 entries and counters, no item read)",
            "SELECT VALUE COUNT(1) FROM c WHERE c.n >= 0",
            1,
            9,
        ),
        (
            "c.id WHERE c.n >= 10000 AND c.n < 30000, pages of 1000",
            "SELECT VALUE c.id FROM c WHERE c.n >= 10000 AND c.n < 30000",
            20_000,
            9,
        ),
        (
            "c.id WHERE c.n = 777 (one entry)",
            "SELECT VALUE c.id FROM c WHERE c.n = 777",
            1,
            51,
        ),
        (
            "c.id WHERE c.n IN (5 values)",
            "SELECT VALUE c.id FROM c WHERE c.n IN (1, 100, 1000, 10000, 40000)",
            5,
            51,
        ),
    ] {
        let (off, on) = counters_off_and_on(rounds, |_| assert_eq!(query_all(sql), rows));
        println!(
            "{name}: term counters off {off:.2} ms, on {on:.2} ms, on/off {:.3}",
            on / off
        );
    }
    let round = std::sync::atomic::AtomicU64::new(0);
    let charges = std::sync::Mutex::new((Vec::new(), Vec::new()));
    let (off, on) = counters_off_and_on(15, |counted| {
        let r = round.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let total = rt.block_on(async {
            let mut set = tokio::task::JoinSet::new();
            for w in 0..64u64 {
                let c = customers.clone();
                set.spawn(async move {
                    let mut ru = 0.0;
                    for k in 0..20u64 {
                        let i = (r * 64 + w) * 20 + k;
                        ru += c
                            .create_item(&customer(i), None, None)
                            .await
                            .unwrap()
                            .request_charge;
                    }
                    ru
                });
            }
            let mut total = 0.0;
            while let Some(ru) = set.join_next().await {
                total += ru.unwrap();
            }
            total
        });
        let mut c = charges.lock().unwrap();
        if counted {
            c.1.push(total)
        } else {
            c.0.push(total)
        }
    });
    let (ru_off, ru_on) = charges.into_inner().unwrap();
    let per = |v: &[f64]| v.iter().sum::<f64>() / (v.len() as f64 * 1280.0);
    println!(
        "1 280 creates, 64 writers (every path indexed): term counters off {off:.1} ms, on {on:.1} ms, on/off {:.3}; RU per create off {:.2}, on {:.2}",
        on / off,
        per(&ru_off),
        per(&ru_on)
    );
}
