//! Effective partition keys a client sends (`x-ms-start-epk` / `x-ms-end-epk`, the EPK bounds of
//! a cross-partition query's continuation) are checked before they are read: a bound that is
//! not hex in whole bytes is a 400 naming where it came from, never a range read some other way
//! and answered with success (a non-hex start read as the end of the key space under hash v2,
//! or with its bad pair skipped under hash v1, so another hash's items). Valid bounds are taken
//! in either case, as the SDKs may send them.

mod common;

use std::collections::BTreeSet;

use common::signed::{database_d_with_container_c, request, send, Answer};
use common::TestGateway;
use reqwest::Method;
use serde_json::{json, Value};

const ITEMS: usize = 40;

/// Container `c` (hash v2) and `v1` (hash v1) of database `d`, each with `ITEMS` items.
async fn containers_with_items(gw: &TestGateway) {
    database_d_with_container_c(gw).await;
    let v1 = json!({"id": "v1", "partitionKey": {"paths": ["/pk"], "kind": "Hash", "version": 1}});
    let r = send(
        gw,
        Method::POST,
        "/dbs/d/colls",
        ("colls", "dbs/d"),
        v1,
        &[],
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    for c in ["c", "v1"] {
        for i in 0..ITEMS {
            let pk = format!("p{i}");
            let r = send(
                gw,
                Method::POST,
                &format!("/dbs/d/colls/{c}/docs"),
                ("docs", &format!("dbs/d/colls/{c}")),
                json!({"id": format!("i{i}"), "pk": pk}),
                &[("x-ms-documentdb-partitionkey", &format!("[\"{pk}\"]"))],
            )
            .await;
            assert_eq!(r.status, 201, "{}", r.body);
        }
    }
}

async fn query(gw: &TestGateway, c: &str, headers: &[(&str, &str)]) -> Answer {
    let mut all = vec![
        ("x-ms-documentdb-isquery", "true"),
        ("content-type", "application/query+json"),
    ];
    all.extend_from_slice(headers);
    send(
        gw,
        Method::POST,
        &format!("/dbs/d/colls/{c}/docs"),
        ("docs", &format!("dbs/d/colls/{c}")),
        json!({"query": "SELECT * FROM c", "parameters": []}),
        &all,
    )
    .await
}

async fn change_feed(gw: &TestGateway, headers: &[(&str, &str)]) -> Answer {
    let mut all = vec![("a-im", "Incremental feed")];
    all.extend_from_slice(headers);
    request(
        gw,
        Method::GET,
        "/dbs/d/colls/c/docs",
        ("docs", "dbs/d/colls/c"),
        None,
        &all,
    )
    .await
}

fn ids(r: &Answer) -> BTreeSet<String> {
    assert_eq!(r.status, 200, "{}", r.body);
    r.body["Documents"]
        .as_array()
        .unwrap_or_else(|| panic!("documents: {}", r.body))
        .iter()
        .map(|d| d["id"].as_str().unwrap().to_owned())
        .collect()
}

/// A 400 whose message names `field` and quotes `value`.
fn refused(r: &Answer, field: &str, value: &str) {
    assert_eq!(r.status, 400, "{field} {value}: {}", r.body);
    let message = r.body["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(field) && message.contains(value),
        "{field} {value}: {message}"
    );
}

#[tokio::test]
async fn an_epk_header_that_is_not_hex_is_a_400_naming_it() {
    let gw = TestGateway::start();
    containers_with_items(&gw).await;
    let bad = "05ZZ0000000000000000000000000000";
    // Hash v2: the start was read as the end of the key space (items above "05Z…" as strings).
    for (start, end, field, value) in [
        (bad, "FF", "x-ms-start-epk", bad),
        ("", "3FZZ", "x-ms-end-epk", "3FZZ"),
        ("1", "FF", "x-ms-start-epk", "\"1\""),
    ] {
        let h = [("x-ms-start-epk", start), ("x-ms-end-epk", end)];
        refused(&query(&gw, "c", &h).await, field, value);
        refused(&change_feed(&gw, &h).await, field, value);
    }
    // Without the other bound too.
    refused(
        &query(&gw, "c", &[("x-ms-start-epk", bad)]).await,
        "x-ms-start-epk",
        bad,
    );
    // Hash v1: a key's EPK with a bad pair in its number was read as another hash.
    let v1 = "05C1E9ZZ4991DE08713400";
    let h = [("x-ms-start-epk", v1), ("x-ms-end-epk", "FF")];
    refused(&query(&gw, "v1", &h).await, "x-ms-start-epk", v1);
}

#[tokio::test]
async fn a_lower_case_epk_range_answers_what_the_upper_case_one_does() {
    let gw = TestGateway::start();
    containers_with_items(&gw).await;
    let upper = [
        ("x-ms-start-epk", "0FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"),
        ("x-ms-end-epk", "2FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"),
    ];
    let lower = [
        ("x-ms-start-epk", "0fffffffffffffffffffffffffffffff"),
        ("x-ms-end-epk", "2fffffffffffffffffffffffffffffff"),
    ];
    // Cosmos DB's EPKs leave the top two bits clear: `[0F…, 2F…)` is half the key space.
    let want = ids(&query(&gw, "c", &upper).await);
    assert!(
        !want.is_empty() && want.len() < ITEMS,
        "the range holds some items, not all: {want:?}"
    );
    assert_eq!(ids(&query(&gw, "c", &lower).await), want);
    assert_eq!(ids(&change_feed(&gw, &upper).await), want);
    assert_eq!(ids(&change_feed(&gw, &lower).await), want);
    // The bounds of the key space, as the SDKs send them for a whole feed range (no narrower
    // than the container: a query of it says it may cross partitions, as any other).
    let whole = [
        ("x-ms-start-epk", ""),
        ("x-ms-end-epk", "ff"),
        ("x-ms-documentdb-query-enablecrosspartition", "true"),
    ];
    assert_eq!(ids(&query(&gw, "c", &whole).await).len(), ITEMS);
}

#[tokio::test]
async fn a_continuation_whose_range_is_not_hex_is_a_400() {
    let gw = TestGateway::start();
    containers_with_items(&gw).await;
    let cross = [("x-ms-documentdb-query-enablecrosspartition", "true")];
    let first = query(&gw, "c", &cross).await;
    assert_eq!(first.status, 200, "{}", first.body);
    // The service's composite form, as the gateway writes it (one range per page).
    let token = |min: &str, max: &str| -> String {
        json!([{"token": Value::Null, "range": {"min": min, "max": max}}]).to_string()
    };
    let good = token("", "FF");
    let mut h = cross.to_vec();
    h.push(("x-ms-continuation", &good));
    assert_eq!(ids(&query(&gw, "c", &h).await).len(), ITEMS);
    for (min, max, field, value) in [
        ("05ZZ", "FF", "range.min", "05ZZ"),
        ("", "F", "range.max", "\"F\""),
    ] {
        let bad = token(min, max);
        let mut h = cross.to_vec();
        h.push(("x-ms-continuation", &bad));
        let r = query(&gw, "c", &h).await;
        refused(&r, field, value);
        assert!(
            r.body["message"].as_str().unwrap().contains("continuation"),
            "{}",
            r.body
        );
    }
}
