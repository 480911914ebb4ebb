//! Hierarchical (MultiHash) partition keys (issue 23): full keys for point operations, prefixes
//! that visit only the partitions their range overlaps, splits along the lower levels.

mod common;

use std::collections::HashSet;

use engine::{
    ChangeFeedOptions, ContainerClient, ContainerProperties, EngineOptions, PartitionKey,
    QueryOptions, NO_PARAMS,
};
use serde_json::{json, Value};

fn key(values: &[&str]) -> PartitionKey {
    let values: Vec<Value> = values.iter().map(|v| json!(v)).collect();
    PartitionKey::from_json_values(&values, "pk").unwrap()
}

/// 10 tenants × 10 users × 5 sessions, two items per session.
async fn sessions(t: &common::TestEngine, partitions: u32) -> ContainerClient {
    let c = common::container(
        t,
        ContainerProperties::hierarchical("sessions", &["/tenantId", "/userId", "/sessionId"])
            .with_initial_partitions(partitions),
    )
    .await;
    let mut tasks = tokio::task::JoinSet::new();
    for tenant in 0..10 {
        let c = c.clone();
        tasks.spawn(async move {
            for user in 0..10 {
                for session in 0..5 {
                    for n in 0..2 {
                        let doc = json!({
                            "id": format!("e{n}"), "tenantId": format!("t{tenant}"),
                            "userId": format!("u{user}"), "sessionId": format!("s{session}"),
                        });
                        c.create_item(&doc, None, None).await.unwrap();
                    }
                }
            }
        });
    }
    while let Some(r) = tasks.join_next().await {
        r.unwrap();
    }
    c
}

#[test]
fn point_operations_take_the_full_key() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = sessions(&t, 4).await;
        let r = c
            .read_item::<Value>("e1", key(&["t3", "u2", "s4"]), None)
            .await
            .unwrap();
        assert_eq!(r.resource.unwrap()["sessionId"], "s4");
        // The same id lives in every session: the full key tells them apart.
        let def = c.read_container().unwrap();
        assert_eq!(def.partition_key().kind, "MultiHash");
        // A prefix is not enough for a point read, and the error names the paths.
        let err = c
            .read_item::<Value>("e1", key(&["t3", "u2"]), None)
            .await
            .unwrap_err();
        assert_eq!(err.status_code(), 400, "{err}");
        assert!(
            err.to_string().contains("/tenantId, /userId, /sessionId"),
            "{err}"
        );
        // A key named for a write must be the item's.
        let doc = json!({"id": "x", "tenantId": "t1", "userId": "u1", "sessionId": "s1"});
        let err = c
            .create_item(&doc, Some(key(&["t1", "u1", "s2"])), None)
            .await
            .unwrap_err();
        assert_eq!(err.status_code(), 400, "{err}");
        c.create_item(&doc, Some(key(&["t1", "u1", "s1"])), None)
            .await
            .unwrap();
        // A patch may not move an item to another key.
        let err = c
            .patch_item::<Value>(
                "x",
                key(&["t1", "u1", "s1"]),
                &[engine::PatchOperation::set("/userId", json!("u9"))],
                None,
            )
            .await
            .unwrap_err();
        assert_eq!(err.status_code(), 400, "{err}");
        // A batch runs in one full key; a prefix is refused before anything is written.
        let pair =
            |id: &str| json!({"id": id, "tenantId": "t9", "userId": "u9", "sessionId": "s9"});
        let err = c
            .execute_batch(
                engine::TransactionalBatch::new(key(&["t9", "u9"])).create_item(&pair("b1")),
            )
            .await
            .unwrap_err();
        assert_eq!(err.status_code(), 400, "{err}");
        let r = c
            .execute_batch(
                engine::TransactionalBatch::new(key(&["t9", "u9", "s9"]))
                    .create_item(&pair("b1"))
                    .create_item(&pair("b2")),
            )
            .await
            .unwrap();
        assert!(r.is_success());
        // So does a stored procedure: a JavaScript one counting its partition's items.
        let count = engine::JavaScript::new(
            "function count() { var c = getContext().getCollection(); \
             c.queryDocuments(c.getSelfLink(), 'SELECT VALUE COUNT(1) FROM c', function (e, r) { \
             if (e) throw e; getContext().getResponse().setBody(r[0]); }); }",
        )
        .unwrap();
        c.scripts().upsert_stored_procedure("count", count).unwrap();
        let n = c
            .scripts()
            .execute_stored_procedure::<Value>("count", key(&["t9", "u9", "s9"]), &[])
            .await
            .unwrap();
        assert_eq!(n.resource, json!(2));
        let err = c
            .scripts()
            .execute_stored_procedure::<Value>("count", key(&["t9"]), &[])
            .await
            .unwrap_err();
        assert_eq!(err.status_code(), 400, "{err}");
        // An item without a path is stored under a missing value, as in Cosmos DB.
        let partial = json!({"id": "p", "tenantId": "t1", "userId": "u1"});
        c.create_item(&partial, None, None).await.unwrap();
        let none = PartitionKey::Hierarchical(vec!["t1".into(), "u1".into(), PartitionKey::None]);
        c.read_item::<Value>("p", none, None).await.unwrap();
    });
}

