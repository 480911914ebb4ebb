//! Issue 34: values compare as Cosmos DB compares them where keys and uniqueness are decided.
//! `-0.0` and `0` are one value (partition key hashing, routing, unique keys); a missing unique
//! path counts as `null`; a unique key naming a path twice is refused; a number literal beyond a
//! double is refused as a parameter beyond one is; `RegexMatch` patterns the engine cannot run
//! are a 400 naming them.

mod common;

use engine::{ContainerProperties, EngineOptions, PartitionKey, QueryOptions};
use serde_json::{json, Value};

async fn ids(c: &engine::ContainerClient, sql: &str, pk: Option<PartitionKey>) -> Vec<Value> {
    c.query_all::<Value>(
        sql,
        engine::NO_PARAMS,
        QueryOptions {
            partition_key: pk,
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .items
}

#[test]
fn negative_zero_is_zero_as_a_partition_key() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(
            &t,
            ContainerProperties::new("c", "/pk").with_initial_partitions(4),
        )
        .await;
        c.create_item(&json!({"id": "neg", "pk": -0.0}), None, None)
            .await
            .unwrap();
        // One logical partition: a point read, a routed query and a filter on 0 find it.
        let r = c.read_item::<Value>("neg", 0, None).await.unwrap();
        assert_eq!(r.resource.unwrap()["id"], "neg");
        c.read_item::<Value>("neg", -0.0, None).await.unwrap();
        let pk = PartitionKey::from_text("0", "--pk").unwrap();
        assert_eq!(
            ids(&c, "SELECT VALUE c.id FROM c", Some(pk)).await,
            vec![json!("neg")]
        );
        assert_eq!(
            ids(&c, "SELECT VALUE c.id FROM c WHERE c.pk = 0", None).await,
            vec![json!("neg")]
        );
        // The same id under 0 is the same item.
        let e = c
            .create_item(&json!({"id": "neg", "pk": 0}), None, None)
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 409, "{e}");
        assert_eq!(
            PartitionKey::from(-0.0).cosmos_epk(),
            PartitionKey::from(0).cosmos_epk()
        );
        assert_eq!(
            PartitionKey::Number(-0.0).cosmos_epk(),
            PartitionKey::Number(0.0).cosmos_epk()
        );
    });
}

#[test]
fn negative_zero_is_zero_in_a_hierarchical_key() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(&t, ContainerProperties::hierarchical("h", &["/a", "/b"])).await;
        c.create_item(&json!({"id": "x", "a": "t", "b": -0.0}), None, None)
            .await
            .unwrap();
        let pk = PartitionKey::from_text(r#"["t", 0]"#, "--pk").unwrap();
        c.read_item::<Value>("x", pk.clone(), None).await.unwrap();
        assert_eq!(
            ids(&c, "SELECT VALUE c.id FROM c", Some(pk)).await,
            vec![json!("x")]
        );
    });
}

fn users() -> ContainerProperties {
    ContainerProperties::new("users", "/tenant")
        .with_unique_key(&["/email"])
        .with_unique_key(&["/first", "/last"])
}

#[test]
fn unique_keys_take_a_missing_path_as_null_and_negative_zero_as_zero() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(&t, users()).await;
        // Missing, then null: one value.
        c.create_item(&json!({"id": "a", "tenant": "t1"}), None, None)
            .await
            .unwrap();
        let e = c
            .create_item(
                &json!({"id": "b", "tenant": "t1", "email": null, "first": 1}),
                None,
                None,
            )
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 409, "{e}");
        assert!(e.to_string().contains("/email"), "{e}");
        // Null, then missing, in a compound key.
        c.create_item(
            &json!({"id": "c", "tenant": "t2", "email": "c@x", "first": "Ann", "last": null}),
            None,
            None,
        )
        .await
        .unwrap();
        let e = c
            .create_item(
                &json!({"id": "d", "tenant": "t2", "email": "d@x", "first": "Ann"}),
                None,
                None,
            )
            .await
            .unwrap_err();
        assert!(e.to_string().contains("/first, /last"), "{e}");
        // -0.0 and 0, also inside an object value.
        c.create_item(
            &json!({"id": "e", "tenant": "t3", "email": {"n": 0}}),
            None,
            None,
        )
        .await
        .unwrap();
        let e = c
            .create_item(
                &json!({"id": "f", "tenant": "t3", "email": {"n": -0.0}, "first": 2}),
                None,
                None,
            )
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 409, "{e}");
        // A different value is fine, and freeing the value lets the other in.
        c.create_item(
            &json!({"id": "f", "tenant": "t3", "email": {"n": 1}, "first": 2}),
            None,
            None,
        )
        .await
        .unwrap();
        c.delete_item("a", "t1", None).await.unwrap();
        c.create_item(
            &json!({"id": "b", "tenant": "t1", "email": null, "first": 1}),
            None,
            None,
        )
        .await
        .unwrap();
    });
    // What the writer enforced is what `check` expects.
    let reports = t.engine.check().unwrap();
    assert!(engine::check_failed(&reports).is_none(), "{reports:?}");
}

#[test]
fn a_unique_key_naming_a_path_twice_is_refused() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let db = t
            .engine
            .create_database_if_not_exists("test")
            .await
            .unwrap();
        let e = db
            .create_container(
                ContainerProperties::new("c", "/pk").with_unique_key(&["/name", "/name"]),
            )
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 400, "{e}");
        assert!(e.to_string().contains("/name twice"), "{e}");
    });
}

#[test]
fn number_literals_beyond_a_double_are_refused() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        c.create_item(&json!({"id": "a", "pk": "p", "n": 1}), None, None)
            .await
            .unwrap();
        let huge = format!("1{}", "0".repeat(315));
        for lit in [huge.as_str(), "1e999", "-1e999"] {
            let sql = format!("SELECT VALUE c.id FROM c WHERE c.n < {lit}");
            let e = c
                .query_all::<Value>(&sql, engine::NO_PARAMS, Default::default())
                .await
                .unwrap_err();
            assert_eq!(e.status_code(), 400, "{lit}: {e}");
            // The number's own position (after a sign).
            let column = sql.find(lit.trim_start_matches('-')).unwrap() + 1;
            let at = format!("line 1, column {column}");
            assert!(e.to_string().contains(&at), "{lit}: {e}");
            assert!(e.to_string().contains("double"), "{lit}: {e}");
        }
        // The largest double and the smallest still read.
        for lit in ["1.7976931348623157e308", "5e-324", "1e-999"] {
            let sql = format!("SELECT VALUE c.id FROM c WHERE c.n < {lit} OR true");
            c.query_all::<Value>(&sql, engine::NO_PARAMS, Default::default())
                .await
                .unwrap();
        }
    });
}
