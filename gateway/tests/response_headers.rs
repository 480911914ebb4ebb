//! The response headers the SDKs read beside the body (issue 35): session tokens and `lsn`
//! (and the tokens a request sends back), `content-location`, a
//! container's index-transformation progress and per-range statistics, a query's index
//! utilization, and the service's own continuation form. Each against a spawned gateway over a
//! real engine, with requests signed as the SDKs sign theirs.

mod common;

use base64::Engine as _;
use common::signed::{database_d_with_container_c, request as send, Answer};
use common::TestGateway;
use reqwest::Method;
use serde_json::{json, Value};

const DOCS: (&str, &str) = ("docs", "dbs/d/colls/c");

fn in_pk(pk: &str) -> String {
    json!([pk]).to_string()
}

async fn create(gw: &TestGateway, id: &str, pk: &str) -> Answer {
    let key = in_pk(pk);
    let r = send(
        gw,
        Method::POST,
        "/dbs/d/colls/c/docs",
        DOCS,
        Some(json!({"id": id, "pk": pk, "n": 1})),
        &[("x-ms-documentdb-partitionkey", &key)],
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    r
}

async fn read(gw: &TestGateway, id: &str, pk: &str, session: Option<&str>) -> Answer {
    let key = in_pk(pk);
    let mut headers = vec![("x-ms-documentdb-partitionkey", key.as_str())];
    if let Some(s) = session {
        headers.push(("x-ms-session-token", s));
    }
    send(
        gw,
        Method::GET,
        &format!("/dbs/d/colls/c/docs/{id}"),
        ("docs", &format!("dbs/d/colls/c/docs/{id}")),
        None,
        &headers,
    )
    .await
}

/// `<range>:0#<LSN>` → (range, LSN).
fn token(a: &Answer) -> (String, u64) {
    let t = a.header("x-ms-session-token").expect("a session token");
    let (range, rest) = t.split_once(':').expect("<range>:<token>");
    let (version, lsn) = rest.split_once('#').expect("<version>#<globalLSN>");
    assert_eq!(version, "0", "{t}");
    (range.to_owned(), lsn.parse().expect("a numeric LSN"))
}

#[tokio::test]
async fn writes_and_reads_carry_their_partitions_lsn_and_tokens_are_read_back() {
    let gw = TestGateway::start();
    database_d_with_container_c(&gw).await;

    // A write: its lsn, its item's lsn and its session token agree.
    let first = create(&gw, "a", "p").await;
    let lsn = first.number("lsn");
    assert_eq!(first.number("x-ms-item-lsn"), lsn);
    let (range, token_lsn) = token(&first);
    assert_eq!(token_lsn, lsn);
    assert_eq!(
        first.header("x-ms-documentdb-partitionkeyrangeid"),
        Some(range.as_str())
    );

    // The next write in the partition is one more.
    let second = create(&gw, "b", "p").await;
    assert_eq!(second.number("lsn"), lsn + 1);

    // A read answers the partition's LSN, and the item's own in x-ms-item-lsn.
    let r = read(&gw, "a", "p", None).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!((r.number("lsn"), r.number("x-ms-item-lsn")), (lsn + 1, lsn));
    assert_eq!(token(&r), (range.clone(), lsn + 1));

    // The tokens the SDKs send back: the one just read is served, as are an older one, the
    // compound and regional forms, and one ahead of the range (see session.rs: the SDK may send
    // another container's); a malformed one is a 400.
    for t in [
        format!("{range}:0#{}", lsn + 1),
        format!("{range}:-1#{lsn}"),
        format!("{range}:0#{lsn}#1={lsn}"),
        format!("{}", lsn + 1),
        format!("{range}:0#{}", lsn + 50),
    ] {
        let r = read(&gw, "a", "p", Some(&t)).await;
        assert_eq!(r.status, 200, "{t}: {}", r.body);
    }
    let r = read(&gw, "a", "p", Some("3f2504e0-4f89-11d3-9a0c-0305e82c3301")).await;
    assert_eq!(r.status, 400, "{}", r.body);

    // A batch answers the partition's LSN once it is in: one LSN for all its writes, as the
    // service gives it (b40710c; azure-cosmos's `test_batch_lsn`), the one after `lsn + 1`.
    let key = in_pk("p");
    let r = send(
        &gw,
        Method::POST,
        "/dbs/d/colls/c/docs",
        DOCS,
        Some(json!([
            {"operationType": "Create", "resourceBody": {"id": "x", "pk": "p"}},
            {"operationType": "Upsert", "resourceBody": {"id": "y", "pk": "p"}},
            {"operationType": "Read", "id": "a"}
        ])),
        &[
            ("x-ms-documentdb-partitionkey", &key),
            ("x-ms-cosmos-is-batch-request", "true"),
            ("x-ms-cosmos-batch-atomic", "true"),
        ],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.number("lsn"), lsn + 2);
    assert_eq!(token(&r).1, lsn + 2);
}

#[tokio::test]
async fn content_location_is_the_uri_of_the_request() {
    let gw = TestGateway::start();
    database_d_with_container_c(&gw).await;
    create(&gw, "a", "p").await;
    let r = read(&gw, "a", "p", None).await;
    assert_eq!(
        r.header("content-location"),
        Some(format!("http://{}/dbs/d/colls/c/docs/a", gw.addr).as_str())
    );
    let r = send(&gw, Method::GET, "/dbs/d", ("dbs", "dbs/d"), None, &[]).await;
    assert_eq!(
        r.header("content-location"),
        Some(format!("http://{}/dbs/d", gw.addr).as_str())
    );
}

#[tokio::test]
async fn a_container_read_reports_index_progress_and_statistics_when_asked() {
    let gw = TestGateway::start();
    database_d_with_container_c(&gw).await;
    for (i, pk) in ["p", "q", "r"].iter().enumerate() {
        create(&gw, &format!("i{i}"), pk).await;
    }
    let read = |headers: &'static [(&'static str, &'static str)]| {
        send(
            &gw,
            Method::GET,
            "/dbs/d/colls/c",
            ("colls", "dbs/d/colls/c"),
            None,
            headers,
        )
    };
    const PROGRESS: &str = "x-ms-documentdb-collection-index-transformation-progress";
    let plain = read(&[]).await;
    assert_eq!(plain.status, 200, "{}", plain.body);
    assert!(plain.header(PROGRESS).is_none());
    assert!(plain.body.get("statistics").is_none());

    let asked = read(&[
        ("x-ms-documentdb-populatequotainfo", "true"),
        ("x-ms-documentdb-populatepartitionstatistics", "true"),
    ])
    .await;
    // No policy change under way: the index is complete.
    assert_eq!(asked.header(PROGRESS), Some("100"));
    assert!(asked
        .header("x-ms-documentdb-collection-lazy-indexing-progress")
        .is_none());
    assert!(asked
        .header("x-ms-resource-usage")
        .is_some_and(|u| u.contains("documentsCount=3")));
    let stats = asked.body["statistics"].as_array().expect("statistics");
    let count: u64 = stats
        .iter()
        .map(|s| s["documentCount"].as_u64().unwrap())
        .sum();
    assert_eq!(count, 3, "{stats:?}");
    assert!(stats.iter().all(|s| s["id"].is_string()), "{stats:?}");
}