#[test]
fn queries_route_on_a_full_key_or_a_prefix() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = sessions(&t, 16).await;
        let run = |sql: &'static str, pk: Option<PartitionKey>| {
            let c = c.clone();
            async move {
                let options = QueryOptions {
                    partition_key: pk,
                    ..Default::default()
                };
                c.query_all::<Value>(sql, NO_PARAMS, options).await.unwrap()
            }
        };
        // A full key: one logical partition.
        let r = run("SELECT * FROM c", Some(key(&["t3", "u2", "s4"]))).await;
        assert_eq!(r.items.len(), 2);
        let m = r.query_metrics.unwrap();
        assert_eq!(m.partitions_visited, 1, "{m:?}");
        assert_eq!(m.retrieved_document_count, 2, "{m:?}");
        // A prefix of one or two values: its items, from the partitions its range overlaps.
        for (prefix, n) in [(vec!["t3"], 100), (vec!["t3", "u2"], 10)] {
            let pk = key(&prefix);
            let spanned = c.partitions_of(&pk).unwrap().len();
            let r = run("SELECT * FROM c", Some(pk)).await;
            assert_eq!(r.items.len(), n, "{prefix:?}");
            assert!(r.items.iter().all(|i| i["tenantId"] == "t3"));
            let m = r.query_metrics.unwrap();
            assert_eq!(m.partitions_visited, spanned, "{prefix:?}: {m:?}");
            assert!(m.plan.contains("key prefix range"), "{}", m.plan);
            assert!(
                spanned < 16,
                "a prefix spans few of 16 partitions: {spanned}"
            );
            // Only the prefix's share of the partition is read, not the whole partition.
            assert!(m.retrieved_document_count < 200, "{prefix:?}: {m:?}");
        }
        // The filter's equalities on the leading paths route the same way.
        let r = run(
            "SELECT * FROM c WHERE c.tenantId = 't3' AND c.userId = 'u2'",
            None,
        )
        .await;
        assert_eq!(r.items.len(), 10);
        assert!(r.query_metrics.unwrap().partitions_visited < 16);
        let r = run(
            "SELECT * FROM c WHERE c.sessionId = 's4' AND c.userId = 'u2' AND c.tenantId = 't3'",
            None,
        )
        .await;
        assert_eq!(r.items.len(), 2);
        assert_eq!(r.query_metrics.unwrap().partitions_visited, 1);
        // Not a prefix (the first path is free): every partition.
        let r = run("SELECT * FROM c WHERE c.userId = 'u2'", None).await;
        assert_eq!(r.items.len(), 100);
        assert_eq!(r.query_metrics.unwrap().partitions_visited, 16);
        // A prefix with more values than paths is a 400.
        let err = c
            .query_all::<Value>(
                "SELECT * FROM c",
                NO_PARAMS,
                QueryOptions {
                    partition_key: Some(PartitionKey::Hierarchical(vec![
                        "a".into(),
                        "b".into(),
                        "c".into(),
                        "d".into(),
                    ])),
                    ..Default::default()
                },
            )
            .await
            .unwrap_err();
        assert_eq!(err.status_code(), 400, "{err}");
    });
}

