//! The conditional patch (Cosmos DB's `filterPredicate`) as one engine operation: the condition
//! is checked and the patch applied in one write transaction, through the client and in a
//! batch; a refusal says why and what it cost, and changes nothing.

mod common;

use engine::{ContainerProperties, EngineOptions, Error, PatchOperation, TransactionalBatch};
use serde_json::{json, Value};

fn incr() -> Vec<PatchOperation> {
    vec![PatchOperation::increment("/n", 1)]
}

#[test]
fn a_patch_applies_only_to_an_item_that_matches_its_condition() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        for id in ["a", "b"] {
            c.create_item(&json!({"id": id, "pk": "p", "n": 5}), None, None)
                .await
                .unwrap();
        }

        // Matching: applied, charged as the same patch without a condition.
        let r = c
            .patch_item_if::<Value>("a", "p", &incr(), "FROM c WHERE c.n = 5", None)
            .await
            .unwrap();
        assert_eq!(r.resource.unwrap()["n"], 6);
        let plain = c
            .patch_item::<Value>("b", "p", &incr(), None)
            .await
            .unwrap();
        assert_eq!(r.request_charge, plain.request_charge);

        // Not matching any more: 412 that names the condition, charged the item's read, and the
        // item is as it was.
        let f = c
            .charged()
            .patch_item_if::<Value>("a", "p", &incr(), "FROM c WHERE c.n = 5", None)
            .await
            .unwrap_err();
        assert!(
            matches!(f.error, Error::PreconditionFailed { .. }),
            "{}",
            f.error
        );
        assert!(
            f.error.to_string().contains("FROM c WHERE c.n = 5"),
            "{}",
            f.error
        );
        assert!(f.request_charge() >= 1.0, "{}", f.request_charge());
        let now = c.read_item::<Value>("a", "p", None).await.unwrap();
        assert_eq!(now.resource.unwrap()["n"], 6);

        // No such item: 404. Not a FROM clause, or not valid: 400 on the condition.
        let e = c
            .patch_item_if::<Value>("zz", "p", &incr(), "FROM c", None)
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 404, "{e}");
        for bad in [
            "WHERE c.n = 6",
            "FROM c WHERE (",
            "FROM c WHERE c.n = @missing",
        ] {
            let e = c
                .patch_item_if::<Value>("a", "p", &incr(), bad, None)
                .await
                .unwrap_err();
            assert_eq!(e.status_code(), 400, "{bad}: {e}");
            assert!(e.to_string().contains("condition"), "{bad}: {e}");
        }
        let now = c.read_item::<Value>("a", "p", None).await.unwrap();
        assert_eq!(now.resource.unwrap()["n"], 6);
    });
}

#[test]
fn a_conditional_patch_in_a_batch_fails_the_batch_when_it_does_not_match() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        c.create_item(&json!({"id": "a", "pk": "p", "n": 5}), None, None)
            .await
            .unwrap();

        let ok = TransactionalBatch::new("p")
            .create_item(&json!({"id": "x", "pk": "p"}))
            .patch_item_if("a", incr(), "FROM c WHERE c.n >= 5", None);
        let r = c.execute_batch(ok).await.unwrap();
        assert!(r.is_success(), "{:?}", r.error_message);
        assert_eq!(r.results[1].status_code, 200);

        let refused = TransactionalBatch::new("p")
            .create_item(&json!({"id": "y", "pk": "p"}))
            .patch_item_if("a", incr(), "FROM c WHERE c.n = 5", None);
        let r = c.execute_batch(refused).await.unwrap();
        assert!(!r.is_success());
        let statuses: Vec<u16> = r.results.iter().map(|o| o.status_code).collect();
        assert_eq!(statuses, [424, 412]);
        assert!(r.request_charge > 0.0);
        // All or nothing: y was not created, a not patched again.
        let e = c.read_item::<Value>("y", "p", None).await.unwrap_err();
        assert_eq!(e.status_code(), 404);
        let a = c.read_item::<Value>("a", "p", None).await.unwrap();
        assert_eq!(a.resource.unwrap()["n"], 6);
    });
}
