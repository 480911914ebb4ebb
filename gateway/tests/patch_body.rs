//! The two shapes of a patch body Cosmos DB takes: `{"operations": [...]}` (the Python, .NET and
//! Rust SDKs) and the bare array of operations (the JavaScript SDK's `item.patch([ops])`,
//! issue 39); anything else is a 400 that names both, and changes nothing.

mod common;

use common::signed::{database_d_with_container_c, send, Answer};
use common::TestGateway;
use reqwest::Method;
use serde_json::{json, Value};

/// Every request here names the test item's partition key, "p".
const IN_P: &[(&str, &str)] = &[("x-ms-documentdb-partitionkey", r#"["p"]"#)];

async fn patch(gw: &TestGateway, body: Value) -> Answer {
    send(
        gw,
        Method::PATCH,
        "/dbs/d/colls/c/docs/a",
        ("docs", "dbs/d/colls/c/docs/a"),
        body,
        IN_P,
    )
    .await
}

#[tokio::test]
async fn a_patch_body_is_an_object_with_operations_or_the_bare_array() {
    let gw = TestGateway::start();
    database_d_with_container_c(&gw).await;
    let item = json!({"id": "a", "pk": "p", "n": 1});
    let created = send(
        &gw,
        Method::POST,
        "/dbs/d/colls/c/docs",
        ("docs", "dbs/d/colls/c"),
        item,
        IN_P,
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);

    // The JavaScript SDK's shape: the operations alone.
    let r = patch(&gw, json!([{"op": "incr", "path": "/n", "value": 2}])).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["n"], 3);
    assert!(
        r.charge > 0.0,
        "the engine's charge is reported: {}",
        r.charge
    );

    // The other SDKs' shape, unchanged.
    let r = patch(
        &gw,
        json!({"operations": [{"op": "set", "path": "/s", "value": "x"}]}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!((&r.body["n"], &r.body["s"]), (&json!(3), &json!("x")));

    // Neither: a 400 naming both shapes; a bad operation in an array: a 400 too.
    let r = patch(&gw, json!("set /n 5")).await;
    assert_eq!(r.status, 400, "{}", r.body);
    let message = r.body["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("\"operations\"") && message.contains("array of operations alone"),
        "{message}"
    );
    let r = patch(&gw, json!([{"op": "frobnicate", "path": "/n"}])).await;
    assert_eq!(r.status, 400, "{}", r.body);

    // Neither refusal changed the item.
    let read = gw
        .engine
        .database("d")
        .container("c")
        .read_item::<Value>("a", "p", None)
        .await
        .unwrap()
        .resource
        .unwrap();
    assert_eq!((&read["n"], &read["s"]), (&json!(3), &json!("x")));
}

/// A patch's condition is the engine's (`patch_item_if`): one write, its own charge, a 412 that
/// says why; and it works inside a batch, which refused it before (issue 38).
#[tokio::test]
async fn a_conditional_patch_over_rest_and_in_a_batch() {
    let gw = TestGateway::start();
    database_d_with_container_c(&gw).await;
    let docs = ("docs", "dbs/d/colls/c");
    let item = json!({"id": "a", "pk": "p", "n": 1});
    assert_eq!(
        send(&gw, Method::POST, "/dbs/d/colls/c/docs", docs, item, IN_P)
            .await
            .status,
        201
    );

    let ops = json!([{"op": "incr", "path": "/n", "value": 1}]);
    let r = patch(
        &gw,
        json!({"operations": ops, "condition": "FROM c WHERE c.n = 1"}),
    )
    .await;
    assert_eq!((r.status, &r.body["n"]), (200, &json!(2)), "{}", r.body);
    let r = patch(
        &gw,
        json!({"operations": ops, "condition": "FROM c WHERE c.n = 1"}),
    )
    .await;
    assert_eq!(r.status, 412, "{}", r.body);
    assert_eq!(r.body["code"], "PreconditionFailed");
    assert!(
        r.charge >= 1.0,
        "the refusal reports what it cost: {}",
        r.charge
    );
    let r = patch(
        &gw,
        json!({"operations": ops, "condition": "WHERE c.n = 2"}),
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.body);

    let batch = |condition: &str| {
        json!([
            {"operationType": "Create", "resourceBody": {"id": "x", "pk": "p"}},
            {"operationType": "Patch", "id": "a",
             "resourceBody": {"operations": ops, "condition": condition}}
        ])
    };
    let headers = [
        IN_P[0],
        ("x-ms-cosmos-is-batch-request", "true"),
        ("x-ms-cosmos-batch-atomic", "true"),
    ];
    let r = send(
        &gw,
        Method::POST,
        "/dbs/d/colls/c/docs",
        docs,
        batch("FROM c WHERE c.n = 1"),
        &headers,
    )
    .await;
    assert_eq!(r.status, 207, "{}", r.body);
    assert_eq!(r.body[1]["statusCode"], 412, "{}", r.body);
    let r = send(
        &gw,
        Method::POST,
        "/dbs/d/colls/c/docs",
        docs,
        batch("FROM c WHERE c.n = 2"),
        &headers,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body[1]["resourceBody"]["n"], 3, "{}", r.body);
}