#[test]
fn the_change_feed_of_a_prefix_holds_only_its_items() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = sessions(&t, 8).await;
        for (prefix, n) in [(vec!["t5"], 100), (vec!["t5", "u0"], 10)] {
            let mut options = ChangeFeedOptions {
                partition_key: Some(key(&prefix)),
                max_item_count: 1000,
                ..Default::default()
            };
            let mut seen = Vec::new();
            loop {
                let page = c.change_feed(&options).await.unwrap();
                if page.not_modified() {
                    break;
                }
                seen.extend(page.items);
                options.start = engine::ChangeFeedStart::Continuation(page.continuation);
            }
            assert_eq!(seen.len(), n, "{prefix:?}");
            assert!(seen.iter().all(|i| i["tenantId"] == "t5"));
            if prefix.len() == 2 {
                assert!(seen.iter().all(|i| i["userId"] == "u0"));
            }
        }
    });
}

/// One tenant grows past a partition's size: the partition splits inside the tenant's range
/// (along its users and sessions), and a prefix query paged across the splits returns every
/// item once.
#[test]
fn a_tenant_splits_across_partitions_under_a_paged_prefix_query() {
    common::rt().block_on(async {
        let opts = EngineOptions {
            split_threshold_bytes: 64 * 1024,
            ..Default::default()
        };
        let t = common::open(opts);
        let c = common::container(
            &t,
            ContainerProperties::hierarchical("events", &["/tenantId", "/userId", "/sessionId"])
                .with_initial_partitions(1),
        )
        .await;
        let write = |tenant: &'static str, from: usize, to: usize| {
            let c = c.clone();
            async move {
                for i in from..to {
                    let doc = json!({
                        "id": format!("e{i}"), "tenantId": tenant, "userId": format!("u{}", i % 40),
                        "sessionId": format!("s{}", i % 7), "pad": "x".repeat(300),
                    });
                    c.create_item(&doc, None, None).await.unwrap();
                }
            }
        };
        write("big", 0, 150).await;
        write("small", 0, 20).await;
        let mut options = QueryOptions {
            partition_key: Some(key(&["big"])),
            max_item_count: Some(25),
            ..Default::default()
        };
        let mut seen = HashSet::new();
        let first = c
            .query_items::<Value>("SELECT c.id FROM c", NO_PARAMS, options.clone())
            .await
            .unwrap();
        seen.extend(
            first
                .items
                .iter()
                .map(|i| i["id"].as_str().unwrap().to_owned()),
        );
        // The tenant grows to several partitions while the query is between pages.
        write("big", 150, 600).await;
        let partitions = c.partitions().unwrap().len();
        assert!(partitions >= 4, "{partitions} partitions");
        let spanned = c.partitions_of(&key(&["big"])).unwrap().len();
        assert!(
            spanned >= 2,
            "the tenant spans several partitions: {spanned}"
        );
        options.continuation = first.continuation;
        while options.continuation.is_some() {
            let page = c
                .query_items::<Value>("SELECT c.id FROM c", NO_PARAMS, options.clone())
                .await
                .unwrap();
            for i in &page.items {
                assert!(
                    seen.insert(i["id"].as_str().unwrap().to_owned()),
                    "{i} returned twice"
                );
            }
            options.continuation = page.continuation;
        }
        // Every item written before the query began is there, once; later ones may be.
        for i in 0..150 {
            assert!(seen.contains(&format!("e{i}")), "e{i} missing");
        }
        // The small tenant's items are not the big one's.
        let r = c
            .query_all::<Value>(
                "SELECT VALUE COUNT(1) FROM c",
                NO_PARAMS,
                QueryOptions {
                    partition_key: Some(key(&["small"])),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(r.items, vec![json!(20)]);
        // A prefix query after the splits visits the tenant's partitions, not all of them.
        let r = c
            .query_all::<Value>(
                "SELECT c.id FROM c",
                NO_PARAMS,
                QueryOptions {
                    partition_key: Some(key(&["big"])),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(r.items.len(), 600);
        assert_eq!(r.query_metrics.unwrap().partitions_visited, spanned);
    });
}

/// The logical partition limit (20 GB in Cosmos DB) holds per full key: one tenant may hold far
/// more than a logical partition, spread over its users, and one user still hits the 403.
#[test]
fn the_logical_partition_limit_is_per_full_key() {
    common::rt().block_on(async {
        let opts = EngineOptions {
            max_logical_partition_bytes: 4096,
            ..Default::default()
        };
        let t = common::open(opts);
        let c = common::container(
            &t,
            ContainerProperties::hierarchical("c", &["/tenantId", "/userId"]),
        )
        .await;
        let blob = "x".repeat(1000);
        // 30 KB for the tenant, 3 KB per user: under the limit for every key.
        for i in 0..30 {
            let doc = json!({"id": format!("i{i}"), "tenantId": "big", "userId": format!("u{}", i % 10), "b": blob});
            c.create_item(&doc, None, None).await.unwrap();
        }
        let err = loop {
            let n = next_extra_id();
            let doc = json!({"id": n, "tenantId": "big", "userId": "u0", "b": blob});
            if let Err(e) = c.create_item(&doc, None, None).await {
                break e;
            }
        };
        assert_eq!(err.status_code(), 403, "{err}");
        assert_eq!(err.sub_status(), Some(1014));
    });
}

fn next_extra_id() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    format!("extra{}", N.fetch_add(1, Ordering::Relaxed))
}

/// A prefix query is admitted by the partitions its range overlaps, each as a request of its
/// own: a tenant whose partition is throttled gets the 429, a tenant elsewhere does not.
#[test]
fn a_prefix_query_is_throttled_only_by_its_own_partitions() {
    common::rt().block_on(async {
        let opts = EngineOptions {
            retry: engine::RetryOptions {
                max_retry_attempts_on_throttled: 0,
                max_retry_wait: std::time::Duration::ZERO,
            },
            ..Default::default()
        };
        let t = common::open(opts);
        // 400 RU/s over 4 partitions: 100 RU/s each.
        let c = common::container(
            &t,
            ContainerProperties::hierarchical("c", &["/tenantId", "/userId"])
                .with_throughput(400)
                .with_initial_partitions(4),
        )
        .await;
        let spans = |tenant: &str| c.partitions_of(&key(&[tenant])).unwrap();
        let hot = spans("hot");
        let cold = (0..1000)
            .map(|i| format!("t{i}"))
            .find(|t| !spans(t).iter().any(|i| hot.contains(i)))
            .unwrap();
        // Large writes to the hot tenant until its partition is in debt.
        let pad = "x".repeat(20_000);
        let mut admitted = 0;
        for i in 0..400 {
            let doc = json!({"id": format!("w{i}"), "tenantId": "hot", "userId": format!("u{}", i % 5), "pad": pad});
            match c.create_item(&doc, None, None).await {
                Ok(_) => admitted += 1,
                Err(e) if admitted > 0 => {
                    assert_eq!(e.status_code(), 429, "{e}");
                    break;
                }
                Err(e) => tokio::time::sleep(e.retry_after().unwrap()).await,
            }
        }
        let prefix = |tenant: &str| QueryOptions {
            partition_key: Some(key(&[tenant])),
            ..Default::default()
        };
        let e = c
            .query_items::<Value>("SELECT * FROM c", NO_PARAMS, prefix("hot"))
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 429, "{e}");
        c.query_items::<Value>("SELECT * FROM c", NO_PARAMS, prefix(&cold))
            .await
            .unwrap();
    });
}
