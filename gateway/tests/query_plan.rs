//! Cross-partition queries as Azure Cosmos DB's gateway serves them to an SDK that runs its own
//! per-range execution (azure-cosmos's `_execution_context/`): a query that needs merging is
//! 400/1004, the query plan names what to merge and the rewritten query, and that query sent to
//! one partition key range answers for that range only, in the service's shapes. Raw HTTP, as
//! the SDK sends it, against a container of three ranges.

mod common;

use std::time::SystemTime;

use common::TestGateway;
use gateway::MasterKey;
use reqwest::Method;
use serde_json::{json, Value};

/// What azure-cosmos 4.17.1 declares on its plan requests (`_GetQueryPlanThroughGateway`).
const PYTHON_FEATURES: &str = "Aggregate,CompositeAggregate,Distinct,MultipleOrderBy,\
OffsetAndLimit,OrderBy,Top,NonStreamingOrderBy,HybridSearch,CountIf,WeightedRankFusion";
/// What the Rust SDK 1.0 declares (`azure_data_cosmos_driver::query::SUPPORTED_QUERY_FEATURES`).
const RUST_FEATURES: &str =
    "Distinct,MultipleOrderBy,NonStreamingOrderBy,OffsetAndLimit,OrderBy,Top";
const DOCS: (&str, &str) = ("docs", "dbs/d/colls/c");
const N: i64 = 60;

struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Value,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

struct Client {
    http: reqwest::Client,
    base: String,
    key: MasterKey,
}

impl Client {
    async fn send(
        &self,
        method: Method,
        path: &str,
        (kind, link): (&str, &str),
        body: Option<String>,
        headers: &[(&str, &str)],
    ) -> Answer {
        let date = httpdate::fmt_http_date(SystemTime::now());
        let mut req = self
            .http
            .request(method.clone(), format!("{}{path}", self.base))
            .header("x-ms-date", &date)
            .header("x-ms-version", "2020-07-15")
            .header(
                "authorization",
                self.key.authorization(method.as_str(), kind, link, &date),
            );
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        if let Some(b) = body {
            req = req.body(b);
        }
        let res = req.send().await.expect("the gateway answers");
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let body = serde_json::from_str(&res.text().await.unwrap()).unwrap_or(Value::Null);
        Answer {
            status,
            headers,
            body,
        }
    }

    /// A query as the SDKs post it, with extra headers.
    async fn query(&self, sql: &str, extra: &[(&str, &str)]) -> Answer {
        let mut h = vec![
            ("x-ms-documentdb-isquery", "True"),
            ("content-type", "application/query+json"),
        ];
        h.extend_from_slice(extra);
        let body = json!({"query": sql, "parameters": []}).to_string();
        self.send(Method::POST, "/dbs/d/colls/c/docs", DOCS, Some(body), &h)
            .await
    }
}

const CROSS: (&str, &str) = ("x-ms-documentdb-query-enablecrosspartition", "True");

