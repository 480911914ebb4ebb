//! Raising a container's throughput past what its physical partitions serve (Azure Cosmos DB:
//! 10,000 RU/s each) splits them, as the service does (issue 35: azure-cosmos's
//! `test_partition_split_query.py` raises 400 → 11,000 and 11,000 → 25,000 RU/s and waits for
//! two and three partition key ranges): the widest partition is halved until there are enough,
//! an empty or one-key partition included, and every item stays readable and queryable.

mod common;

use std::time::{Duration, Instant};

use engine::{ContainerClient, ContainerProperties, EngineOptions, PartitionKey};
use serde_json::{json, Value};

/// The container's physical partitions once the writer has split them (it splits right after
/// answering the replace), waiting up to two seconds for `n`.
async fn partitions_after(c: &ContainerClient, n: usize) -> Vec<engine::PhysicalPartitionInfo> {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let ps = c.partitions().unwrap();
        if ps.len() >= n || Instant::now() > deadline {
            return ps;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[test]
fn raising_throughput_splits_partitions_to_ten_thousand_ru_each() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(
            &t,
            ContainerProperties::new("c", "/pk").with_throughput(400),
        )
        .await;
        // Two logical partitions, as the SDK's test writes.
        for i in 0..50 {
            c.create_item(
                &json!({"id": format!("i{i}"), "pk": format!("pk_{}", i % 2)}),
                None,
                None,
            )
            .await
            .unwrap();
        }
        assert_eq!(c.partitions().unwrap().len(), 1);
        let db = t.engine.database("test");
        db.replace_throughput("c", Some(11_000)).await.unwrap();
        let ps = partitions_after(&c, 2).await;
        assert_eq!(ps.len(), 2, "{ps:?}");
        // Both halves are new ranges descending from the first.
        assert!(ps.iter().all(|p| p.range_parents == [0]), "{ps:?}");
        db.replace_throughput("c", Some(25_000)).await.unwrap();
        let ps = partitions_after(&c, 3).await;
        assert_eq!(ps.len(), 3, "{ps:?}");
        // Nothing lost: every item by point read and by a query.
        for i in 0..50 {
            let pk = PartitionKey::from(format!("pk_{}", i % 2).as_str());
            c.read_item::<Value>(&format!("i{i}"), pk, None)
                .await
                .unwrap();
        }
        let all = c
            .query_items::<Value>(
                "SELECT VALUE COUNT(1) FROM c",
                engine::NO_PARAMS,
                Default::default(),
            )
            .await
            .unwrap();
        assert_eq!(all.items, [json!(50)]);
        // Lowering it merges nothing (the service keeps its partitions too).
        db.replace_throughput("c", Some(400)).await.unwrap();
        assert_eq!(partitions_after(&c, 4).await.len(), 3);
    });
}

#[test]
fn an_empty_container_splits_too() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(
            &t,
            ContainerProperties::new("c", "/pk").with_throughput(400),
        )
        .await;
        t.engine
            .database("test")
            .replace_throughput("c", Some(40_000))
            .await
            .unwrap();
        assert_eq!(partitions_after(&c, 4).await.len(), 4);
    });
}

#[test]
fn a_partition_holding_data_splits_at_its_median() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(
            &t,
            ContainerProperties::new("c", "/pk").with_throughput(400),
        )
        .await;
        // azure-cosmos's test_latest_session_token_from_pk writes keys A1..A10: Cosmos DB's
        // hashes of all ten lie in the lower half of the key space (0x16.. to 0x3C..), so a
        // split at the middle would leave the second child empty; the service's children take
        // about half the data each, and the test finds A1 (the seventh) in the second.
        for i in 0..200 {
            let item = json!({"id": format!("i{i}"), "pk": format!("A{}", i % 10 + 1)});
            c.create_item(&item, None, None).await.unwrap();
        }
        let db = t.engine.database("test");
        db.replace_throughput("c", Some(11_000)).await.unwrap();
        let ps = partitions_after(&c, 2).await;
        assert_eq!(ps.len(), 2, "{ps:?}");
        for p in &ps {
            assert!((60..=140).contains(&p.items), "{ps:?}");
        }
        let upper = ps.iter().max_by_key(|p| p.range_start).unwrap();
        let a1 = c
            .query_items::<Value>(
                "SELECT VALUE COUNT(1) FROM c WHERE c.pk = 'A1'",
                engine::NO_PARAMS,
                Default::default(),
            )
            .await
            .unwrap();
        assert_eq!(a1.items, [json!(20)]);
        assert!(upper.items > 0 && upper.range_id == 2, "{ps:?}");
    });
}
