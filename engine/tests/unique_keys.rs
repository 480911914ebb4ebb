//! Unique key policies (issue 23): inside one logical partition, no two items share the values
//! of a unique key — on every write path, under concurrency, across a restart.

mod common;

use engine::{
    ContainerClient, ContainerProperties, EngineOptions, Error, JavaScript, PatchOperation,
    TransactionalBatch,
};
use serde_json::{json, Value};

fn users() -> ContainerProperties {
    ContainerProperties::new("users", "/tenant")
        .with_unique_key(&["/email"])
        .with_unique_key(&["/first", "/last"])
}

async fn create(c: &ContainerClient, doc: Value) -> engine::Result<()> {
    c.create_item(&doc, None, None).await.map(|_| ())
}

fn is_unique_clash(r: engine::Result<()>) -> bool {
    matches!(r, Err(Error::UniqueKey { .. }))
}

#[test]
fn every_write_path_refuses_a_second_item_with_the_same_values() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(&t, users()).await;
        create(&c, json!({"id": "a", "tenant": "t1", "email": "a@x.org", "first": "Ann", "last": "Lee"}))
            .await
            .unwrap();
        // Create: the same email in the same tenant.
        let e = c
            .create_item(&json!({"id": "b", "tenant": "t1", "email": "a@x.org"}), None, None)
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 409);
        assert!(e.to_string().contains("/email"), "{e}");
        // Another logical partition may hold the same values.
        create(&c, json!({"id": "a", "tenant": "t2", "email": "a@x.org", "first": "Ann", "last": "Lee"}))
            .await
            .unwrap();
        // A composite key clashes only when all its paths match.
        create(&c, json!({"id": "c", "tenant": "t1", "email": "c@x.org", "first": "Ann", "last": "Ray"}))
            .await
            .unwrap();
        let e = c
            .create_item(&json!({"id": "d", "tenant": "t1", "email": "d@x.org", "first": "Ann", "last": "Lee"}), None, None)
            .await
            .unwrap_err();
        assert!(e.to_string().contains("/first, /last"), "{e}");
        // Replace, upsert and patch into a held value; replacing an item with its own values is fine.
        let e = c
            .replace_item(&json!({"id": "c", "tenant": "t1", "email": "a@x.org"}), "c", None, None)
            .await;
        assert!(is_unique_clash(e.map(|_| ())));
        c.replace_item(&json!({"id": "c", "tenant": "t1", "email": "c@x.org", "first": "Ann", "last": "Ray", "v": 2}), "c", None, None)
            .await
            .unwrap();
        let e = c
            .upsert_item(&json!({"id": "c", "tenant": "t1", "email": "a@x.org"}), None, None)
            .await;
        assert!(is_unique_clash(e.map(|_| ())));
        let e = c
            .patch_item::<Value>("c", "t1", &[PatchOperation::set("/email", json!("a@x.org"))], None)
            .await;
        assert!(is_unique_clash(e.map(|_| ())));
        // A missing path is a value too: the second item without /email clashes.
        create(&c, json!({"id": "n1", "tenant": "t3"})).await.unwrap();
        assert!(is_unique_clash(create(&c, json!({"id": "n2", "tenant": "t3", "first": "x"})).await));
        // A delete frees the values.
        c.delete_item("a", "t1", None).await.unwrap();
        create(&c, json!({"id": "b", "tenant": "t1", "email": "a@x.org", "first": "Ann", "last": "Lee"}))
            .await
            .unwrap();
        // A batch with a clashing operation fails whole.
        let batch = TransactionalBatch::new("t1")
            .create_item(&json!({"id": "e", "tenant": "t1", "email": "e@x.org"}))
            .create_item(&json!({"id": "f", "tenant": "t1", "email": "a@x.org"}));
        let r = c.execute_batch(batch).await.unwrap();
        assert!(!r.is_success());
        assert!(c.read_item::<Value>("e", "t1", None).await.is_err(), "rolled back");
        // A JavaScript procedure's write too, rethrown as the 409 it is.
        c.scripts()
            .upsert_stored_procedure(
                "add",
                JavaScript::new(
                    "function add(doc) { var c = getContext().getCollection(); c.createDocument(c.getSelfLink(), doc, function (err) { if (err) throw err; }); }",
                )
                .unwrap(),
            )
            .unwrap();
        let e = c
            .scripts()
            .execute_stored_procedure::<Value>("add", "t1", &[json!({"id": "g", "tenant": "t1", "email": "a@x.org"})])
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 409, "{e}");
    });
}

#[test]
fn fifty_concurrent_creates_of_one_value_make_one_item_and_it_survives_a_restart() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(&t, users()).await;
        let mut set = tokio::task::JoinSet::new();
        for i in 0..50 {
            let c = c.clone();
            set.spawn(async move {
                create(&c, json!({"id": format!("u{i}"), "tenant": "t", "email": "same@x.org", "first": i})).await
            });
        }
        let mut ok = 0;
        while let Some(r) = set.join_next().await {
            match r.unwrap() {
                Ok(()) => ok += 1,
                Err(Error::UniqueKey { .. }) => {}
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(ok, 1);
    });
    // Reopened: the policy and its entries are in the data files.
    let dir = t.dir;
    drop(t.engine);
    let engine = engine::Engine::open(dir.path(), EngineOptions::default()).unwrap();
    rt.block_on(async {
        let c = engine.database("test").container("users");
        let e = create(
            &c,
            json!({"id": "late", "tenant": "t", "email": "same@x.org"}),
        )
        .await;
        assert!(is_unique_clash(e));
        let n = c
            .query_all::<Value>(
                "SELECT VALUE COUNT(1) FROM c",
                engine::NO_PARAMS,
                Default::default(),
            )
            .await
            .unwrap();
        assert_eq!(n.items, vec![json!(1)]);
    });
}

#[test]
fn a_policy_with_a_bad_path_is_refused() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let db = t
            .engine
            .create_database_if_not_exists("test")
            .await
            .unwrap();
        let e = db
            .create_container(ContainerProperties::new("c", "/pk").with_unique_key(&["email"]))
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 400, "{e}");
    });
}
