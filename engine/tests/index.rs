//! The index follows the policy, the writes, the splits, and is rebuilt online on a policy change.

mod common;

use engine::{ContainerProperties, EngineOptions};
use serde_json::json;

async fn entries(c: &engine::ContainerClient) -> u64 {
    c.stats(0)
        .await
        .unwrap()
        .partitions
        .iter()
        .map(|p| p.index_entries)
        .sum()
}

#[test]
fn entries_follow_writes_and_splits() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions { split_threshold_bytes: 16 * 1024, ..Default::default() });
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        // id, pk, n, tags×2, _ts = 6 entries per item
        for i in 0..200 {
            c.create_item(&json!({"id": format!("{i}"), "pk": format!("p{}", i % 23), "n": i, "tags": ["a", "b"]}), None, None).await.unwrap();
        }
        assert!(c.partitions().unwrap().len() > 1);
        assert_eq!(entries(&c).await, 200 * 6);
        // A replace changing one value touches two entries, and costs less than the create.
        let created = c.create_item(&json!({"id": "x", "pk": "p1", "n": 1, "tags": ["a"]}), None, None).await.unwrap();
        let replaced = c.replace_item(&json!({"id": "x", "pk": "p1", "n": 2, "tags": ["a"]}), "x", None, None).await.unwrap();
        // n changed (one entry out, one in); _ts too if the second turned meanwhile.
        assert!([2, 4].contains(&replaced.diagnostics.index_terms_written), "{:?}", replaced.diagnostics);
        assert!(replaced.request_charge < created.request_charge);
        c.delete_item("x", "p1", None).await.unwrap();
        assert_eq!(entries(&c).await, 200 * 6);
        for i in 0..200 {
            c.delete_item(&format!("{i}"), format!("p{}", i % 23), None).await.unwrap();
        }
        assert_eq!(entries(&c).await, 0);
    });
}

#[test]
fn a_policy_change_rebuilds_the_index_online() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let none = json!({"includedPaths": [], "excludedPaths": [{"path": "/*"}]});
        let c = common::container(
            &t,
            ContainerProperties::new("c", "/pk")
                .with_indexing_policy(none)
                .with_initial_partitions(3),
        )
        .await;
        for i in 0..5000 {
            c.create_item(
                &json!({"id": format!("{i}"), "pk": format!("p{}", i % 50), "n": i}),
                None,
                None,
            )
            .await
            .unwrap();
        }
        assert_eq!(
            entries(&c).await,
            0,
            "nothing indexed under an all-excluded policy"
        );
        let db = t.engine.database("test");
        let def = db
            .replace_indexing_policy(
                "c",
                json!({"includedPaths": [{"path": "/n/?"}], "excludedPaths": [{"path": "/*"}]}),
            )
            .await
            .unwrap();
        assert!(def.index_rebuild_progress().is_some());
        // Writes go on during the rebuild.
        for i in 5000..5100 {
            c.create_item(
                &json!({"id": format!("{i}"), "pk": format!("p{}", i % 50), "n": i}),
                None,
                None,
            )
            .await
            .unwrap();
        }
        c.delete_item("0", "p0", None).await.unwrap();
        for _ in 0..500 {
            if c.read_container()
                .unwrap()
                .index_rebuild_progress()
                .is_none()
            {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert!(
            c.read_container()
                .unwrap()
                .index_rebuild_progress()
                .is_none(),
            "the rebuild finished"
        );
        assert_eq!(entries(&c).await, 5099, "one /n entry per live item");
        // Bad policies are refused with 400 and change nothing.
        let e = db
            .replace_indexing_policy("c", json!({"includedPaths": [{"path": "n/?"}]}))
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 400);
        let e = t
            .engine
            .database("test")
            .create_container(
                ContainerProperties::new("bad", "/pk")
                    .with_indexing_policy(json!({"indexingMode": "lazy"})),
            )
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 400);
    });
}
