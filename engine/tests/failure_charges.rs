//! Failed requests carry their charge (issues 33, 35, 37): `client.charged()` fails with a
//! `Failed` saying what the attempt cost — a 404 point read the lookup, a conflict the read or
//! the write it refused, a 412 the read it needed, a query the items it read before failing.

mod common;

use std::time::Duration;

use engine::{
    ContainerProperties, EngineOptions, Error, PatchOperation, QueryOptions, TransactionalBatch,
    NO_PARAMS,
};
use serde_json::{json, Value};

#[test]
fn refused_point_operations_cost_what_they_did() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        let c = c.charged();
        let doc = json!({"id": "a", "pk": "p", "n": 1});
        let created = c.create_item(&doc, None, None).await.unwrap();

        // A missing item: the lookup, 1 RU, on every point path.
        let f = c.read_item::<Value>("nope", "p", None).await.unwrap_err();
        assert!(matches!(f.error, Error::NotFound { .. }), "{f}");
        assert_eq!(f.request_charge(), 1.0);
        let f = c.read_item_raw("nope", &"p".into()).unwrap_err();
        assert_eq!((f.status_code(), f.request_charge()), (404, 1.0));
        let f = c
            .replace_item(&json!({"id": "nope", "pk": "p"}), "nope", None, None)
            .await
            .unwrap_err();
        assert_eq!((f.status_code(), f.request_charge()), (404, 1.0));
        let f = c.delete_item("nope", "p", None).await.unwrap_err();
        assert_eq!((f.status_code(), f.request_charge()), (404, 1.0));
        let set = [PatchOperation::set("/n", json!(2))];
        let f = c
            .patch_item::<Value>("nope", "p", &set, None)
            .await
            .unwrap_err();
        assert_eq!((f.status_code(), f.request_charge()), (404, 1.0));

        // An id that exists: the read of the item it conflicts with.
        let f = c.create_item(&doc, None, None).await.unwrap_err();
        assert!(matches!(f.error, Error::Conflict { .. }), "{f}");
        assert_eq!(f.request_charge(), 1.0);

        // A stale etag: the read that found the item's etag.
        let stale = engine::ItemOptions {
            if_match_etag: Some("\"stale\"".into()),
            ..Default::default()
        };
        let f = c
            .replace_item(&doc, "a", None, Some(stale.clone()))
            .await
            .unwrap_err();
        assert_eq!((f.status_code(), f.request_charge()), (412, 1.0));
        let f = c.delete_item("a", "p", Some(stale)).await.unwrap_err();
        assert_eq!((f.status_code(), f.request_charge()), (412, 1.0));

        // Refused before any work (a malformed id): nothing to charge.
        let f = c.read_item_raw("a/b", &"p".into()).unwrap_err();
        assert_eq!((f.status_code(), f.request_charge()), (400, 0.0));

        // The plain client fails with the same error, the charge dropped.
        let e = c.0.read_item::<Value>("nope", "p", None).await.unwrap_err();
        assert!(matches!(e, Error::NotFound { .. }));
        assert!(created.request_charge > 1.0);
    });
}

#[test]
fn a_unique_key_conflict_costs_about_the_write_it_refused() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let props = ContainerProperties::new("users", "/tenant").with_unique_key(&["/email"]);
        let c = common::container(&t, props).await.charged();
        let first = json!({"id": "a", "tenant": "t", "email": "a@x.org", "name": "Ann", "age": 30});
        let written = c.create_item(&first, None, None).await.unwrap();
        let clash = json!({"id": "b", "tenant": "t", "email": "a@x.org", "name": "Bob", "age": 31});
        let f = c.create_item(&clash, None, None).await.unwrap_err();
        assert!(matches!(f.error, Error::UniqueKey { .. }), "{f}");
        let (refused, write) = (f.request_charge(), written.request_charge);
        println!("unique-key 409: {refused} RU; the same write accepted: {write} RU");
        assert!(
            (refused - write).abs() <= write * 0.1,
            "the refused write cost {refused} RU, the accepted one {write} RU"
        );
        // Nothing of it was written.
        assert_eq!(
            c.read_item::<Value>("b", "t", None)
                .await
                .unwrap_err()
                .status_code(),
            404
        );
    });
}

