//! Item operations and every error path of the engine core, on real LMDB files.

mod common;

use engine::{
    ContainerProperties, EngineOptions, Error, ItemOptions, PartitionKey, PatchOperation,
    TransactionalBatch,
};
use serde_json::{json, Value};

#[test]
fn create_read_replace_delete_with_system_properties() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, ContainerProperties::new("customer", "/customerId")).await;
        let doc = json!({"id": "c1", "customerId": "c1", "firstName": "Ada", "_etag": "forged"});
        let created = c.create_item(&doc, None, None).await.unwrap();
        assert_eq!(created.status_code, 201);
        let body: Value = created.resource.unwrap();
        let etag = created.etag.unwrap();
        assert_eq!(
            body["_etag"],
            json!(etag),
            "a client-sent _etag is replaced"
        );
        assert!(body["_ts"].as_u64().unwrap() > 1_600_000_000);
        assert!(body["_lsn"].as_u64().unwrap() >= 1);
        assert!(body["_rid"].is_string());
        assert!(created.request_charge > 1.0);

        let read = c.read_item::<Value>("c1", "c1", None).await.unwrap();
        assert_eq!(read.resource.as_ref().unwrap()["firstName"], "Ada");
        assert_eq!(read.request_charge, 1.0, "a small point read costs 1 RU");
        assert_eq!(read.etag.as_deref(), Some(etag.as_str()));

        // 409 on a second create
        let e = c.create_item(&doc, None, None).await.unwrap_err();
        assert_eq!(e.status_code(), 409, "{e}");

        // replace with a stale etag: 412; with the right one: 200 and a new etag
        let v2 = json!({"id": "c1", "customerId": "c1", "firstName": "Ada L."});
        let replaced = c
            .replace_item(&v2, "c1", None, Some(ItemOptions::if_match(&etag)))
            .await
            .unwrap();
        assert_eq!(replaced.status_code, 200);
        let etag2 = replaced.etag.unwrap();
        assert_ne!(etag, etag2, "etag changes on every write");
        let e = c
            .replace_item(&v2, "c1", None, Some(ItemOptions::if_match(&etag)))
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 412, "{e}");
        let e = c
            .delete_item("c1", "c1", Some(ItemOptions::if_match(&etag)))
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 412);

        // 404s
        let e = c
            .replace_item(
                &json!({"id": "nope", "customerId": "c1"}),
                "nope",
                None,
                None,
            )
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 404);
        assert_eq!(
            c.read_item::<Value>("c1", "other", None)
                .await
                .unwrap_err()
                .status_code(),
            404
        );

        // upsert: 200 on existing, 201 on new
        assert_eq!(
            c.upsert_item(&v2, None, None).await.unwrap().status_code,
            200
        );
        assert_eq!(
            c.upsert_item(&json!({"id": "c2", "customerId": "c2"}), None, None)
                .await
                .unwrap()
                .status_code,
            201
        );

        let deleted = c
            .delete_item("c1", "c1", Some(ItemOptions::if_match(&etag2).clone()))
            .await;
        assert_eq!(
            deleted.unwrap_err().status_code(),
            412,
            "upsert changed the etag again"
        );
        assert_eq!(
            c.delete_item("c1", "c1", None).await.unwrap().status_code,
            204
        );
        assert_eq!(
            c.delete_item("c1", "c1", None)
                .await
                .unwrap_err()
                .status_code(),
            404
        );
        assert_eq!(
            c.read_item::<Value>("c1", "c1", None)
                .await
                .unwrap_err()
                .status_code(),
            404
        );
    });
}

