//! Bulk as the SDKs send it (a batch with `x-ms-cosmos-batch-atomic: False`, each operation's
//! key in its own `partitionKey`), by hand-made HTTP so that `cargo test -p gateway` covers what
//! `sdk-js/tests/items.test.js` drives with the JavaScript SDK: one result per operation, the
//! ones after a failure run (or answer 424 when `x-ms-cosmos-batch-continue-on-error` is false),
//! the request's charge is their sum, and a malformed operation refuses the request whole.

mod common;

use common::signed::{database_d_with_container_c, send, Answer};
use common::TestGateway;
use reqwest::Method;
use serde_json::{json, Value};

async fn bulk(gw: &TestGateway, ops: Value, continue_on_error: bool) -> Answer {
    let go_on = if continue_on_error { "True" } else { "False" };
    send(
        gw,
        Method::POST,
        "/dbs/d/colls/c/docs",
        ("docs", "dbs/d/colls/c"),
        ops,
        &[
            ("x-ms-cosmos-is-batch-request", "True"),
            ("x-ms-cosmos-batch-atomic", "False"),
            ("x-ms-cosmos-batch-continue-on-error", go_on),
            ("x-ms-documentdb-partitionkeyrangeid", "0"),
        ],
    )
    .await
}

fn statuses(a: &Answer) -> Vec<u64> {
    let results = a.body.as_array().expect("an array of results");
    results
        .iter()
        .map(|r| r["statusCode"].as_u64().unwrap())
        .collect()
}

#[tokio::test]
async fn bulk_answers_each_operation_on_its_own() {
    let gw = TestGateway::start();
    database_d_with_container_c(&gw).await;

    let create = |id: &str, pk: &str| {
        json!({"operationType": "Create", "partitionKey": format!("[\"{pk}\"]"),
               "resourceBody": {"id": id, "pk": pk}})
    };
    // Two keys, a duplicate in between: it fails alone and the rest are written.
    let r = bulk(
        &gw,
        json!([create("a", "p"), create("a", "p"), create("b", "q"),
               {"operationType": "Read", "id": "a", "partitionKey": "[\"p\"]"},
               {"operationType": "Delete", "id": "nope", "partitionKey": "[\"p\"]"}]),
        true,
    )
    .await;
    assert_eq!(r.status, 207, "{}", r.body);
    assert_eq!(statuses(&r), [201, 409, 201, 200, 404]);
    let results = r.body.as_array().unwrap();
    assert_eq!(results[3]["resourceBody"]["id"], "a");
    assert!(results[0]["eTag"].is_string());
    let sum: f64 = results
        .iter()
        .map(|o| o["requestCharge"].as_f64().unwrap())
        .sum();
    assert!(
        r.charge > 0.0 && (r.charge - sum).abs() < 0.05,
        "{} vs {sum}",
        r.charge
    );

    // Not continuing on error: what follows a failure answers 424 and is not written.
    let r = bulk(&gw, json!([create("a", "p"), create("c", "p")]), false).await;
    assert_eq!(statuses(&r), [409, 424]);
    let read = bulk(
        &gw,
        json!([{"operationType": "Read", "id": "c", "partitionKey": "[\"p\"]"}]),
        true,
    )
    .await;
    assert_eq!(statuses(&read), [404]);

    // All well: a 200. A malformed operation: a 400 for the request, nothing written.
    let r = bulk(&gw, json!([create("d", "p")]), true).await;
    assert_eq!((r.status, statuses(&r)), (200, vec![201]));
    let r = bulk(&gw, json!([create("e", "p"), {"operationType": "Create", "resourceBody": {"id": "f", "pk": "p"}}]), true).await;
    assert_eq!(r.status, 400, "{}", r.body);
    let read = bulk(
        &gw,
        json!([{"operationType": "Read", "id": "e", "partitionKey": "[\"p\"]"}]),
        true,
    )
    .await;
    assert_eq!(statuses(&read), [404]);
}

#[tokio::test]
async fn a_bare_lsn_continues_the_change_feed_after_it() {
    let gw = TestGateway::start();
    database_d_with_container_c(&gw).await;
    for i in 0..4 {
        let r = send(
            &gw,
            Method::POST,
            "/dbs/d/colls/c/docs",
            ("docs", "dbs/d/colls/c"),
            json!({"id": format!("i{i}"), "pk": "p"}),
            &[("x-ms-documentdb-partitionkey", "[\"p\"]")],
        )
        .await;
        assert_eq!(r.status, 201);
    }
    let feed = |etag: &'static str| {
        let gw = &gw;
        async move {
            send(
                gw,
                Method::GET,
                "/dbs/d/colls/c/docs",
                ("docs", "dbs/d/colls/c"),
                Value::Null,
                &[("a-im", "Incremental feed"), ("if-none-match", etag)],
            )
            .await
        }
    };
    let all = send(
        &gw,
        Method::GET,
        "/dbs/d/colls/c/docs",
        ("docs", "dbs/d/colls/c"),
        Value::Null,
        &[("a-im", "Incremental feed")],
    )
    .await;
    let lsns: Vec<u64> = all.body["Documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["_lsn"].as_u64().unwrap())
        .collect();
    assert_eq!(lsns.len(), 4);
    assert_eq!(lsns[1], 2, "one LSN per write in one partition");
    // Quoted, as an etag is sent, or bare.
    for etag in ["\"2\"", "2"] {
        let after = feed(etag).await;
        assert_eq!(after.status, 200, "{}", after.body);
        let ids: Vec<&str> = after.body["Documents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["i2", "i3"]);
    }
    assert_eq!(
        feed("\"4\"").await.status,
        304,
        "nothing after the last LSN"
    );
}