#[test]
fn a_query_that_fails_midway_costs_what_it_read() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        let arr: Vec<u32> = (0..100).collect();
        for i in 0..20 {
            let doc = json!({"id": format!("i{i}"), "pk": format!("p{}", i % 3), "s": "word", "arr": arr});
            c.create_item(&doc, None, None).await.unwrap();
        }
        let c = c.charged();

        // A pattern the engine refuses, found while evaluating items: a 400, charged.
        let f = c
            .query_items::<Value>(
                "SELECT VALUE c.id FROM c WHERE RegexMatch(c.s, 'a(?=b)')",
                NO_PARAMS,
                QueryOptions::default(),
            )
            .await
            .unwrap_err();
        println!("refused regex: {} RU ({f})", f.request_charge());
        assert_eq!(f.status_code(), 400, "{f}");
        assert!(f.request_charge() >= 5.0, "{}", f.request_charge());

        // A cross product past the page's hard limit (ten times its time budget): a 408, charged.
        let options = QueryOptions {
            max_duration_per_page: Some(Duration::from_millis(2)),
            ..Default::default()
        };
        let f = c
            .query_items::<Value>(
                "SELECT VALUE COUNT(1) FROM c JOIN a IN c.arr JOIN b IN c.arr JOIN x IN c.arr",
                NO_PARAMS,
                options,
            )
            .await
            .unwrap_err();
        println!("hard limit: {} RU ({f})", f.request_charge());
        assert_eq!(f.status_code(), 408, "{f}");
        assert!(f.request_charge() >= 5.0, "{}", f.request_charge());

        // A query refused before it ran (a syntax error): nothing read, nothing charged.
        let f = c
            .query_items::<Value>("SELECT FROM", NO_PARAMS, QueryOptions::default())
            .await
            .unwrap_err();
        assert_eq!((f.status_code(), f.request_charge()), (400, 0.0));
    });
}

#[test]
fn a_failed_procedure_keeps_its_charge() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        let body = "function fail() { var c = getContext().getCollection(); \
                    c.readDocument(c.getAltLink() + '/docs/x', {}, function () { throw new Error('no'); }); }";
        c.scripts()
            .create_stored_procedure("fail", engine::JavaScript::new(body).unwrap())
            .unwrap();
        c.create_item(&json!({"id": "x", "pk": "p"}), None, None)
            .await
            .unwrap();
        let f = c
            .charged()
            .execute_stored_procedure::<Value>("fail", "p", &[])
            .await
            .unwrap_err();
        println!("failed procedure: {} RU ({f})", f.request_charge());
        assert!(f.request_charge() >= 1.0, "{}", f.request_charge());
    });
}

#[test]
fn a_failed_batch_is_charged_its_failing_operation_too() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let props = ContainerProperties::new("users", "/tenant").with_unique_key(&["/email"]);
        let c = common::container(&t, props).await;
        let ann = json!({"id": "a", "tenant": "t", "email": "a@x.org"});
        let write = c
            .create_item(&ann, None, None)
            .await
            .unwrap()
            .request_charge;
        // The second operation is refused by the unique key after the first was written.
        let batch = TransactionalBatch::new("t")
            .create_item(&json!({"id": "b", "tenant": "t", "email": "b@x.org"}))
            .create_item(&json!({"id": "c", "tenant": "t", "email": "a@x.org"}));
        let r = c.execute_batch(batch).await.unwrap();
        assert!(!r.is_success());
        println!(
            "failed batch: {} RU (one write {write} RU)",
            r.request_charge
        );
        assert!(
            r.request_charge >= 1.8 * write,
            "{} vs {write}",
            r.request_charge
        );
    });
}

#[test]
fn a_throttled_request_costs_nothing() {
    let rt = common::rt();
    let t = common::open(EngineOptions {
        retry: engine::RetryOptions {
            max_retry_attempts_on_throttled: 0,
            max_retry_wait: Duration::ZERO,
        },
        ..Default::default()
    });
    rt.block_on(async {
        let props = ContainerProperties::new("c", "/pk").with_throughput(10);
        let c = common::container(&t, props).await.charged();
        let mut throttled = None;
        for i in 0..50 {
            let doc = json!({"id": format!("i{i}"), "pk": "p"});
            if let Err(f) = c.create_item(&doc, None, None).await {
                throttled = Some(f);
                break;
            }
        }
        let f = throttled.expect("10 RU/s meets a 429 within 50 writes");
        assert_eq!((f.status_code(), f.request_charge()), (429, 0.0), "{f}");
    });
}