/// The decoded `x-ms-cosmos-index-utilization` of a query.
async fn index_utilization(gw: &TestGateway, sql: &str, headers: &[(&str, &str)]) -> Value {
    let mut all = vec![
        ("x-ms-documentdb-isquery", "true"),
        ("content-type", "application/query+json"),
        ("x-ms-cosmos-populateindexmetrics", "true"),
    ];
    all.extend_from_slice(headers);
    let r = send(
        gw,
        Method::POST,
        "/dbs/d/colls/c/docs",
        DOCS,
        Some(json!({"query": sql, "parameters": []})),
        &all,
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let raw = r
        .header("x-ms-cosmos-index-utilization")
        .expect("index utilization");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(raw)
        .expect("base64");
    serde_json::from_slice(&bytes).expect("JSON")
}

fn specs(u: &Value) -> Vec<String> {
    u["UtilizedSingleIndexes"]
        .as_array()
        .expect("UtilizedSingleIndexes")
        .iter()
        .map(|i| i["IndexSpec"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn index_utilization_names_the_indexes_the_engine_used() {
    let gw = TestGateway::start();
    database_d_with_container_c(&gw).await;
    create(&gw, "a", "p").await;
    let key = in_pk("p");
    let pk = [("x-ms-documentdb-partitionkey", key.as_str())];

    // Confined to the key's logical partition: the key path, with no filter of its own.
    let u = index_utilization(&gw, "SELECT * FROM c", &pk).await;
    assert_eq!(specs(&u), ["/pk/?"]);
    assert_eq!(u["UtilizedSingleIndexes"][0]["FilterExpression"], "");
    for list in [
        "PotentialSingleIndexes",
        "UtilizedCompositeIndexes",
        "PotentialCompositeIndexes",
    ] {
        assert_eq!(u[list], json!([]), "{list}");
    }

    // A filter the index serves, in one range: that path's index.
    let range = [("x-ms-documentdb-partitionkeyrangeid", "0")];
    let u = index_utilization(&gw, "SELECT * FROM c WHERE c.n = 1", &range).await;
    assert_eq!(specs(&u), ["/n/?"], "{u}");

    // A scan: nothing used.
    let u = index_utilization(&gw, "SELECT * FROM c", &range).await;
    assert!(specs(&u).is_empty(), "{u}");
}

/// A one-item page of `SELECT * FROM c` on range 0, resumed from `continuation`.
async fn page_of_range_0(gw: &TestGateway, continuation: &str) -> Answer {
    send(
        gw,
        Method::POST,
        "/dbs/d/colls/c/docs",
        DOCS,
        Some(json!({"query": "SELECT * FROM c", "parameters": []})),
        &[
            ("x-ms-documentdb-isquery", "true"),
            ("content-type", "application/query+json"),
            ("x-ms-documentdb-partitionkeyrangeid", "0"),
            ("x-ms-max-item-count", "1"),
            ("x-ms-continuation", continuation),
        ],
    )
    .await
}

#[tokio::test]
async fn a_continuation_in_the_services_backend_form_reads_the_range_from_its_start() {
    let gw = TestGateway::start();
    database_d_with_container_c(&gw).await;
    for i in 0..3 {
        create(&gw, &format!("i{i}"), "p").await;
    }
    let r = page_of_range_0(
        &gw,
        "-RID:~a0NPAOszCpOChB4AAAAAAA==#RT:1#TRC:2#ISV:2#IEO:65567#QCF:8",
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["Documents"][0]["id"], "i0", "{}", r.body);
    // A token that only looks like one is still the engine's to refuse.
    let r = page_of_range_0(&gw, "-RID:nothing-else").await;
    assert_eq!(r.status, 400, "{}", r.body);
}