#[test]
fn bad_ids_and_bad_partition_keys_are_400_with_the_field() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        // An item nesting deeper than 128 levels is refused, and nothing is stored.
        let mut deep = json!(1);
        for _ in 0..200 {
            deep = json!([deep]);
        }
        let e = c
            .create_item(&json!({"id": "deep", "pk": "x", "v": deep}), None, None)
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 400, "{e}");
        assert!(e.to_string().contains("nests deeper than 128"), "{e}");
        assert!(c
            .read_item::<serde_json::Value>("deep", "x", None)
            .await
            .is_err());
        for id in ["", "a/b", "a\\b", "q?", "h#"] {
            let e = c
                .create_item(&json!({"id": id, "pk": "x"}), None, None)
                .await
                .unwrap_err();
            assert!(
                matches!(&e, Error::BadRequest { field: Some(f), .. } if f == "id"),
                "{id:?}: {e}"
            );
        }
        // Over Cosmos DB's 1,023 bytes.
        let long = "x".repeat(1024);
        assert_eq!(
            c.create_item(&json!({"id": long, "pk": "x"}), None, None)
                .await
                .unwrap_err()
                .status_code(),
            400
        );
        assert_eq!(
            c.create_item(&json!({"pk": "x"}), None, None)
                .await
                .unwrap_err()
                .status_code(),
            400
        );
        assert_eq!(
            c.create_item(&json!({"id": 7, "pk": "x"}), None, None)
                .await
                .unwrap_err()
                .status_code(),
            400
        );
        assert_eq!(
            c.create_item(&json!([1, 2]), None, None)
                .await
                .unwrap_err()
                .status_code(),
            400
        );

        // An object at the key path is no key value (the SDKs extract `[{}]` for it): the item
        // is in the partition of items without one. An array stays a 400 naming the path.
        c.create_item(&json!({"id": "obj", "pk": {"nested": 1}}), None, None)
            .await
            .unwrap();
        c.read_item::<serde_json::Value>("obj", PartitionKey::None, None)
            .await
            .unwrap();
        let e = c
            .create_item(&json!({"id": "a", "pk": [1]}), None, None)
            .await
            .unwrap_err();
        assert!(
            matches!(&e, Error::BadRequest { field: Some(f), .. } if f == "/pk"),
            "{e}"
        );
        let e = c
            .create_item(
                &json!({"id": "a", "pk": 9_007_199_254_740_993u64}),
                None,
                None,
            )
            .await
            .unwrap_err();
        assert!(e.to_string().contains("2^53"), "{e}");
        // The partition key named in the request must agree with the item's.
        let e = c
            .create_item(
                &json!({"id": "a", "pk": "x"}),
                Some(PartitionKey::from("y")),
                None,
            )
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 400, "{e}");
        // Patch cannot change the partition key or the id.
        c.create_item(&json!({"id": "a", "pk": "x"}), None, None)
            .await
            .unwrap();
        let e = c
            .patch_item::<Value>("a", "x", &[PatchOperation::set("/pk", "y")], None)
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 400, "{e}");
        let e = c
            .patch_item::<Value>("a", "x", &[PatchOperation::set("/id", "b")], None)
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 400, "{e}");
        // Nothing of the failed requests was stored.
        let all = c.read_all_items_in_partition::<Value>("x").await.unwrap();
        assert_eq!(all.items.len(), 1);
    });
}

#[test]
fn items_over_2_mb_are_413_and_long_ids_work() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        let big = "x".repeat(2 * 1024 * 1024);
        let e = c
            .create_item(&json!({"id": "big", "pk": "p", "blob": big}), None, None)
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 413, "{e}");
        let fits = "x".repeat(2 * 1024 * 1024 - 500);
        c.create_item(&json!({"id": "fits", "pk": "p", "blob": fits}), None, None)
            .await
            .unwrap();
        // 255 four-byte characters: over LMDB's key limit, truncated and hashed internally.
        let id = "😀".repeat(255);
        c.create_item(&json!({"id": id, "pk": "p"}), None, None)
            .await
            .unwrap();
        let read = c.read_item::<Value>(&id, "p", None).await.unwrap();
        assert_eq!(read.resource.unwrap()["id"], json!(id));
    });
}

#[test]
fn missing_partition_key_goes_to_the_none_partition_and_nested_paths_work() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, ContainerProperties::new("c", "/address/city")).await;
        c.create_item(&json!({"id": "1", "address": {"city": "Oslo"}}), None, None)
            .await
            .unwrap();
        c.create_item(&json!({"id": "2"}), None, None)
            .await
            .unwrap();
        c.create_item(&json!({"id": "3", "address": {"city": null}}), None, None)
            .await
            .unwrap();
        assert_eq!(
            c.read_item::<Value>("1", "Oslo", None)
                .await
                .unwrap()
                .status_code,
            200
        );
        assert_eq!(
            c.read_item::<Value>("2", PartitionKey::None, None)
                .await
                .unwrap()
                .status_code,
            200
        );
        assert_eq!(
            c.read_item::<Value>("3", PartitionKey::Null, None)
                .await
                .unwrap()
                .status_code,
            200
        );
        // null and None are different logical partitions
        assert_eq!(
            c.read_item::<Value>("2", PartitionKey::Null, None)
                .await
                .unwrap_err()
                .status_code(),
            404
        );
        let none = c
            .read_all_items_in_partition::<Value>(PartitionKey::None)
            .await
            .unwrap();
        assert_eq!(none.items.len(), 1);
        // numbers: 1 and 1.0 are one partition
        let n = common::container(&t, ContainerProperties::new("n", "/k")).await;
        n.create_item(&json!({"id": "a", "k": 1}), None, None)
            .await
            .unwrap();
        assert_eq!(
            n.read_item::<Value>("a", 1.0, None)
                .await
                .unwrap()
                .status_code,
            200
        );
        n.create_item(&json!({"id": "b", "k": true}), None, None)
            .await
            .unwrap();
        assert_eq!(
            n.read_item::<Value>("b", true, None)
                .await
                .unwrap()
                .status_code,
            200
        );
    });
}