/// A container of three ranges (18,000 RU/s: one physical partition per 6,000 RU/s, as the
/// service lays out a new container) holding `N` items over 20 logical partitions.
async fn setup() -> (TestGateway, Client, Vec<String>) {
    let gw = TestGateway::start();
    let c = Client {
        http: reqwest::Client::new(),
        base: format!("http://{}", gw.addr),
        key: MasterKey::emulator(),
    };
    let a = c
        .send(
            Method::POST,
            "/dbs",
            ("dbs", ""),
            Some(r#"{"id":"d"}"#.into()),
            &[],
        )
        .await;
    assert_eq!(a.status, 201);
    let body = r#"{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}"#;
    let a = c
        .send(
            Method::POST,
            "/dbs/d/colls",
            ("colls", "dbs/d"),
            Some(body.into()),
            &[("x-ms-offer-throughput", "18000")],
        )
        .await;
    assert_eq!(a.status, 201, "{}", a.body);
    for i in 0..N {
        let pk = format!("p{}", i % 20);
        let cat = ["a", "b", "c"][i as usize % 3];
        let doc = json!({"id": format!("i{i}"), "pk": pk, "n": i, "cat": cat});
        let pk_header = json!([pk]).to_string();
        let a = c
            .send(
                Method::POST,
                "/dbs/d/colls/c/docs",
                DOCS,
                Some(doc.to_string()),
                &[("x-ms-documentdb-partitionkey", &pk_header)],
            )
            .await;
        assert_eq!(a.status, 201, "{}", a.body);
    }
    let a = c
        .send(
            Method::GET,
            "/dbs/d/colls/c/pkranges",
            ("pkranges", "dbs/d/colls/c"),
            None,
            &[],
        )
        .await;
    let ids: Vec<String> = a.body["PartitionKeyRanges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 3, "{}", a.body);
    (gw, c, ids)
}

async fn plan(c: &Client, sql: &str, features: &str) -> Value {
    let a = c
        .query(
            sql,
            &[
                ("x-ms-cosmos-is-query-plan-request", "True"),
                ("x-ms-cosmos-supported-query-features", features),
                ("x-ms-cosmos-query-version", "1.0"),
            ],
        )
        .await;
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["partitionedQueryExecutionInfoVersion"], 2);
    a.body
}

/// Every page of `sql` sent to range `id`, its `Documents` concatenated.
async fn on_range(c: &Client, sql: &str, id: &str) -> Vec<Value> {
    let mut rows = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let mut h = vec![("x-ms-documentdb-partitionkeyrangeid", id), CROSS];
        h.push(("x-ms-max-item-count", "7"));
        if let Some(t) = &token {
            h.push(("x-ms-continuation", t));
        }
        let a = c.query(sql, &h).await;
        assert_eq!(a.status, 200, "{sql} on {id}: {}", a.body);
        rows.extend(a.body["Documents"].as_array().unwrap().iter().cloned());
        match a.header("x-ms-continuation") {
            Some(t) => token = Some(t.to_owned()),
            None => return rows,
        }
    }
}

