//! The change-feed processor: bootstraps a view from the beginning, resumes from checkpoints,
//! retries failing batches, wakes on commit, follows splits, and estimates its lag.

mod common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use engine::{ContainerClient, ContainerProperties, EngineOptions};
use parking_lot::Mutex;
use serde_json::{json, Value};

/// Waits (bounded) until `f` holds.
async fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    for _ in 0..500 {
        if f() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("timed out waiting for {what}");
}

async fn view_of(c: &ContainerClient) -> HashMap<String, i64> {
    let mut out = HashMap::new();
    let mut cont: Option<String> = None;
    loop {
        let page = c
            .read_all_items::<Value>(500, cont.as_deref())
            .await
            .unwrap();
        for d in page.items {
            out.insert(
                d["id"].as_str().unwrap().to_owned(),
                d["v"].as_i64().unwrap(),
            );
        }
        match page.continuation {
            Some(next) => cont = Some(next),
            None => return out,
        }
    }
}

#[test]
fn a_view_bootstraps_from_the_beginning_and_resumes_after_restart() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions { initial_partitions: 3, ..Default::default() });
        let source = common::container(&t, ContainerProperties::new("posts", "/postId")).await;
        let view = common::container(&t, ContainerProperties::new("byUser", "/userId")).await;
        let leases = common::container(&t, ContainerProperties::new("leases", "/processor")).await;
        for i in 0..50 {
            source.create_item(&json!({"id": format!("p{i}"), "postId": format!("p{i}"), "userId": format!("u{}", i % 4), "v": 1}), None, None).await.unwrap();
        }
        let build = || {
            let view = view.clone();
            source
                .change_feed_processor("copyPosts")
                .lease_container(leases.clone())
                // A long poll interval: only the commit signal can make delivery prompt.
                .poll_interval(Duration::from_secs(3600))
                .handler(move |changes: Vec<Value>| {
                    let view = view.clone();
                    async move {
                        for d in changes {
                            view.upsert_item(&d, None, None).await?;
                        }
                        Ok::<_, engine::Error>(())
                    }
                })
                .build()
                .unwrap()
        };
        let p = build();
        p.start().await.unwrap();
        let v = view.clone();
        eventually("bootstrap", || item_count(&v) == 50).await;

        // Live changes arrive through the commit signal.
        source.upsert_item(&json!({"id": "p3", "postId": "p3", "userId": "u3", "v": 2}), None, None).await.unwrap();
        let v = view.clone();
        eventually("live update", || read_v(&v, "p3", "u3") == Some(2)).await;
        p.stop().await;

        // While stopped, the lag estimator sees the pending changes.
        for i in 50..60 {
            source.create_item(&json!({"id": format!("p{i}"), "postId": format!("p{i}"), "userId": "u1", "v": 1}), None, None).await.unwrap();
        }
        let lag: u64 = p.estimate_lag().await.unwrap().iter().map(|l| l.pending).sum();
        assert_eq!(lag, 10);

        // A new processor of the same name resumes from the checkpoints, not from the beginning.
        let p2 = build();
        p2.start().await.unwrap();
        let v = view.clone();
        eventually("resume", || item_count(&v) == 60).await;
        assert!(p2.delivered() <= 10 + 3, "resumed from checkpoints, delivered {}", p2.delivered());
        p2.stop().await;
        let lag: u64 = p2.estimate_lag().await.unwrap().iter().map(|l| l.pending).sum();
        assert_eq!(lag, 0, "stopping waits for the last checkpoint");
        assert_eq!(view_of(&view).await.len(), 60);
    });
}

/// The items the container's counters record (a synchronous walk: `eventually` polls it).
fn item_count(c: &ContainerClient) -> usize {
    c.count_items(None).unwrap().expected as usize
}

fn read_v(c: &ContainerClient, id: &str, pk: &str) -> Option<i64> {
    c.read_item_raw(id, &pk.into())
        .ok()
        .and_then(|r| serde_json::from_slice::<Value>(&r.resource?).ok()?["v"].as_i64())
}