#[test]
fn patch_operations_apply_atomically() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        c.create_item(
            &json!({"id": "p", "pk": "x", "count": 1, "tags": ["a"]}),
            None,
            None,
        )
        .await
        .unwrap();
        let r = c
            .patch_item::<Value>(
                "p",
                "x",
                &[
                    PatchOperation::increment("/count", 5),
                    PatchOperation::add("/tags/-", "b"),
                ],
                None,
            )
            .await
            .unwrap();
        let body = r.resource.unwrap();
        assert_eq!(body["count"], 6);
        assert_eq!(body["tags"], json!(["a", "b"]));
        // The second operation fails: the first is not applied either.
        let e = c
            .patch_item::<Value>(
                "p",
                "x",
                &[
                    PatchOperation::increment("/count", 1),
                    PatchOperation::remove("/missing"),
                ],
                None,
            )
            .await
            .unwrap_err();
        assert!(e.to_string().contains("operation 1"), "{e}");
        let now = c
            .read_item::<Value>("p", "x", None)
            .await
            .unwrap()
            .resource
            .unwrap();
        assert_eq!(now["count"], 6);
        assert_eq!(
            c.patch_item::<Value>("nope", "x", &[PatchOperation::set("/a", 1)], None)
                .await
                .unwrap_err()
                .status_code(),
            404
        );
    });
}

#[test]
fn batch_is_all_or_nothing() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, ContainerProperties::new("posts", "/postId")).await;
        c.create_item(
            &json!({"id": "p1", "postId": "p1", "type": "post", "commentCount": 0}),
            None,
            None,
        )
        .await
        .unwrap();
        let ok = c
            .execute_batch(
                TransactionalBatch::new("p1")
                    .create_item(&json!({"id": "c1", "postId": "p1", "type": "comment"}))
                    .patch_item(
                        "p1",
                        vec![PatchOperation::increment("/commentCount", 1)],
                        None,
                    )
                    .read_item("p1"),
            )
            .await
            .unwrap();
        assert!(ok.is_success());
        assert_eq!(
            ok.results.iter().map(|r| r.status_code).collect::<Vec<_>>(),
            vec![201, 200, 200]
        );
        assert_eq!(ok.results[2].resource.as_ref().unwrap()["commentCount"], 1);

        // Fails at the third operation (409): the first two leave nothing behind.
        let failed = c
            .execute_batch(
                TransactionalBatch::new("p1")
                    .create_item(&json!({"id": "c2", "postId": "p1", "type": "comment"}))
                    .patch_item(
                        "p1",
                        vec![PatchOperation::increment("/commentCount", 1)],
                        None,
                    )
                    .create_item(&json!({"id": "c1", "postId": "p1", "type": "comment"})),
            )
            .await
            .unwrap();
        assert!(!failed.is_success());
        assert_eq!(
            failed
                .results
                .iter()
                .map(|r| r.status_code)
                .collect::<Vec<_>>(),
            vec![424, 424, 409]
        );
        assert_eq!(
            c.read_item::<Value>("c2", "p1", None)
                .await
                .unwrap_err()
                .status_code(),
            404
        );
        let post = c
            .read_item::<Value>("p1", "p1", None)
            .await
            .unwrap()
            .resource
            .unwrap();
        assert_eq!(post["commentCount"], 1);

        // A batch may not leave its logical partition.
        let cross = c
            .execute_batch(
                TransactionalBatch::new("p1").create_item(&json!({"id": "x", "postId": "p2"})),
            )
            .await
            .unwrap();
        assert!(!cross.is_success());
        assert_eq!(cross.results[0].status_code, 400);
        let too_many = (0..101).fold(TransactionalBatch::new("p1"), |b, i| {
            b.create_item(&json!({"id": format!("m{i}"), "postId": "p1"}))
        });
        assert!(!c.execute_batch(too_many).await.unwrap().is_success());
    });
}

#[test]
fn logical_partition_limit_is_403() {
    common::rt().block_on(async {
        let opts = EngineOptions {
            max_logical_partition_bytes: 4096,
            ..Default::default()
        };
        let t = common::open(opts);
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        let blob = "x".repeat(1000);
        let mut stored = 0;
        let err = loop {
            match c
                .create_item(
                    &json!({"id": format!("i{stored}"), "pk": "hot", "b": blob}),
                    None,
                    None,
                )
                .await
            {
                Ok(_) => stored += 1,
                Err(e) => break e,
            }
        };
        assert_eq!(err.status_code(), 403, "{err}");
        assert_eq!(err.sub_status(), Some(1014));
        assert!(stored >= 2);
        // Other logical partitions are unaffected, and shrinking the partition is allowed.
        c.create_item(&json!({"id": "a", "pk": "cold", "b": blob}), None, None)
            .await
            .unwrap();
        c.delete_item("i0", "hot", None).await.unwrap();
        c.create_item(&json!({"id": "again", "pk": "hot", "b": blob}), None, None)
            .await
            .unwrap();
    });
}

