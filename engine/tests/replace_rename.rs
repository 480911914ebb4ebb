//! Item writes whose rules the service sets differently from what one might guess: a replace
//! whose body carries another id renames the item within its logical partition, and an upsert
//! with an if-match creates an item that does not exist (the condition holds it only to an item
//! it finds).

mod common;

use engine::{ContainerProperties, EngineOptions, ItemOptions};
use serde_json::{json, Value};

async fn status(c: &engine::ContainerClient, id: &str) -> u16 {
    match c.read_item::<Value>(id, "p", None).await {
        Ok(r) => r.status_code,
        Err(e) => e.status_code(),
    }
}

#[test]
fn a_replace_with_another_id_renames_the_item() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        let a = c
            .create_item(&json!({"id": "a", "pk": "p", "n": 1}), None, None)
            .await
            .unwrap();
        c.create_item(&json!({"id": "taken", "pk": "p"}), None, None)
            .await
            .unwrap();
        // A stale etag of the item being replaced stops it.
        let stale = ItemOptions::if_match("\"stale\"");
        let e = c
            .replace_item(&json!({"id": "b", "pk": "p"}), "a", None, Some(stale))
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 412, "{e}");
        // The new id must be free in the logical partition.
        let e = c
            .replace_item(&json!({"id": "taken", "pk": "p"}), "a", None, None)
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 409, "{e}");
        assert_eq!(
            status(&c, "a").await,
            200,
            "a refused rename changes nothing"
        );
        let etag = a.etag.unwrap();
        let r = c
            .replace_item(
                &json!({"id": "b", "pk": "p", "n": 2}),
                "a",
                None,
                Some(ItemOptions::if_match(&etag)),
            )
            .await
            .unwrap();
        assert_eq!(r.status_code, 200);
        assert_eq!((status(&c, "a").await, status(&c, "b").await), (404, 200));
        let ids: Vec<Value> = c
            .query_all::<Value>(
                "SELECT VALUE c.id FROM c ORDER BY c.id",
                engine::NO_PARAMS,
                Default::default(),
            )
            .await
            .unwrap()
            .items;
        assert_eq!(ids, vec![json!("b"), json!("taken")]);
        // Replacing an id that does not exist is still a 404.
        let e = c
            .replace_item(&json!({"id": "d", "pk": "p"}), "nope", None, None)
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 404, "{e}");
    });
}

#[test]
fn an_upsert_with_if_match_creates_a_missing_item_and_checks_an_existing_one() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        let r = c
            .upsert_item(
                &json!({"id": "new", "pk": "p"}),
                None,
                Some(ItemOptions::if_match("\"any\"")),
            )
            .await
            .unwrap();
        assert_eq!(r.status_code, 201);
        let e = c
            .upsert_item(
                &json!({"id": "new", "pk": "p"}),
                None,
                Some(ItemOptions::if_match("\"any\"")),
            )
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 412, "{e}");
    });
}