#[test]
fn a_failing_batch_is_retried_and_reported_never_skipped() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let source = common::container(&t, ContainerProperties::new("s", "/pk")).await;
        let leases = common::container(&t, ContainerProperties::new("leases", "/processor")).await;
        for i in 0..5 {
            source
                .create_item(&json!({"id": format!("{i}"), "pk": "p"}), None, None)
                .await
                .unwrap();
        }
        let attempts = Arc::new(AtomicU32::new(0));
        let got = Arc::new(Mutex::new(Vec::new()));
        let reported = Arc::new(Mutex::new(Vec::new()));
        let (a, g, r) = (attempts.clone(), got.clone(), reported.clone());
        let p = source
            .change_feed_processor("flaky")
            .lease_container(leases.clone())
            .max_backoff(Duration::from_millis(50))
            .on_error(move |f| r.lock().push((f.attempt, f.error.clone())))
            .handler(move |changes: Vec<Value>| {
                let (a, g) = (a.clone(), g.clone());
                async move {
                    if a.fetch_add(1, Ordering::SeqCst) < 3 {
                        return Err(format!(
                            "downstream unavailable ({} changes)",
                            changes.len()
                        ));
                    }
                    g.lock().extend(
                        changes
                            .into_iter()
                            .map(|d| d["id"].as_str().unwrap().to_owned()),
                    );
                    Ok(())
                }
            })
            .build()
            .unwrap();
        p.start().await.unwrap();
        let g = got.clone();
        eventually("delivery after failures", || g.lock().len() == 5).await;
        p.stop().await;
        assert_eq!(attempts.load(Ordering::SeqCst), 4);
        let reported = reported.lock().clone();
        assert_eq!(
            reported.iter().map(|r| r.0).collect::<Vec<_>>(),
            vec![1, 2, 3]
        );
        assert!(reported[0].1.contains("downstream unavailable"));
        assert_eq!(p.failures().0, 3);
        let mut ids = got.lock().clone();
        ids.sort();
        assert_eq!(ids, ["0", "1", "2", "3", "4"]);
        // A lease container with the wrong partition key is refused.
        let wrong = common::container(&t, ContainerProperties::new("wrong", "/id")).await;
        let e = source
            .change_feed_processor("x")
            .lease_container(wrong)
            .handler(|_: Vec<Value>| async { Ok::<_, String>(()) })
            .build();
        assert_eq!(e.err().unwrap().status_code(), 400);
    });
}

#[test]
fn leases_follow_partition_splits_and_nothing_is_lost() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions { split_threshold_bytes: 24 * 1024, ..Default::default() });
        let source = common::container(&t, ContainerProperties::new("s", "/pk")).await;
        let leases = common::container(&t, ContainerProperties::new("leases", "/processor")).await;
        let got = Arc::new(Mutex::new(HashMap::<String, u64>::new()));
        let g = got.clone();
        let p = source
            .change_feed_processor("splits")
            .lease_container(leases.clone())
            .max_items_per_batch(20)
            .handler(move |changes: Vec<Value>| {
                let g = g.clone();
                async move {
                    let mut g = g.lock();
                    for d in changes {
                        // Order per logical partition: LSNs of one pk only grow.
                        let lsn = d["_lsn"].as_u64().unwrap();
                        let key = d["id"].as_str().unwrap().to_owned();
                        g.insert(key, lsn);
                    }
                    Ok::<_, String>(())
                }
            })
            .build()
            .unwrap();
        p.start().await.unwrap();
        for i in 0..400 {
            source.create_item(&json!({"id": format!("{i}"), "pk": format!("k{}", i % 37), "pad": "q".repeat(300)}), None, None).await.unwrap();
        }
        let g = got.clone();
        eventually("all changes across splits", || g.lock().len() == 400).await;
        assert!(source.partitions().unwrap().len() >= 3, "the test needs splits");
        // The checkpoint follows the handler: wait for it, then no change is pending.
        let mut lags = p.estimate_lag().await.unwrap();
        for _ in 0..250 {
            if lags.iter().all(|l| l.pending == 0) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
            lags = p.estimate_lag().await.unwrap();
        }
        assert!(lags.len() >= 3, "leases were split with the partitions: {}", lags.len());
        assert_eq!(lags.iter().map(|l| l.pending).sum::<u64>(), 0);
        p.stop().await;
    });
}

/// A commit wakes every worker of the container, but only the lease whose partition committed
/// reads: the others would pay a charged, empty read for every write (35 per write on the
/// blog's `posts`).
#[test]
fn a_commit_sends_a_read_only_to_the_lease_of_its_partition() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions { initial_partitions: 8, ..Default::default() });
        let source = common::container(&t, ContainerProperties::new("posts", "/postId")).await;
        let leases = common::container(&t, ContainerProperties::new("leases", "/processor")).await;
        let delivered = Arc::new(AtomicU32::new(0));
        let counter = delivered.clone();
        let p = source
            .change_feed_processor("count")
            .lease_container(leases.clone())
            .poll_interval(Duration::from_secs(3600))
            .handler(move |changes: Vec<Value>| {
                let counter = counter.clone();
                async move {
                    counter.fetch_add(changes.len() as u32, Ordering::SeqCst);
                    Ok::<_, engine::Error>(())
                }
            })
            .build()
            .unwrap();
        p.start().await.unwrap();
        let requests = |c: &ContainerClient| -> Vec<u64> {
            c.partitions().unwrap().iter().map(|p| p.load.requests).collect()
        };
        // Each lease's first read, then quiet.
        let s = source.clone();
        eventually("first reads", || requests(&s).iter().all(|&n| n >= 1)).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        let before = requests(&source);

        for i in 0..20 {
            let post = json!({"id": format!("c{i}"), "postId": "hot", "v": 1});
            source.create_item(&post, None, None).await.unwrap();
        }
        eventually("delivery", || delivered.load(Ordering::SeqCst) == 20).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let after = requests(&source);
        p.stop().await;

        let grew: Vec<usize> = (0..after.len()).filter(|&i| after[i] > before[i]).collect();
        assert_eq!(
            grew.len(),
            1,
            "requests per partition before {before:?}, after {after:?}: only the written partition reads"
        );
    });
}