#[test]
fn ttl_hides_expired_items_at_once() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(
            &t,
            ContainerProperties::new("c", "/pk").with_default_ttl(-1),
        )
        .await;
        c.create_item(&json!({"id": "short", "pk": "p", "ttl": 1}), None, None)
            .await
            .unwrap();
        c.create_item(&json!({"id": "forever", "pk": "p"}), None, None)
            .await
            .unwrap();
        assert_eq!(
            c.read_item::<Value>("short", "p", None)
                .await
                .unwrap()
                .status_code,
            200
        );
        tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
        assert_eq!(
            c.read_item::<Value>("short", "p", None)
                .await
                .unwrap_err()
                .status_code(),
            404
        );
        assert_eq!(
            c.read_all_items_in_partition::<Value>("p")
                .await
                .unwrap()
                .items
                .len(),
            1
        );
        // An expired id can be created again.
        c.create_item(&json!({"id": "short", "pk": "p"}), None, None)
            .await
            .unwrap();
        let e = c
            .create_item(&json!({"id": "bad", "pk": "p", "ttl": 0}), None, None)
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 400);
        // null is no ttl either (the service refuses it: the Python SDK's test_ttl.py).
        for ttl in [json!(null), json!(-10), json!("10")] {
            let e = c
                .create_item(&json!({"id": "bad", "pk": "p", "ttl": ttl}), None, None)
                .await
                .unwrap_err();
            assert_eq!(e.status_code(), 400, "{ttl}: {e}");
            assert!(e.to_string().contains("ttl"), "{ttl}: {e}");
        }
    });
}

#[test]
fn definitions_and_items_survive_reopen() {
    let dir = tempfile::tempdir().unwrap();
    common::rt().block_on(async {
        let engine = engine::Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let db = engine.create_database("shop").await.unwrap();
        let c = db
            .create_container(
                ContainerProperties::new("product", "/categoryId").with_initial_partitions(4),
            )
            .await
            .unwrap();
        for i in 0..200 {
            c.create_item(
                &json!({"id": format!("p{i}"), "categoryId": format!("cat{}", i % 7)}),
                None,
                None,
            )
            .await
            .unwrap();
        }
        // A second open of the same directory in one process is refused, not corrupted.
        assert!(engine::Engine::open(dir.path(), EngineOptions::default()).is_err());
    });
    common::rt().block_on(async {
        let engine = engine::Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let c = engine.database("shop").container("product");
        assert_eq!(c.partitions().unwrap().len(), 4);
        let def = c.read_container().unwrap();
        assert_eq!(def.partition_key().paths, vec!["/categoryId"]);
        for i in 0..200 {
            c.read_item::<Value>(&format!("p{i}"), format!("cat{}", i % 7), None)
                .await
                .unwrap();
        }
        let stats = c.stats(3).await.unwrap();
        assert_eq!(stats.items, 200);
        assert_eq!(
            stats
                .partitions
                .iter()
                .map(|p| p.logical_partitions)
                .sum::<u64>(),
            7
        );
        assert!(
            stats.partitions.iter().filter(|p| p.items > 0).count() >= 2,
            "7 categories spread over 4 partitions"
        );
        // Duplicate database/container names are 409; unknown ones 404.
        assert_eq!(
            engine
                .create_database("shop")
                .await
                .unwrap_err()
                .status_code(),
            409
        );
        let db = engine.database("shop");
        assert_eq!(
            db.create_container(ContainerProperties::new("product", "/x"))
                .await
                .unwrap_err()
                .status_code(),
            409
        );
        assert_eq!(
            engine
                .database("nope")
                .container("x")
                .read_item::<Value>("a", "b", None)
                .await
                .unwrap_err()
                .status_code(),
            404
        );
        assert_eq!(
            engine
                .database("nope")
                .create_container(ContainerProperties::new("x", "/y"))
                .await
                .unwrap_err()
                .status_code(),
            404
        );
        assert_eq!(
            db.create_container(ContainerProperties::new("bad", "noslash"))
                .await
                .unwrap_err()
                .status_code(),
            400
        );
        db.delete_container("product").await.unwrap();
        assert_eq!(
            c.read_item::<Value>("p1", "cat1", None)
                .await
                .unwrap_err()
                .status_code(),
            404
        );
    });
}