#[tokio::test]
async fn a_merged_query_is_planned_and_each_range_answers_its_part() {
    let (_gw, c, ids) = setup().await;

    // The SDK's first try: refused as the service refuses it, so that it asks for the plan.
    let sql = "SELECT VALUE MAX(c.n) FROM c WHERE c.cat = 'b'";
    let a = c.query(sql, &[CROSS]).await;
    assert_eq!(a.status, 400, "{}", a.body);
    assert_eq!(a.header("x-ms-substatus"), Some("1004"));
    // The plan rides along, as the JavaScript SDK expects before it plans.
    let inline: Value =
        serde_json::from_str(a.body["additionalErrorInfo"].as_str().unwrap()).unwrap();
    assert_eq!(inline["queryInfo"]["aggregates"], json!(["Max"]));

    let p = plan(&c, sql, PYTHON_FEATURES).await;
    let info = &p["queryInfo"];
    assert_eq!(info["aggregates"], json!(["Max"]));
    assert_eq!(info["hasSelectValue"], true);
    assert_eq!(info["distinctType"], "None");
    let rewritten = info["rewrittenQuery"].as_str().unwrap();
    assert!(rewritten.contains(r#"[{"item": MAX(c.n)}]"#), "{rewritten}");
    assert_eq!(p["queryRanges"][0]["max"], "FF");

    // Each range: one partial aggregate in the service's `[{"item": …}]` form; the client's MAX
    // of them is the query's.
    let mut partials = Vec::new();
    for id in &ids {
        let rows = on_range(&c, rewritten, id).await;
        assert_eq!(rows.len(), 1, "{id}: {rows:?}");
        partials.extend(
            rows[0]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|x| x.get("item"))
                .cloned(),
        );
    }
    assert!(
        partials.len() > 1,
        "several ranges hold a 'b': {partials:?}"
    );
    let max = partials.iter().filter_map(Value::as_i64).max();
    assert_eq!(max, Some((0..N).filter(|i| i % 3 == 1).max().unwrap()));

    // MAX over nothing: each range's item is undefined (`[{}]`), which the SDK skips.
    let p = plan(
        &c,
        "SELECT VALUE MAX(c.n) FROM c WHERE c.cat = 'z'",
        PYTHON_FEATURES,
    )
    .await;
    let rewritten = p["queryInfo"]["rewrittenQuery"].as_str().unwrap();
    for id in &ids {
        assert_eq!(on_range(&c, rewritten, id).await, vec![json!([{}])]);
    }

    // ORDER BY: rows carry their sort keys and the row asked for; each range sorted.
    let p = plan(
        &c,
        "SELECT c.id, c.n FROM c ORDER BY c.n DESC OFFSET 3 LIMIT 5",
        PYTHON_FEATURES,
    )
    .await;
    let info = &p["queryInfo"];
    assert_eq!(info["orderBy"], json!(["Descending"]));
    assert_eq!(
        (info["offset"].clone(), info["limit"].clone()),
        (json!(3), json!(5))
    );
    let rewritten = info["rewrittenQuery"]
        .as_str()
        .unwrap()
        .replace("{documentdb-formattableorderbyquery-filter}", "true");
    let mut all = Vec::new();
    for id in &ids {
        let rows = on_range(&c, &rewritten, id).await;
        assert!(
            rows.len() <= 8,
            "each range gives at most OFFSET + LIMIT rows"
        );
        let keys: Vec<i64> = rows
            .iter()
            .map(|r| r["orderByItems"][0]["item"].as_i64().unwrap())
            .collect();
        assert!(keys.windows(2).all(|w| w[0] >= w[1]), "{keys:?}");
        for r in &rows {
            assert_eq!(r["payload"]["n"], r["orderByItems"][0]["item"]);
            assert!(r["_rid"].is_string());
        }
        all.extend(keys);
    }
    all.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(all[3..8], [N - 4, N - 5, N - 6, N - 7, N - 8]);

    // A client that merges nothing (the Rust SDK's features) is planned to get the whole answer.
    let p = plan(&c, sql, RUST_FEATURES).await;
    assert_eq!(p["queryInfo"]["aggregates"], json!([]));
    assert!(p["queryInfo"]["rewrittenQuery"]
        .as_str()
        .unwrap()
        .starts_with("-- whole"));

    // A client that does not say it crosses partitions, and names no key, is refused as the
    // service refuses it (88f5c6f; azure-cosmos's test_with_null_pk reads this message).
    let a = c.query(sql, &[]).await;
    assert_eq!(a.status, 400, "{}", a.body);
    assert!(
        a.body["message"]
            .as_str()
            .unwrap()
            .starts_with("Cross partition query is required but disabled"),
        "{}",
        a.body
    );
}

#[tokio::test]
async fn a_filter_across_partitions_is_served_range_by_range() {
    let (_gw, c, ids) = setup().await;
    let sql = "SELECT c.n FROM c WHERE c.n >= 10";
    let mut seen = Vec::new();
    let mut pages = 0;
    let mut token: Option<String> = None;
    loop {
        let mut h = vec![CROSS, ("x-ms-max-item-count", "100")];
        if let Some(t) = &token {
            h.push(("x-ms-continuation", t));
        }
        let a = c.query(sql, &h).await;
        assert_eq!(a.status, 200, "{}", a.body);
        pages += 1;
        seen.extend(
            a.body["Documents"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["n"].as_i64().unwrap()),
        );
        match a.header("x-ms-continuation") {
            Some(t) => {
                let v: Value = serde_json::from_str(t).unwrap();
                assert!(
                    v[0]["range"]["min"].is_string(),
                    "the service's composite token: {t}"
                );
                token = Some(t.to_owned());
            }
            None => break,
        }
    }
    // Each page one range's: as many pages as ranges, though one page could hold every row.
    assert_eq!(pages, ids.len());
    seen.sort_unstable();
    assert_eq!(seen, (10..N).collect::<Vec<_>>());

    let a = c
        .query(sql, &[CROSS, ("x-ms-continuation", r#"{"a":1}"#)])
        .await;
    assert_eq!(a.status, 400);
}
