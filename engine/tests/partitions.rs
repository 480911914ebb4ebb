//! Physical partitions: splits under concurrent writes, throughput budgets and 429s.

mod common;

use std::collections::HashSet;
use std::time::Duration;

use engine::{ContainerProperties, EngineOptions, RetryOptions};
use serde_json::{json, Value};

#[test]
fn partitions_split_online_under_concurrent_writes_and_lose_nothing() {
    common::rt().block_on(async {
        // Split at 64 KB so a few hundred small items force several splits while writers run.
        let opts = EngineOptions {
            split_threshold_bytes: 64 * 1024,
            ..Default::default()
        };
        let t = common::open(opts);
        let c = common::container(&t, ContainerProperties::new("orders", "/customerId")).await;
        let mut writers = Vec::new();
        for w in 0..8 {
            let c = c.clone();
            writers.push(tokio::spawn(async move {
                let mut ids = Vec::new();
                for i in 0..150 {
                    let id = format!("o{w}-{i}");
                    let customer = format!("cust{}", (w * 150 + i) % 97);
                    c.create_item(
                        &json!({"id": id, "customerId": customer, "pad": "x".repeat(200)}),
                        None,
                        None,
                    )
                    .await
                    .expect("create during split");
                    // Reads keep working while partitions split.
                    c.read_item::<Value>(&id, customer.as_str(), None)
                        .await
                        .expect("read during split");
                    ids.push((id, customer));
                }
                ids
            }));
        }
        let mut all = Vec::new();
        for w in writers {
            all.extend(w.await.unwrap());
        }
        // The writer splits after it acknowledged the write that tipped a partition over: the
        // map is the one to compare once it stops changing.
        let mut before = c.partitions().unwrap();
        let mut unchanged = 0;
        for _ in 0..100 {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            let now = c.partitions().unwrap();
            unchanged = if now.len() == before.len() {
                unchanged + 1
            } else {
                0
            };
            before = now;
            if unchanged == 3 {
                break;
            }
        }
        assert!(
            before.len() >= 4,
            "expected several splits, got {} partitions",
            before.len()
        );
        for (id, customer) in &all {
            c.read_item::<Value>(id, customer.as_str(), None)
                .await
                .unwrap();
        }
        // Counters add up, every logical partition sits in exactly one physical partition.
        let stats = c.stats(100).await.unwrap();
        assert_eq!(stats.items, all.len() as u64);
        let mut seen = HashSet::new();
        for p in &stats.partitions {
            for lp in &p.largest_logical_partitions {
                assert!(
                    seen.insert(lp.partition_key.to_string()),
                    "{} in two partitions",
                    lp.partition_key
                );
            }
        }
        assert_eq!(seen.len(), 97);
        let per_partition_items: u64 = stats
            .partitions
            .iter()
            .map(|p| {
                p.largest_logical_partitions
                    .iter()
                    .map(|l| l.items)
                    .sum::<u64>()
            })
            .sum();
        assert_eq!(per_partition_items, all.len() as u64);
        assert!(stats.partitions.iter().any(|p| p.parent.is_some()));
        // The partition map survives a reopen.
        drop(c);
        let path = t.dir.path().to_path_buf();
        let common::TestEngine { engine, dir } = t;
        drop(engine);
        let engine = engine::Engine::open(&path, EngineOptions::default()).unwrap();
        let c = engine.database("test").container("orders");
        let ranges = |ps: Vec<engine::PhysicalPartitionInfo>| {
            ps.iter()
                .map(|p| (p.id, p.range_start, p.items, p.bytes, p.lsn))
                .collect::<Vec<_>>()
        };
        assert_eq!(ranges(c.partitions().unwrap()), ranges(before));
        for (id, customer) in all.iter().step_by(7) {
            c.read_item::<Value>(id, customer.as_str(), None)
                .await
                .unwrap();
        }
        drop(dir);
    });
}

#[test]
fn a_single_hot_logical_partition_is_not_split() {
    common::rt().block_on(async {
        let opts = EngineOptions {
            split_threshold_bytes: 16 * 1024,
            ..Default::default()
        };
        let t = common::open(opts);
        let c = common::container(&t, ContainerProperties::new("feed", "/type")).await;
        for i in 0..100 {
            c.create_item(
                &json!({"id": format!("{i}"), "type": "post", "pad": "x".repeat(300)}),
                None,
                None,
            )
            .await
            .unwrap();
        }
        assert_eq!(c.partitions().unwrap().len(), 1);
    });
}

