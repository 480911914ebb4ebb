//! `SELECT VALUE COUNT(1)` answered by counting what storage selects (issue 18): no item is
//! loaded when routing and the index answer the whole filter, the answer equals the evaluated
//! one, and anything else (a filter the index cannot answer, another aggregate) still evaluates.

mod common;

use engine::{ContainerClient, ContainerProperties, EngineOptions, QueryMetrics, QueryOptions};
use serde_json::{json, Value};

async fn orders(t: &common::TestEngine, ttl: Option<i64>) -> ContainerClient {
    let mut props = ContainerProperties::new("orders", "/customerId").with_initial_partitions(4);
    props.default_ttl = ttl;
    let c = common::container(t, props).await;
    for i in 0..1200 {
        let status = ["open", "paid", "sent"][i % 3];
        let doc = json!({"id": format!("o{i}"), "customerId": format!("c{}", i % 30), "status": status, "total": i % 97, "note": "x".repeat(200)});
        c.create_item(&doc, None, None).await.unwrap();
    }
    c
}

async fn count(
    c: &ContainerClient,
    sql: &str,
    opts: QueryOptions,
) -> (Vec<Value>, f64, QueryMetrics) {
    let r = c
        .query_all::<Value>(sql, engine::NO_PARAMS, opts)
        .await
        .unwrap();
    (r.items, r.request_charge, r.query_metrics.unwrap())
}

#[test]
fn counts_what_storage_selects_without_loading_items() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = orders(&t, None).await;
        let all = QueryOptions::default;
        // Each count, then the same count forced through evaluation (`+ 0` is not indexable).
        for (sql, evaluated, want) in [
            (
                "SELECT VALUE COUNT(1) FROM c",
                "SELECT VALUE COUNT(1) FROM c WHERE c.total + 0 >= 0",
                1200,
            ),
            (
                "SELECT VALUE COUNT(c) FROM c WHERE c.status = 'paid'",
                "SELECT VALUE COUNT(1) FROM c WHERE c.status = 'paid' AND c.total + 0 >= 0",
                400,
            ),
            (
                "SELECT VALUE COUNT(1) FROM c WHERE c.customerId = 'c7'",
                "SELECT VALUE COUNT(1) FROM c WHERE c.customerId = 'c7' AND c.total + 0 >= 0",
                40,
            ),
            (
                "SELECT VALUE COUNT(null) FROM c WHERE c.customerId = 'c7' AND c.total = 13",
                "SELECT VALUE COUNT(1) FROM c WHERE c.customerId = 'c7' AND c.total + 0 = 13",
                0,
            ),
            (
                "SELECT VALUE COUNT(1) FROM c WHERE c.total > 90",
                "SELECT VALUE COUNT(1) FROM c WHERE c.total + 0 > 90",
                72,
            ),
        ] {
            let (items, ru, m) = count(&c, sql, all()).await;
            let (want_items, evaluated_ru, em) = count(&c, evaluated, all()).await;
            // The figures RU.md quotes ("Counts from the index"): `-- --nocapture` shows them.
            eprintln!("{sql}: {ru} RU; evaluated: {evaluated_ru} RU");
            assert_eq!(items, want_items, "{sql}");
            if want > 0 {
                assert_eq!(items, vec![json!(want)], "{sql}");
            }
            assert!(m.plan.starts_with("count, exact"), "{sql}: {}", m.plan);
            assert_eq!(m.retrieved_document_count, 0, "{sql}: no item loaded");
            assert!(em.plan.starts_with("whole"), "{evaluated}: {}", em.plan);
            assert!(em.retrieved_document_count > 0);
            assert!(
                ru < evaluated_ru,
                "{sql}: {ru} RU vs {evaluated_ru} evaluated"
            );
        }
        // An EPK range (an SDK's feed range, in Cosmos DB's hash) keeps items by their key's
        // hash, which a plain key's stored key holds whole: counted from the keys (issue 35).
        let epk = engine::PartitionKey::from("c5").cosmos_epk();
        let opts = QueryOptions {
            epk_range: Some(engine::EpkRange::new(&epk, &epk)),
            ..Default::default()
        };
        let (items, _, m) = count(&c, "SELECT VALUE COUNT(1) FROM c", opts).await;
        assert_eq!(items, vec![json!(40)], "c5's orders only");
        assert!(m.plan.starts_with("count"), "{}", m.plan);
        assert_eq!(m.retrieved_document_count, 0);
        // Counted from the partitions' counters (no filter, no TTL): they follow deletes,
        // replaces and creates.
        for i in 0..7 {
            c.delete_item(&format!("o{i}"), format!("c{}", i % 30), None).await.unwrap();
        }
        for i in 10..13 {
            let doc = json!({"id": format!("o{i}"), "customerId": format!("c{}", i % 30), "status": "sent", "total": 1});
            c.upsert_item(&doc, None, None).await.unwrap();
        }
        for i in 0..2 {
            let doc = json!({"id": format!("new{i}"), "customerId": "c3", "status": "open", "total": 1});
            c.create_item(&doc, None, None).await.unwrap();
        }
        let (items, _, m) = count(&c, "SELECT VALUE COUNT(1) FROM c", all()).await;
        let (evaluated, ..) = count(&c, "SELECT VALUE COUNT(1) FROM c WHERE c.total + 0 >= 0", all()).await;
        assert_eq!((items.clone(), evaluated), (vec![json!(1195)], vec![json!(1195)]));
        assert_eq!(m.retrieved_document_count, 0);
        // A partition key given by the caller routes the count.
        let opts = QueryOptions {
            partition_key: Some("c3".into()),
            ..Default::default()
        };
        let (items, _, m) = count(&c, "SELECT VALUE COUNT(1) FROM c", opts).await;
        assert_eq!(items, vec![json!(41)], "c3's 40, less o3, and the two created");
        assert_eq!(
            (m.partitions_visited, m.retrieved_document_count),
            (1, 0),
            "{m:?}"
        );
        // Not counts of items: evaluated as before, same answers as the reference executor.
        for (sql, want) in [
            (
                "SELECT COUNT(1) AS n FROM c WHERE c.status = 'sent'",
                json!({"n": 400}),
            ),
            ("SELECT VALUE COUNT(c.missing) FROM c", json!(0)),
            (
                "SELECT VALUE SUM(c.total) FROM c WHERE c.customerId = 'c0'",
                json!((0..1200)
                    .filter(|i| i % 30 == 0)
                    .map(|i| i % 97)
                    .sum::<usize>()),
            ),
        ] {
            let (items, _, m) = count(&c, sql, all()).await;
            assert_eq!(items, vec![want], "{sql}");
            assert!(!m.plan.starts_with("count"), "{sql}: {}", m.plan);
        }
    });
}

#[test]
fn a_count_skips_items_whose_time_to_live_passed() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = orders(&t, Some(-1)).await;
        for i in 0..10 {
            let doc =
                json!({"id": format!("short{i}"), "customerId": "c1", "status": "paid", "ttl": 1});
            c.create_item(&doc, None, None).await.unwrap();
        }
        tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
        let (items, _, m) = count(
            &c,
            "SELECT VALUE COUNT(1) FROM c WHERE c.status = 'paid'",
            QueryOptions::default(),
        )
        .await;
        assert_eq!(items, vec![json!(400)], "expired items are not counted");
        assert!(m.plan.starts_with("count"), "{}", m.plan);
        let (items, ..) = count(&c, "SELECT VALUE COUNT(1) FROM c", QueryOptions::default()).await;
        assert_eq!(items, vec![json!(1200)]);
    });
}
