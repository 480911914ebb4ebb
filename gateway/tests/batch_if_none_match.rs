//! `ifNoneMatch` on a transactional batch's operations over REST (azure-cosmos sends it from
//! `if_none_match_etag`): a write whose item has the etag named fails the batch with 412 (424
//! for the others) and commits nothing; another etag lets it through; a read whose item still
//! has the etag is 304 without a body and does not fail the batch.

mod common;

use common::signed::{database_d_with_container_c, send, Answer};
use common::TestGateway;
use reqwest::Method;
use serde_json::{json, Value};

async fn batch(gw: &TestGateway, ops: Value) -> Answer {
    send(
        gw,
        Method::POST,
        "/dbs/d/colls/c/docs",
        ("docs", "dbs/d/colls/c"),
        ops,
        &[
            ("x-ms-documentdb-partitionkey", r#"["p"]"#),
            ("x-ms-cosmos-is-batch-request", "true"),
            ("x-ms-cosmos-batch-atomic", "true"),
        ],
    )
    .await
}

fn statuses(r: &Answer) -> Vec<u64> {
    r.body
        .as_array()
        .unwrap_or_else(|| panic!("results: {}", r.body))
        .iter()
        .map(|o| o["statusCode"].as_u64().unwrap())
        .collect()
}

#[tokio::test]
async fn if_none_match_holds_a_batch_write_and_makes_a_read_304() {
    let gw = TestGateway::start();
    database_d_with_container_c(&gw).await;
    let r = batch(
        &gw,
        json!([{"operationType": "Create", "resourceBody": {"id": "a", "pk": "p", "n": 1}}]),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let etag = r.body[0]["eTag"].as_str().unwrap().to_owned();

    let replace = |not: &str| {
        json!({"operationType": "Replace", "id": "a", "ifNoneMatch": not,
               "resourceBody": {"id": "a", "pk": "p", "n": 2}})
    };
    let create_b = json!({"operationType": "Create", "resourceBody": {"id": "b", "pk": "p"}});
    for not in [etag.as_str(), "*"] {
        let r = batch(&gw, json!([create_b, replace(not)])).await;
        assert_eq!(r.status, 207, "{}", r.body);
        assert_eq!(statuses(&r), [424, 412], "{not}: {}", r.body);
    }
    let b = gw
        .engine
        .database("d")
        .container("c")
        .read_item::<Value>("b", "p", None)
        .await;
    assert!(b.is_err(), "a failed batch commits nothing");

    // A read of the unchanged item: 304, no body, the batch goes on.
    let r = batch(
        &gw,
        json!([
            {"operationType": "Read", "id": "a", "ifNoneMatch": etag},
            replace("\"another\"")
        ]),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(statuses(&r), [304, 200]);
    assert!(r.body[0].get("resourceBody").is_none(), "{}", r.body);
    assert_eq!(r.body[1]["resourceBody"]["n"], 2);

    // Changed since: the read answers the item.
    let r = batch(
        &gw,
        json!([{"operationType": "Read", "id": "a", "ifNoneMatch": etag}]),
    )
    .await;
    assert_eq!(statuses(&r), [200]);
    assert_eq!(r.body[0]["resourceBody"]["n"], 2);
}
