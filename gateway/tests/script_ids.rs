//! Scripts' ids are resource ids like any other: a user-defined function named `sample udf`
//! (azure-cosmos 4.17.1's test_udf_crud) is created, read and deleted by its link with the space
//! escaped as `%20`; only queries cannot call it.

mod common;

use common::signed::{database_d_with_container_c, send};
use common::TestGateway;
use reqwest::Method;
use serde_json::{json, Value};

#[tokio::test]
async fn a_udf_id_with_a_space_is_served_by_its_escaped_link() {
    let gw = TestGateway::start();
    database_d_with_container_c(&gw).await;
    let udf = json!({"id": "sample udf", "body": "function (x) { return x; }"});
    let created = send(
        &gw,
        Method::POST,
        "/dbs/d/colls/c/udfs",
        ("udfs", "dbs/d/colls/c"),
        udf,
        &[],
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.body);
    assert_eq!(created.body["id"], "sample udf");
    let link = ("udfs", "dbs/d/colls/c/udfs/sample udf");
    let path = "/dbs/d/colls/c/udfs/sample%20udf";
    let read = send(&gw, Method::GET, path, link, Value::Null, &[]).await;
    assert_eq!(
        (read.status, &read.body["id"]),
        (200, &json!("sample udf")),
        "{}",
        read.body
    );
    // By its _self link too (the SDK's dictionary-or-object reads use it), signed as the SDKs
    // sign a link of resource ids: with the resource's own, lower-cased.
    let rid = created.body["_rid"].as_str().unwrap().to_lowercase();
    let by_rid = created.body["_self"]
        .as_str()
        .unwrap()
        .trim_end_matches('/');
    let read = send(
        &gw,
        Method::GET,
        &format!("/{by_rid}"),
        ("udfs", &rid),
        Value::Null,
        &[],
    )
    .await;
    assert_eq!(read.status, 200, "{by_rid}: {}", read.body);
    let deleted = send(&gw, Method::DELETE, path, link, Value::Null, &[]).await;
    assert_eq!(deleted.status, 204, "{}", deleted.body);
    let gone = send(&gw, Method::GET, path, link, Value::Null, &[]).await;
    assert_eq!(gone.status, 404);
}