#[test]
fn hot_partition_gets_429_with_retry_after_and_others_do_not() {
    common::rt().block_on(async {
        let opts = EngineOptions {
            retry: RetryOptions {
                max_retry_attempts_on_throttled: 0,
                max_retry_wait: Duration::ZERO,
            },
            ..Default::default()
        };
        let t = common::open(opts);
        // 400 RU/s over 4 partitions: 100 RU/s each.
        let c = common::container(
            &t,
            ContainerProperties::new("c", "/pk")
                .with_throughput(400)
                .with_initial_partitions(4),
        )
        .await;
        let mut throttled = None;
        for i in 0..200 {
            match c
                .create_item(&json!({"id": format!("{i}"), "pk": "hot"}), None, None)
                .await
            {
                Ok(_) => {}
                Err(e) => {
                    throttled = Some((i, e));
                    break;
                }
            }
        }
        let (after, e) = throttled.expect("a hot partition must be throttled");
        assert_eq!(e.status_code(), 429, "{e}");
        assert!(
            after >= 10,
            "the first second of budget is usable ({after} writes)"
        );
        let wait = e.retry_after().unwrap();
        assert!(
            wait > Duration::ZERO && wait <= Duration::from_secs(1),
            "{wait:?}"
        );
        // A logical partition on another physical partition is not throttled.
        let hot = c.partitions_of(&"hot".into()).unwrap()[0];
        let cold = (0..1000)
            .map(|i| format!("k{i}"))
            .find(|k| c.partitions_of(&k.as_str().into()).unwrap()[0] != hot)
            .unwrap();
        c.create_item(&json!({"id": "x", "pk": cold}), None, None)
            .await
            .unwrap();
        let loads = c.stats(1).await.unwrap();
        let hot_stats = loads.partitions.iter().find(|p| p.id == hot).unwrap();
        assert!(hot_stats.load.as_ref().unwrap().throttled >= 1);
        assert_eq!(
            hot_stats.load.as_ref().unwrap().budget_ru_per_s,
            Some(100.0)
        );
        // A fan-out visits the hot partition too, as a request of its own: it is throttled
        // (the hot partition is driven into debt again first); the same query confined to the
        // cold partition is not.
        // Large writes: the last one admitted leaves a debt of tens of RU (hundreds of ms at
        // 100 RU/s), so the query below meets it however long it takes to be scheduled.
        let pad = "x".repeat(20_000);
        let mut admitted = 0;
        for i in 0..400 {
            let doc = json!({"id": format!("again{i}"), "pk": "hot", "pad": pad});
            match c.create_item(&doc, None, None).await {
                Ok(_) => admitted += 1,
                Err(_) if admitted > 0 => break,
                // Still in debt from above: wait it out, then write until throttled.
                Err(e) => tokio::time::sleep(e.retry_after().unwrap()).await,
            }
        }
        let e = c
            .query_items::<serde_json::Value>(
                "SELECT * FROM c",
                engine::NO_PARAMS,
                Default::default(),
            )
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 429, "{e}");
        let opts = engine::QueryOptions {
            partition_key: Some(cold.as_str().into()),
            ..Default::default()
        };
        c.query_items::<serde_json::Value>("SELECT * FROM c", engine::NO_PARAMS, opts)
            .await
            .unwrap();
    });
}

#[test]
fn the_client_retries_429s_like_the_sdks() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default()); // default: 9 retries, 30 s
        let c = common::container(
            &t,
            ContainerProperties::new("c", "/pk").with_throughput(100),
        )
        .await;
        let started = std::time::Instant::now();
        let mut retries = 0;
        for i in 0..40 {
            let r = c
                .create_item(&json!({"id": format!("{i}"), "pk": "p"}), None, None)
                .await
                .unwrap();
            retries += r.diagnostics.throttle_retries;
        }
        // 40 writes of ~6 RU = ~240 RU against 100 RU/s: they all succeed, by waiting.
        assert!(retries > 0, "expected throttling to be absorbed by retries");
        assert!(
            started.elapsed() >= Duration::from_millis(900),
            "{:?}",
            started.elapsed()
        );
        // Raising the throughput lifts the throttling.
        t.engine
            .database("test")
            .replace_throughput("c", None)
            .await
            .unwrap();
        for i in 40..100 {
            let r = c
                .create_item(&json!({"id": format!("{i}"), "pk": "p"}), None, None)
                .await
                .unwrap();
            assert_eq!(r.diagnostics.throttle_retries, 0);
        }
    });
}
