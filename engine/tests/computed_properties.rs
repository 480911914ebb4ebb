//! Computed properties on real storage: defined with the container, queried as `c.<name>` in
//! SELECT, WHERE and ORDER BY (routed and fanned out), absent from `SELECT *`, replaced and
//! removed with the container's settings, and refused where the service refuses them.

mod common;

use engine::{ComputedProperty, ContainerProperties, EngineOptions, QueryOptions, NO_PARAMS};
use serde_json::{json, Value};

fn props() -> ContainerProperties {
    ContainerProperties::new("c", "/pk")
        .with_initial_partitions(3)
        .with_computed_property("cp_lower", "SELECT VALUE LOWER(c.group) FROM c")
        .with_computed_property("cp_sq", "SELECT VALUE POWER(c.val, 2) FROM c")
}

async fn query(c: &engine::ContainerClient, sql: &str, pk: Option<&str>) -> Vec<Value> {
    let options = QueryOptions {
        partition_key: pk.map(Into::into),
        ..Default::default()
    };
    c.query_all::<Value>(sql, NO_PARAMS, options)
        .await
        .unwrap()
        .items
}

#[test]
fn queries_filter_project_and_order_by_computed_properties() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, props()).await;
        for (i, group) in ["GrOuP1", "group2", "GROUP1", "Group3"].iter().enumerate() {
            let pk = format!("p{}", i % 2);
            c.create_item(
                &json!({"id": format!("i{i}"), "pk": pk, "group": group, "val": i + 1}),
                None,
                None,
            )
            .await
            .unwrap();
        }
        let ids = |rows: Vec<Value>| -> Vec<String> {
            rows.iter()
                .map(|r| {
                    r.as_str()
                        .map_or_else(|| r["id"].to_string(), str::to_owned)
                })
                .collect()
        };
        // Fanned out over the three partitions, and routed to one logical partition.
        let all = "SELECT VALUE c.id FROM c WHERE c.cp_lower = 'group1'";
        let mut got = ids(query(&c, all, None).await);
        got.sort();
        assert_eq!(got, ["i0", "i2"]);
        assert_eq!(ids(query(&c, all, Some("p0")).await), ["i0", "i2"]);
        assert!(query(&c, all, Some("p1")).await.is_empty());
        // Projected under its own name, and ordered by.
        let rows = query(
            &c,
            "SELECT c.id, c.cp_sq FROM c ORDER BY c.cp_sq DESC",
            None,
        )
        .await;
        assert_eq!(
            rows,
            vec![
                json!({"id": "i3", "cp_sq": 16}),
                json!({"id": "i2", "cp_sq": 9}),
                json!({"id": "i1", "cp_sq": 4}),
                json!({"id": "i0", "cp_sq": 1}),
            ]
        );
        // Never stored: `SELECT *` returns the item as written.
        let star = query(&c, "SELECT * FROM c WHERE c.id = 'i1'", Some("p1")).await;
        assert!(star[0].get("cp_lower").is_none() && star[0].get("cp_sq").is_none());
        let read = c.read_item::<Value>("i1", "p1", None).await.unwrap();
        assert!(read.resource.unwrap().get("cp_sq").is_none());
        // The definition reads back as given.
        let def = t.engine.database("test").containers()[0].clone();
        assert_eq!(
            def.computed_properties(),
            [
                ComputedProperty::new("cp_lower", "SELECT VALUE LOWER(c.group) FROM c"),
                ComputedProperty::new("cp_sq", "SELECT VALUE POWER(c.val, 2) FROM c"),
            ]
        );
    });
}

#[test]
fn replacing_computed_properties_changes_what_queries_see() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, props()).await;
        c.create_item(
            &json!({"id": "a", "pk": "p", "group": "Big", "val": 3}),
            None,
            None,
        )
        .await
        .unwrap();
        let db = t.engine.database("test");
        db.replace_computed_properties(
            "c",
            vec![ComputedProperty::new(
                "cp_upper",
                "SELECT VALUE UPPER(c.group) FROM c",
            )],
        )
        .await
        .unwrap();
        let q = "SELECT VALUE [c.cp_upper, c.cp_lower] FROM c";
        // The old names are plain (absent) properties again.
        assert_eq!(query(&c, q, Some("p")).await, vec![json!(["BIG"])]);

        // Refused definitions leave the container's as they were.
        for bad in [
            ComputedProperty::new("id", "SELECT VALUE 1 FROM c"),
            ComputedProperty::new("cp", "SELECT VALUE c.a FROM c WHERE c.b = 1"),
            ComputedProperty::new("cp", "SELECT VALUE GetCurrentTicks() FROM c"),
        ] {
            let e = db
                .replace_computed_properties("c", vec![bad.clone()])
                .await
                .unwrap_err();
            assert_eq!(e.status_code(), 400, "{bad:?}: {e}");
        }
        assert_eq!(query(&c, q, Some("p")).await, vec![json!(["BIG"])]);

        db.replace_computed_properties("c", Vec::new())
            .await
            .unwrap();
        assert_eq!(query(&c, q, Some("p")).await, vec![json!([])]);
        assert!(db.containers()[0].computed_properties().is_empty());
    });
}

#[test]
fn computed_properties_survive_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    common::rt().block_on(async {
        let engine = engine::Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let db = engine.create_database("test").await.unwrap();
        let c = db.create_container(props()).await.unwrap();
        c.create_item(&json!({"id": "a", "pk": "p", "val": 5}), None, None)
            .await
            .unwrap();
    });
    common::rt().block_on(async {
        let engine = engine::Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let c = engine.database("test").container("c");
        let rows = c
            .query_all::<Value>(
                "SELECT VALUE c.cp_sq FROM c",
                NO_PARAMS,
                QueryOptions::default(),
            )
            .await
            .unwrap()
            .items;
        assert_eq!(rows, vec![json!(25)]);
    });
}

#[test]
fn more_than_twenty_are_refused_at_creation() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let db = t.engine.create_database("test").await.unwrap();
        let mut p = ContainerProperties::new("c", "/pk");
        for i in 0..21 {
            p = p.with_computed_property(&format!("cp{i}"), "SELECT VALUE 1 FROM c");
        }
        let e = db.create_container(p).await.unwrap_err();
        assert_eq!(e.status_code(), 400, "{e}");
        assert!(e.to_string().contains("at most 20"), "{e}");
        assert!(db.containers().is_empty());
    });
}
