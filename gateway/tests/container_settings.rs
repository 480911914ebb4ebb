//! A container's settings over REST as the service takes them: `computedProperties` (stored,
//! read back, queried as `c.<name>`, replaced and removed by a replace, refused when malformed
//! in the service's words), a replace that changes `defaultTtl`, and an item replace whose body
//! renames the item.

mod common;

use common::signed::{database_d_with_container_c, send, Answer};
use common::TestGateway;
use reqwest::Method;
use serde_json::{json, Value};

const IN_P: &[(&str, &str)] = &[("x-ms-documentdb-partitionkey", r#"["p"]"#)];
const COLL: (&str, &str) = ("colls", "dbs/d/colls/c");

fn definition(extra: Value) -> Value {
    let mut body =
        json!({"id": "c", "partitionKey": {"paths": ["/pk"], "kind": "Hash", "version": 2}});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    body
}

async fn replace(gw: &TestGateway, body: Value) -> Answer {
    send(gw, Method::PUT, "/dbs/d/colls/c", COLL, body, &[]).await
}

async fn read(gw: &TestGateway) -> Value {
    let r = send(gw, Method::GET, "/dbs/d/colls/c", COLL, Value::Null, &[]).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.body
}

async fn query(gw: &TestGateway, sql: &str) -> Vec<Value> {
    let headers = [
        ("x-ms-documentdb-isquery", "true"),
        ("content-type", "application/query+json"),
        IN_P[0],
    ];
    let r = send(
        gw,
        Method::POST,
        "/dbs/d/colls/c/docs",
        ("docs", "dbs/d/colls/c"),
        json!({"query": sql, "parameters": []}),
        &headers,
    )
    .await;
    assert_eq!(r.status, 200, "{sql}: {}", r.body);
    r.body["Documents"].as_array().unwrap().clone()
}

async fn create_item(gw: &TestGateway, item: Value) {
    let r = send(
        gw,
        Method::POST,
        "/dbs/d/colls/c/docs",
        ("docs", "dbs/d/colls/c"),
        item,
        IN_P,
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
}

#[tokio::test]
async fn computed_properties_are_kept_queried_replaced_and_removed() {
    let gw = TestGateway::start();
    let db = send(
        &gw,
        Method::POST,
        "/dbs",
        ("dbs", ""),
        json!({"id": "d"}),
        &[],
    )
    .await;
    assert_eq!(db.status, 201);
    let cps = json!([{"name": "cp_lower", "query": "SELECT VALUE LOWER(c.name) FROM c"}]);
    let created = send(
        &gw,
        Method::POST,
        "/dbs/d/colls",
        ("colls", "dbs/d"),
        definition(json!({"computedProperties": cps})),
        &[],
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    assert_eq!(created.body["computedProperties"], cps);
    assert_eq!(read(&gw).await["computedProperties"], cps);
    create_item(&gw, json!({"id": "a", "pk": "p", "name": "MiXeD"})).await;
    let rows = query(&gw, "SELECT * FROM c WHERE c.cp_lower = 'mixed'").await;
    assert_eq!(rows.len(), 1);
    assert!(rows[0].get("cp_lower").is_none(), "not in SELECT *");
    assert_eq!(
        query(&gw, "SELECT c.cp_lower FROM c").await,
        vec![json!({"cp_lower": "mixed"})]
    );

    // Malformed: the service's words; the definition is unchanged.
    for bad in [
        json!({"name": "cp_lower", "query": "SELECT VALUE LOWER(c.name) FROM c"}),
        json!([{"name": "cp"}]),
    ] {
        let r = replace(&gw, definition(json!({"computedProperties": bad}))).await;
        assert_eq!(r.status, 400, "{}", r.body);
        assert!(
            r.body["message"]
                .as_str()
                .unwrap()
                .contains("One of the specified inputs is invalid"),
            "{}",
            r.body
        );
    }
    let r = replace(
        &gw,
        definition(
            json!({"computedProperties": [{"name": "_ts", "query": "SELECT VALUE 1 FROM c"}]}),
        ),
    )
    .await;
    assert_eq!(r.status, 400, "a system property name: {}", r.body);
    assert_eq!(read(&gw).await["computedProperties"], cps);

    let upper = json!([{"name": "cp_upper", "query": "SELECT VALUE UPPER(c.name) FROM c"}]);
    let r = replace(&gw, definition(json!({"computedProperties": upper}))).await;
    assert_eq!((r.status, &r.body["computedProperties"]), (200, &upper));
    assert_eq!(
        query(&gw, "SELECT VALUE [c.cp_upper, c.cp_lower] FROM c").await,
        vec![json!(["MIXED"])]
    );
    // A replace without them removes them, as the service does.
    let r = replace(&gw, definition(json!({}))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(read(&gw).await.get("computedProperties").is_none());
}

#[tokio::test]
async fn a_replace_changes_the_default_ttl() {
    let gw = TestGateway::start();
    database_d_with_container_c(&gw).await;
    let before = read(&gw).await;
    assert!(before.get("defaultTtl").is_none());
    let r = replace(&gw, definition(json!({"defaultTtl": 30}))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let after = read(&gw).await;
    assert_eq!(after["defaultTtl"], 30);
    assert_ne!(
        after["_etag"], before["_etag"],
        "the etag follows the settings"
    );
    let r = replace(&gw, definition(json!({"defaultTtl": 0}))).await;
    assert_eq!(r.status, 400, "{}", r.body);
    let r = replace(&gw, definition(json!({}))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        read(&gw).await.get("defaultTtl").is_none(),
        "absent: TTL off"
    );
}

#[tokio::test]
async fn an_item_replace_may_rename_the_item() {
    let gw = TestGateway::start();
    database_d_with_container_c(&gw).await;
    create_item(&gw, json!({"id": "a", "pk": "p"})).await;
    let r = send(
        &gw,
        Method::PUT,
        "/dbs/d/colls/c/docs/a",
        ("docs", "dbs/d/colls/c/docs/a"),
        json!({"id": "b", "pk": "p", "renamed": true}),
        IN_P,
    )
    .await;
    assert_eq!((r.status, &r.body["id"]), (200, &json!("b")), "{}", r.body);
    let old = send(
        &gw,
        Method::GET,
        "/dbs/d/colls/c/docs/a",
        ("docs", "dbs/d/colls/c/docs/a"),
        Value::Null,
        IN_P,
    )
    .await;
    assert_eq!(old.status, 404);
    assert_eq!(
        query(&gw, "SELECT VALUE c.id FROM c").await,
        vec![json!("b")]
    );
}
