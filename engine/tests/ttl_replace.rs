//! Replacing a container's default TTL, as Cosmos DB allows: items expire by the new value
//! counted from their last write, an item's own `ttl` still wins, and the purge removes what
//! expired (the `expiry` index was rebuilt with the definition). Turning TTL off again stops
//! expiry at once.

mod common;

use std::time::Duration;

use engine::{ContainerProperties, EngineOptions};
use serde_json::{json, Value};

async fn status(c: &engine::ContainerClient, id: &str) -> u16 {
    match c.read_item::<Value>(id, "p", None).await {
        Ok(r) => r.status_code,
        Err(e) => e.status_code(),
    }
}

/// `engine check` finds nothing wrong with what the replace left.
fn checks_clean(t: &common::TestEngine) {
    for report in t.engine.check().unwrap() {
        assert!(report.problems.is_empty(), "{report:?}");
    }
}

fn items_stored(t: &common::TestEngine) -> u64 {
    t.engine.database("test").containers()[0].totals().1
}

#[test]
fn a_new_default_ttl_expires_existing_items_and_the_purge_removes_them() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        for (id, ttl) in [("plain", None), ("never", Some(-1)), ("own", Some(3600))] {
            let mut doc = json!({"id": id, "pk": "p"});
            if let Some(ttl) = ttl {
                doc["ttl"] = json!(ttl);
            }
            c.create_item(&doc, None, None).await.unwrap();
        }
        // Created with TTL off (items' own `ttl` ignored); now on, with a 1 s default.
        let db = t.engine.database("test");
        let def = db.replace_default_ttl("c", Some(1)).await.unwrap();
        assert_eq!(def.default_ttl(), Some(1));
        tokio::time::sleep(Duration::from_millis(2100)).await;
        assert_eq!(status(&c, "plain").await, 404, "expired by the new default");
        assert_eq!(status(&c, "never").await, 200, "an item's ttl -1 wins");
        assert_eq!(status(&c, "own").await, 200, "an item's own ttl wins");
        // The purge (once a second) found it through the rebuilt expiry index.
        let mut waited = 0;
        while items_stored(&t) != 2 && waited < 50 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            waited += 1;
        }
        assert_eq!(items_stored(&t), 2, "the expired item was purged");
        checks_clean(&t);
    });
}

#[test]
fn turning_ttl_off_keeps_items_that_would_have_expired() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c =
            common::container(&t, ContainerProperties::new("c", "/pk").with_default_ttl(2)).await;
        c.create_item(&json!({"id": "a", "pk": "p"}), None, None)
            .await
            .unwrap();
        c.create_item(&json!({"id": "b", "pk": "p", "ttl": 1}), None, None)
            .await
            .unwrap();
        let db = t.engine.database("test");
        db.replace_default_ttl("c", None).await.unwrap();
        tokio::time::sleep(Duration::from_millis(3100)).await;
        assert_eq!(status(&c, "a").await, 200);
        assert_eq!(
            status(&c, "b").await,
            200,
            "TTL off ignores an item's own ttl"
        );
        assert_eq!(items_stored(&t), 2);
        // On again with no default: only the item with its own ttl expires (written 3 s ago).
        db.replace_default_ttl("c", Some(-1)).await.unwrap();
        assert_eq!(status(&c, "a").await, 200);
        assert_eq!(status(&c, "b").await, 404);
        for bad in [0, -2] {
            let e = db.replace_default_ttl("c", Some(bad)).await.unwrap_err();
            assert_eq!(e.status_code(), 400, "{bad}");
        }
        checks_clean(&t);
    });
}
