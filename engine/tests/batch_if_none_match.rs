//! A transactional batch's `ifNoneMatch` (the REST batch's per-operation field): a write applies
//! only when its item's etag is not the one named (`*`: only when there is no item), checked in
//! the batch's own transaction; a failed condition fails the batch with 412 on that operation
//! and commits nothing.

mod common;

use engine::{ContainerProperties, EngineOptions, TransactionalBatch};
use serde_json::{json, Value};

#[test]
fn a_batch_write_applies_only_when_its_item_is_not_the_one_named() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        let etag = c
            .create_item(&json!({"id": "a", "pk": "p", "n": 1}), None, None)
            .await
            .unwrap()
            .etag
            .unwrap();
        let doc = |n: i64| json!({"id": "a", "pk": "p", "n": n});

        // The item has that etag: 412 on the replace, the create before it not committed.
        for not in [etag.as_str(), "*"] {
            let batch = TransactionalBatch::new("p")
                .create_item(&json!({"id": "b", "pk": "p"}))
                .replace_item("a", &doc(2), None)
                .if_none_match(not);
            let r = c.execute_batch(batch).await.unwrap();
            assert!(!r.is_success(), "{not}");
            let statuses: Vec<u16> = r.results.iter().map(|o| o.status_code).collect();
            assert_eq!(statuses, [424, 412], "{not}");
        }
        assert!(c.read_item::<Value>("b", "p", None).await.is_err());

        // Another etag: applied; `*` on an upsert of a new item: created.
        let batch = TransactionalBatch::new("p")
            .replace_item("a", &doc(3), None)
            .if_none_match("\"another\"")
            .upsert_item(&json!({"id": "c", "pk": "p"}))
            .if_none_match("*");
        let r = c.execute_batch(batch).await.unwrap();
        assert!(r.is_success(), "{:?}", r.error_message);
        let a = c.read_item::<Value>("a", "p", None).await.unwrap();
        assert_eq!(a.resource.unwrap()["n"], 3);

        // A delete holds to it too; a read ignores it.
        let current = a.etag.unwrap();
        let batch = TransactionalBatch::new("p")
            .read_item("a")
            .if_none_match(current.as_str())
            .delete_item("a", None)
            .if_none_match(current.as_str());
        let r = c.execute_batch(batch).await.unwrap();
        let statuses: Vec<u16> = r.results.iter().map(|o| o.status_code).collect();
        assert_eq!(statuses, [424, 412]);
        assert!(c.read_item::<Value>("a", "p", None).await.is_ok());
    });
}
