//! Database-level (shared) throughput (issue 35): the containers of a database created with
//! RU/s that have none of their own draw from one budget, and are throttled together when it is
//! spent; a container with its own RU/s keeps them; the budget survives a restart and can be
//! replaced.

mod common;

use engine::{ContainerProperties, Engine, EngineOptions, Error, PartitionKey};
use serde_json::json;

#[test]
fn containers_without_their_own_throughput_share_the_database_s() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let db = t
            .engine
            .create_database_with_throughput("shop", Some(20))
            .await
            .unwrap();
        let a = db
            .create_container(ContainerProperties::new("a", "/pk"))
            .await
            .unwrap();
        let b = db
            .create_container(ContainerProperties::new("b", "/pk"))
            .await
            .unwrap();
        let own = db
            .create_container(ContainerProperties::new("own", "/pk").with_throughput(10_000))
            .await
            .unwrap();
        for c in [&a, &b, &own] {
            c.upsert_item(&json!({"id": "x", "pk": "p"}), None, None)
                .await
                .unwrap();
        }
        let pk = PartitionKey::from("p");
        // Reads of `a` alone spend the database's 20 RU/s; then `b` is refused too.
        let mut spent = 0.0;
        while spent < 40.0 {
            match a.read_item_raw("x", &pk) {
                Ok(r) => spent += r.request_charge,
                Err(Error::TooManyRequests { .. }) => break,
                Err(e) => panic!("{e}"),
            }
        }
        let e = b.read_item_raw("x", &pk).map(|_| ()).unwrap_err();
        assert!(
            matches!(e, Error::TooManyRequests { budget_ru_per_s, .. } if budget_ru_per_s == 20.0),
            "{e}"
        );
        // The container with its own RU/s is not touched by the database's budget.
        own.read_item_raw("x", &pk).unwrap();
        let defs = t.engine.databases();
        assert_eq!(defs[0].throughput, Some(20));
        let raised = db.replace_database_throughput(Some(1000)).await.unwrap();
        assert_eq!(raised.throughput, Some(1000));
    });
}

#[test]
fn the_shared_budget_and_the_database_s_id_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let (rid, link) = common::rt().block_on(async {
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let db = engine
            .create_database_with_throughput("d", Some(400))
            .await
            .unwrap();
        let c = db
            .create_container(ContainerProperties::new("c", "/pk"))
            .await
            .unwrap();
        let doc: serde_json::Value = c
            .create_item(&json!({"id": "i", "pk": "p"}), None, None)
            .await
            .unwrap()
            .resource
            .unwrap();
        let def = c.read_container().unwrap();
        assert_eq!(
            doc["_self"].as_str().unwrap(),
            format!("{}docs/{}/", def.self_link(), doc["_rid"].as_str().unwrap())
        );
        (
            engine.databases()[0].resource_id(),
            doc["_self"].as_str().unwrap().to_owned(),
        )
    });
    common::rt().block_on(async {
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let d = &engine.databases()[0];
        assert_eq!((d.throughput, d.resource_id()), (Some(400), rid.clone()));
        let c = engine.database("d").container("c");
        let item_rid = link.trim_end_matches('/').rsplit('/').next().unwrap();
        assert_eq!(
            c.item_id_of_rid(item_rid, &PartitionKey::from("p"))
                .unwrap(),
            Some("i".to_owned())
        );
        // A re-created database is another resource: a new id.
        engine.delete_database("d").await.unwrap();
        engine.create_database("d").await.unwrap();
        assert_ne!(engine.databases()[0].resource_id(), rid);
    });
}
