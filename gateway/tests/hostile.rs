//! Hand-made HTTP against the gateway: what an SDK never sends. Every refusal is a Cosmos-style
//! error (`{code, message}`), and nothing is stored.

mod common;

use std::io::{Read, Write};
use std::time::{Duration, Instant, SystemTime};

use common::TestGateway;
use gateway::{Limits, MasterKey};
use reqwest::Method;

struct Client {
    http: reqwest::Client,
    base: String,
    key: MasterKey,
}

impl Client {
    fn new(gw: &TestGateway) -> Self {
        Client {
            http: reqwest::Client::new(),
            base: format!("http://{}", gw.addr),
            key: MasterKey::emulator(),
        }
    }

    /// A request signed as the SDKs sign it, at `date`.
    #[allow(clippy::too_many_arguments)]
    async fn send_at(
        &self,
        key: &MasterKey,
        date: SystemTime,
        method: Method,
        path: &str,
        (kind, link): (&str, &str),
        body: Option<Vec<u8>>,
        headers: &[(&str, &str)],
    ) -> (u16, serde_json::Value) {
        let date = httpdate::fmt_http_date(date);
        let mut req = self
            .http
            .request(method.clone(), format!("{}{path}", self.base))
            .header("x-ms-date", &date)
            .header("x-ms-version", "2020-07-15")
            .header(
                "authorization",
                key.authorization(method.as_str(), kind, link, &date),
            );
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        if let Some(b) = body {
            req = req.body(b);
        }
        let res = req.send().await.expect("the gateway answers");
        let status = res.status().as_u16();
        let text = res.text().await.unwrap();
        let json = serde_json::from_str(&text).unwrap_or(serde_json::Value::Null);
        (status, json)
    }

    async fn send(
        &self,
        method: Method,
        path: &str,
        signed: (&str, &str),
        body: Option<&str>,
        headers: &[(&str, &str)],
    ) -> (u16, serde_json::Value) {
        self.send_at(
            &self.key,
            SystemTime::now(),
            method,
            path,
            signed,
            body.map(|b| b.as_bytes().to_vec()),
            headers,
        )
        .await
    }

    async fn setup(&self) {
        self.setup_in("d", "c").await;
    }

    /// Database `db` with container `coll`, partitioned by `/pk`.
    async fn setup_in(&self, db: &str, coll: &str) {
        let body = format!(r#"{{"id":"{db}"}}"#);
        let (s, _) = self
            .send(Method::POST, "/dbs", ("dbs", ""), Some(&body), &[])
            .await;
        assert_eq!(s, 201);
        let body = format!(
            r#"{{"id":"{coll}","partitionKey":{{"paths":["/pk"],"kind":"Hash","version":2}}}}"#
        );
        let (s, _) = self
            .send(
                Method::POST,
                &format!("/dbs/{db}/colls"),
                ("colls", &format!("dbs/{db}")),
                Some(&body),
                &[],
            )
            .await;
        assert_eq!(s, 201);
    }
}

const DOCS: (&str, &str) = ("docs", "dbs/d/colls/c");

async fn stored(gw: &TestGateway) -> usize {
    gw.engine
        .database("d")
        .container("c")
        .query_all::<serde_json::Value>("SELECT * FROM c", engine::NO_PARAMS, Default::default())
        .await
        .unwrap()
        .items
        .len()
}

fn assert_cosmos_error(body: &serde_json::Value, code: &str) {
    assert_eq!(body["code"], code, "{body}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
}

#[tokio::test]
async fn bad_signatures_and_stale_dates_are_401_and_store_nothing() {
    let gw = TestGateway::start();
    let c = Client::new(&gw);
    c.setup().await;
    let doc = br#"{"id":"x","pk":"p"}"#.to_vec();
    let pk = [("x-ms-documentdb-partitionkey", r#"["p"]"#)];

    let other = MasterKey::from_base64("b3RoZXIga2V5IG9mIGF0IGxlYXN0IDE2IGJ5dGVz").unwrap();
    let (s, body) = c
        .send_at(
            &other,
            SystemTime::now(),
            Method::POST,
            "/dbs/d/colls/c/docs",
            DOCS,
            Some(doc.clone()),
            &pk,
        )
        .await;
    assert_eq!(s, 401);
    assert_cosmos_error(&body, "Unauthorized");

    // Signed for another resource: replaying a signature elsewhere fails.
    let (s, _) = c
        .send(
            Method::POST,
            "/dbs/d/colls/c/docs",
            ("docs", "dbs/d/colls/other"),
            Some(r#"{"id":"x","pk":"p"}"#),
            &pk,
        )
        .await;
    assert_eq!(s, 401);

    // A correctly signed request from 20 minutes ago: a replay.
    let stale = SystemTime::now() - Duration::from_secs(20 * 60);
    let (s, body) = c
        .send_at(
            &c.key,
            stale,
            Method::POST,
            "/dbs/d/colls/c/docs",
            DOCS,
            Some(doc.clone()),
            &pk,
        )
        .await;
    assert_eq!(s, 401);
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("not valid at the current time"),
        "{body}"
    );

    // No authorization at all.
    let res = c.http.get(format!("{}/dbs", c.base)).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 401);

    assert_eq!(stored(&gw).await, 0);
    let (s, _) = c
        .send(
            Method::POST,
            "/dbs/d/colls/c/docs",
            DOCS,
            Some(r#"{"id":"x","pk":"p"}"#),
            &pk,
        )
        .await;
    assert_eq!(s, 201, "the same request, signed right, is served");
    assert_eq!(stored(&gw).await, 1);
}

#[tokio::test]
async fn oversized_and_malformed_bodies_are_refused() {
    let gw = TestGateway::start();
    let c = Client::new(&gw);
    c.setup().await;
    let pk = [("x-ms-documentdb-partitionkey", r#"["p"]"#)];

    // Past the request cap (2 MiB, the service's): refused before it is read whole.
    let huge = format!(r#"{{"id":"big","pk":"p","s":"{}"}}"#, "x".repeat(3 << 20));
    let (s, body) = c
        .send_at(
            &c.key,
            SystemTime::now(),
            Method::POST,
            "/dbs/d/colls/c/docs",
            DOCS,
            Some(huge.into_bytes()),
            &pk,
        )
        .await;
    assert_eq!(s, 413);
    assert_cosmos_error(&body, "RequestEntityTooLarge");

    // Under the cap, but over the 2 MiB item limit once the system properties are added: the
    // engine's 413.
    let big = format!(
        r#"{{"id":"big","pk":"p","s":"{}"}}"#,
        "x".repeat((2 << 20) - 40)
    );
    assert!(big.len() <= 2 << 20);
    let (s, body) = c
        .send_at(
            &c.key,
            SystemTime::now(),
            Method::POST,
            "/dbs/d/colls/c/docs",
            DOCS,
            Some(big.into_bytes()),
            &pk,
        )
        .await;
    assert_eq!(s, 413);
    assert_cosmos_error(&body, "RequestEntityTooLarge");

    for bad in [
        "{not json",
        "[1,2]",
        "",
        r#"{"pk":"p"}"#,
        r#"{"id":"a/b","pk":"p"}"#,
    ] {
        let (s, body) = c
            .send(Method::POST, "/dbs/d/colls/c/docs", DOCS, Some(bad), &pk)
            .await;
        assert_eq!(s, 400, "{bad}: {body}");
        assert_cosmos_error(&body, "BadRequest");
    }
    for header in ["p", "[\"p\",\"q\"]", "[[1]]", "{}"] {
        let (s, body) = c
            .send(
                Method::POST,
                "/dbs/d/colls/c/docs",
                DOCS,
                Some(r#"{"id":"a","pk":"p"}"#),
                &[("x-ms-documentdb-partitionkey", header)],
            )
            .await;
        assert_eq!(s, 400, "{header}: {body}");
    }
    // The partition key header and the item disagree.
    let (s, _) = c
        .send(
            Method::POST,
            "/dbs/d/colls/c/docs",
            DOCS,
            Some(r#"{"id":"a","pk":"q"}"#),
            &pk,
        )
        .await;
    assert_eq!(s, 400);
    let (s, body) = c
        .send(
            Method::PATCH,
            "/dbs/d/colls/c/docs/a",
            ("docs", "dbs/d/colls/c/docs/a"),
            Some(r#"{"operations":[{"op":"explode"}]}"#),
            &pk,
        )
        .await;
    assert_eq!(s, 400, "{body}");
    assert_eq!(stored(&gw).await, 0);

    // Unknown paths and methods.
    let (s, body) = c
        .send(Method::GET, "/nothing", ("nothing", ""), None, &[])
        .await;
    assert_eq!(s, 404);
    assert_cosmos_error(&body, "NotFound");
    let (s, _) = c
        .send(Method::PATCH, "/dbs", ("dbs", ""), Some("{}"), &[])
        .await;
    assert_eq!(s, 405);
}

#[tokio::test]
async fn bad_continuations_and_headers_are_400() {
    let gw = TestGateway::start();
    let c = Client::new(&gw);
    c.setup().await;
    let query = r#"{"query":"SELECT * FROM c","parameters":[]}"#;
    let q = [
        ("x-ms-documentdb-isquery", "true"),
        ("content-type", "application/query+json"),
        ("x-ms-documentdb-query-enablecrosspartition", "true"),
    ];
    for token in ["garbage", "00", "{\"a\":1}"] {
        let mut h = q.to_vec();
        h.push(("x-ms-continuation", token));
        let (s, body) = c
            .send(Method::POST, "/dbs/d/colls/c/docs", DOCS, Some(query), &h)
            .await;
        assert_eq!(s, 400, "{token}: {body}");
        assert_cosmos_error(&body, "BadRequest");
        let (s, _) = c
            .send(
                Method::GET,
                "/dbs/d/colls/c/docs",
                DOCS,
                None,
                &[("x-ms-continuation", token)],
            )
            .await;
        assert_eq!(s, 400, "read feed {token}");
    }
    let mut h = q.to_vec();
    h.push(("x-ms-max-item-count", "lots"));
    let (s, _) = c
        .send(Method::POST, "/dbs/d/colls/c/docs", DOCS, Some(query), &h)
        .await;
    assert_eq!(s, 400);
    let (s, _) = c
        .send(
            Method::POST,
            "/dbs/d/colls/c/docs",
            DOCS,
            Some(r#"{"query": 5}"#),
            &q,
        )
        .await;
    assert_eq!(s, 400);
    // A range other than the one /pkranges lists: gone (410/1002), as after a split.
    let mut h = q.to_vec();
    h.push(("x-ms-documentdb-partitionkeyrangeid", "7"));
    let (s, body) = c
        .send(Method::POST, "/dbs/d/colls/c/docs", DOCS, Some(query), &h)
        .await;
    assert_eq!(s, 410, "{body}");
    // EPK bounds outside the range the request names: a 400 that names both.
    gw.engine
        .database("d")
        .create_container(
            engine::ContainerProperties::new("wide", "/pk").with_initial_partitions(4),
        )
        .await
        .unwrap();
    let first = gw
        .engine
        .database("d")
        .container("wide")
        .partitions()
        .unwrap()[0]
        .clone();
    let end = first.cosmos_range.unwrap().end;
    for (range, start, stop, want) in [
        ("0", "30", "3F", 400),
        ("0", end.as_str(), "FF", 400),
        ("0", "", end.as_str(), 200),
        ("abc", "", "", 410),
    ] {
        let mut h = q.to_vec();
        h.extend([
            ("x-ms-documentdb-partitionkeyrangeid", range),
            ("x-ms-start-epk", start),
            ("x-ms-end-epk", stop),
        ]);
        let (s, body) = c
            .send(
                Method::POST,
                "/dbs/d/colls/wide/docs",
                ("docs", "dbs/d/colls/wide"),
                Some(query),
                &h,
            )
            .await;
        assert_eq!(s, want, "{range} [{start}, {stop}): {body}");
        if want == 400 {
            assert!(
                body.to_string()
                    .contains("outside the partition key range '0'"),
                "{body}"
            );
        }
    }
}

#[test]
fn a_slow_body_is_cut_off() {
    let gw = TestGateway::with_limits(Limits {
        body_idle_timeout: Duration::from_secs(1),
        ..Limits::default()
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(Client::new(&gw).setup());
    let key = MasterKey::emulator();
    let date = httpdate::fmt_http_date(SystemTime::now());
    let body = br#"{"id":"slow","pk":"p"}"#;
    let mut s = std::net::TcpStream::connect(gw.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "POST /dbs/d/colls/c/docs HTTP/1.1\r\nHost: localhost\r\nx-ms-date: {date}\r\nauthorization: {}\r\n\
         x-ms-documentdb-partitionkey: [\"p\"]\r\ncontent-length: {}\r\n\r\n",
        key.authorization("POST", "docs", "dbs/d/colls/c", &date),
        body.len()
    )
    .unwrap();
    let started = Instant::now();
    // One byte every 2 s: the gateway waits 1 s for the next one, then answers 408 and closes.
    let mut sent = 0;
    for b in body {
        if s.write_all(&[*b]).is_err() {
            break;
        }
        sent += 1;
        std::thread::sleep(Duration::from_secs(2));
        if started.elapsed() > Duration::from_secs(8) {
            break;
        }
    }
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    assert!(sent < body.len(), "the whole body was accepted");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert_eq!(rt.block_on(stored(&gw)), 0);
}

/// The change feed of one partition key by its header (as SDKs that send it do), its 304, and a
/// forged continuation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn change_feed_by_partition_key_header_304_and_bad_tokens() {
    let gw = TestGateway::start();
    let c = Client::new(&gw);
    c.setup().await;
    for (id, pk) in [("a", "p"), ("b", "q"), ("c", "p")] {
        let pkh = format!("[\"{pk}\"]");
        let (s, _) = c
            .send(
                Method::POST,
                "/dbs/d/colls/c/docs",
                DOCS,
                Some(&format!(r#"{{"id":"{id}","pk":"{pk}"}}"#)),
                &[("x-ms-documentdb-partitionkey", &pkh)],
            )
            .await;
        assert_eq!(s, 201);
    }
    let feed = [
        ("a-im", "Incremental feed"),
        ("x-ms-documentdb-partitionkey", r#"["p"]"#),
    ];
    let res = c
        .http
        .get(format!("{}/dbs/d/colls/c/docs", c.base))
        .headers({
            let date = httpdate::fmt_http_date(SystemTime::now());
            let mut h = reqwest::header::HeaderMap::new();
            h.insert("x-ms-date", date.parse().unwrap());
            h.insert(
                "authorization",
                c.key
                    .authorization("GET", "docs", "dbs/d/colls/c", &date)
                    .parse()
                    .unwrap(),
            );
            for (k, v) in feed {
                h.insert(k, v.parse().unwrap());
            }
            h
        })
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 200);
    let etag = res.headers()["etag"].to_str().unwrap().to_owned();
    let body: serde_json::Value = serde_json::from_str(&res.text().await.unwrap()).unwrap();
    let ids: Vec<&str> = body["Documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a", "c"]);
    let mut again = feed.to_vec();
    again.push(("if-none-match", &etag));
    let (s, _) = c
        .send(Method::GET, "/dbs/d/colls/c/docs", DOCS, None, &again)
        .await;
    assert_eq!(s, 304, "nothing new since the etag");
    let mut forged = feed.to_vec();
    forged.push(("if-none-match", "\"bm90IGEgdG9rZW4\""));
    let (s, body) = c
        .send(Method::GET, "/dbs/d/colls/c/docs", DOCS, None, &forged)
        .await;
    assert_eq!(s, 400, "{body}");
    let (s, _) = c
        .send(
            Method::GET,
            "/dbs/d/colls/c/docs",
            DOCS,
            None,
            &[("a-im", "Everything")],
        )
        .await;
    assert_eq!(s, 400);
}

/// A partition over its RU/s budget answers 429 with `x-ms-retry-after-ms`, which the SDKs wait.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partition_over_its_budget_answers_429_with_retry_after() {
    let gw = TestGateway::start();
    let c = Client::new(&gw);
    let (s, _) = c
        .send(
            Method::POST,
            "/dbs",
            ("dbs", ""),
            Some(r#"{"id":"d"}"#),
            &[],
        )
        .await;
    assert_eq!(s, 201);
    let (s, _) = c
        .send(
            Method::POST,
            "/dbs/d/colls",
            ("colls", "dbs/d"),
            Some(r#"{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"}}"#),
            &[("x-ms-offer-throughput", "400")],
        )
        .await;
    assert_eq!(s, 201);
    // A 1 MB item: one read costs more than the 400 RU/s budget.
    let doc = format!(r#"{{"id":"big","pk":"p","s":"{}"}}"#, "x".repeat(1 << 20));
    let pk = [("x-ms-documentdb-partitionkey", r#"["p"]"#)];
    let (s, _) = c
        .send(Method::POST, "/dbs/d/colls/c/docs", DOCS, Some(&doc), &pk)
        .await;
    assert!(s == 201 || s == 429, "{s}");
    let link = ("docs", "dbs/d/colls/c/docs/big");
    let mut throttled = None;
    for _ in 0..20 {
        let date = httpdate::fmt_http_date(SystemTime::now());
        let res = c
            .http
            .get(format!("{}/dbs/d/colls/c/docs/big", c.base))
            .header("x-ms-date", &date)
            .header(
                "authorization",
                c.key.authorization("GET", link.0, link.1, &date),
            )
            .header("x-ms-documentdb-partitionkey", r#"["p"]"#)
            .send()
            .await
            .unwrap();
        if res.status().as_u16() == 429 {
            throttled = Some(res);
            break;
        }
    }
    let res = throttled.expect("a read over the budget is throttled");
    let wait: u64 = res.headers()["x-ms-retry-after-ms"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(wait >= 1, "{wait}");
    let body: serde_json::Value = serde_json::from_str(&res.text().await.unwrap()).unwrap();
    assert_cosmos_error(&body, "TooManyRequests");
}

#[tokio::test]
async fn a_change_feed_policy_is_checked_and_kept() {
    let gw = TestGateway::start();
    let c = Client::new(&gw);
    c.setup().await;
    let colls = ("colls", "dbs/d");
    let create = |policy: &str| {
        format!(
            r#"{{"id":"av","partitionKey":{{"paths":["/pk"],"kind":"Hash"}},"changeFeedPolicy":{policy}}}"#
        )
    };
    for bad in [
        r#"{"retentionDuration":"ten"}"#,
        r#"{"retentionDuration":-5}"#,
        r#"{"retentionDuration":999999999}"#,
    ] {
        let (s, body) = c
            .send(Method::POST, "/dbs/d/colls", colls, Some(&create(bad)), &[])
            .await;
        assert_eq!(s, 400, "{bad}: {body}");
        assert_cosmos_error(&body, "BadRequest");
    }
    let (s, body) = c
        .send(
            Method::POST,
            "/dbs/d/colls",
            colls,
            Some(&create(r#"{"retentionDuration":10}"#)),
            &[],
        )
        .await;
    assert_eq!(
        (s, &body["changeFeedPolicy"]["retentionDuration"]),
        (201, &serde_json::json!(10)),
        "{body}"
    );
    let coll = ("colls", "dbs/d/colls/av");
    // Another retention is refused; a replace that leaves the policy out keeps it.
    let (s, body) = c
        .send(
            Method::PUT,
            "/dbs/d/colls/av",
            coll,
            Some(&create(r#"{"retentionDuration":20}"#)),
            &[],
        )
        .await;
    assert_eq!(s, 400, "{body}");
    let without = r#"{"id":"av","partitionKey":{"paths":["/pk"],"kind":"Hash"}}"#;
    let (s, body) = c
        .send(Method::PUT, "/dbs/d/colls/av", coll, Some(without), &[])
        .await;
    assert_eq!(s, 200, "{body}");
    assert_eq!(body["changeFeedPolicy"]["retentionDuration"], 10, "{body}");
}

/// Issue 33: a page under another name (DNS rebinding) or of another origin gets 403 however
/// it signs: only loopback names, the address bound and the names given are answered.
#[tokio::test]
async fn foreign_hosts_and_origins_are_403() {
    let gw = TestGateway::answering(&["box.lan"]);
    let c = Client::new(&gw);
    c.setup().await;
    let port = gw.addr.port();
    let read = |headers: Vec<(&'static str, String)>| {
        let c = &c;
        async move {
            let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            c.send(Method::GET, "/dbs/d", ("dbs", "dbs/d"), None, &h)
                .await
        }
    };
    for host in [
        "evil.example".to_owned(),
        format!("evil.example:{port}"),
        "localhost.evil.example".into(),
        "127.0.0.1.nip.io".into(),
        "127.0.0.2".into(),
        "[::2]".into(),
    ] {
        let (s, body) = read(vec![("host", host.clone())]).await;
        assert_eq!(s, 403, "Host: {host}: {body}");
        assert_cosmos_error(&body, "Forbidden");
        assert!(
            body["message"].as_str().unwrap().contains("--gateway-host"),
            "{body}"
        );
    }
    for host in [
        format!("localhost:{port}"),
        "127.0.0.1".into(),
        format!("[::1]:{port}"),
        "LOCALHOST".into(),
        format!("Box.Lan:{port}"),
    ] {
        let (s, body) = read(vec![("host", host.clone())]).await;
        assert_eq!(s, 200, "Host: {host}: {body}");
    }
    // Cross-origin: refused, preflight included, unless the origin is a name answered.
    for origin in [
        "http://evil.example",
        "null",
        "https://localhost.evil.example:8083",
    ] {
        let (s, body) = read(vec![("origin", origin.into())]).await;
        assert_eq!(s, 403, "Origin: {origin}: {body}");
        assert_cosmos_error(&body, "Forbidden");
        let res = c
            .http
            .request(Method::OPTIONS, format!("{}/dbs/d/colls/c/docs", c.base))
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header("access-control-request-headers", "authorization,x-ms-date")
            .send()
            .await
            .unwrap();
        assert_eq!(res.status().as_u16(), 403, "preflight from {origin}");
        assert!(res.headers().get("access-control-allow-origin").is_none());
    }
    for origin in ["http://localhost:3000", "http://box.lan"] {
        let (s, body) = read(vec![("origin", origin.into())]).await;
        assert_eq!(s, 200, "Origin: {origin}: {body}");
    }
    // A raw request with no Host at all (HTTP/1.0).
    let mut s = std::net::TcpStream::connect(gw.addr).unwrap();
    s.write_all(b"GET /dbs HTTP/1.0\r\n\r\n").unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.0 403"), "{answer}");
}

/// Issue 33: `x-ms-date: Fri, 31 Dec 9999 23:59:59 GMT` panicked the request (the 401's message
/// formatted the date + 15 min). Any date is a 401, and the gateway keeps serving.
#[tokio::test]
async fn any_date_is_a_401_never_a_dropped_connection() {
    let gw = TestGateway::start();
    let c = Client::new(&gw);
    for date in [
        "Fri, 31 Dec 9999 23:59:59 GMT",
        "Fri, 31 Dec 9999 23:50:00 GMT",
        "Thu, 01 Jan 1970 00:00:00 GMT",
    ] {
        let when = httpdate::parse_http_date(date).unwrap();
        let (s, body) = c
            .send_at(&c.key, when, Method::GET, "/dbs", ("dbs", ""), None, &[])
            .await;
        assert_eq!(s, 401, "{date}: {body}");
        assert_cosmos_error(&body, "Unauthorized");
    }
    let (s, _) = c.send(Method::GET, "/dbs", ("dbs", ""), None, &[]).await;
    assert_eq!(s, 200);
}

/// Issue 33: a resource-id path is signed with its last id alone. A signature for
/// `/dbs/A/colls/B/docs/probe` read `/dbs/C/colls/D/docs/probe` of another database; now the
/// last id must name the whole path (a container's id holds its database's), and below a
/// container only name-based paths are answered.
#[tokio::test]
async fn a_resource_id_signature_serves_only_the_resource_it_names() {
    let gw = TestGateway::start();
    let c = Client::new(&gw);
    c.setup().await;
    let pk = [("x-ms-documentdb-partitionkey", r#"["p"]"#)];
    c.setup_in("e", "f").await;
    for (db, coll, secret) in [("d", "c", "mine"), ("e", "f", "theirs")] {
        let body = format!(r#"{{"id":"probe","pk":"p","secret":"{secret}"}}"#);
        let path = format!("/dbs/{db}/colls/{coll}/docs");
        let link = format!("dbs/{db}/colls/{coll}");
        let (s, _) = c
            .send(Method::POST, &path, ("docs", &link), Some(&body), &pk)
            .await;
        assert_eq!(s, 201);
    }
    let rid = |path: &'static str, link: &'static str, kind: &'static str| {
        let c = &c;
        async move {
            let (s, body) = c.send(Method::GET, path, (kind, link), None, &[]).await;
            assert_eq!(s, 200, "{body}");
            body["_rid"].as_str().unwrap().to_owned()
        }
    };
    let (d, cc) = (
        rid("/dbs/d", "dbs/d", "dbs").await,
        rid("/dbs/d/colls/c", "dbs/d/colls/c", "colls").await,
    );
    let (e, f) = (
        rid("/dbs/e", "dbs/e", "dbs").await,
        rid("/dbs/e/colls/f", "dbs/e/colls/f", "colls").await,
    );

    // Signed for the item under d/c by resource ids, replayed under e/f: never the other's data.
    let signed = ("docs", "probe");
    for path in [
        format!("/dbs/{d}/colls/{cc}/docs/probe"),
        format!("/dbs/{e}/colls/{f}/docs/probe"),
        format!("/dbs/{e}/colls/{cc}/docs/probe"),
    ] {
        let (s, body) = c.send(Method::GET, &path, signed, None, &pk).await;
        assert!(s == 403 || s == 404, "{path}: {s} {body}");
        assert!(!body.to_string().contains("theirs"), "{body}");
    }
    // A container named by id under a resource-id database: its name is all that is signed.
    let (s, _) = c
        .send(
            Method::GET,
            &format!("/dbs/{e}/colls/f"),
            ("colls", "f"),
            None,
            &[],
        )
        .await;
    assert_eq!(s, 403);

    // What a resource id does name is served, and only there.
    let lower = cc.to_lowercase();
    let (s, body) = c
        .send(
            Method::GET,
            &format!("/dbs/{d}/colls/{cc}"),
            ("colls", &lower),
            None,
            &[],
        )
        .await;
    assert_eq!((s, body["id"].as_str()), (200, Some("c")), "{body}");
    let (s, _) = c
        .send(
            Method::GET,
            &format!("/dbs/{e}/colls/{cc}"),
            ("colls", &lower),
            None,
            &[],
        )
        .await;
    assert!(s == 403 || s == 404, "{s}");
    let (s, body) = c
        .send(
            Method::GET,
            &format!("/dbs/{d}/colls/{cc}/docs"),
            ("docs", &lower),
            None,
            &[],
        )
        .await;
    assert_eq!(s, 200, "{body}");
    assert_eq!(body["Documents"][0]["secret"], "mine", "{body}");
}

/// Issue 33: a header the gateway reads whose value is not visible ASCII is a 400 naming it
/// (an `If-Match: \xff` made a replace unconditional, a continuation `abc\xff` restarted the
/// query from its first page).
#[tokio::test]
async fn header_values_that_are_not_visible_ascii_are_400() {
    let gw = TestGateway::start();
    let c = Client::new(&gw);
    c.setup().await;
    let pk = ("x-ms-documentdb-partitionkey", r#"["p"]"#);
    let (s, _) = c
        .send(
            Method::POST,
            "/dbs/d/colls/c/docs",
            DOCS,
            Some(r#"{"id":"a","pk":"p","v":1}"#),
            &[pk],
        )
        .await;
    assert_eq!(s, 201);
    let item = ("docs", "dbs/d/colls/c/docs/a");
    let replaced = r#"{"id":"a","pk":"p","v":2}"#;
    let cases = [
        (
            "if-match",
            Method::PUT,
            "/dbs/d/colls/c/docs/a",
            item,
            Some(replaced),
            vec![pk, ("if-match", "\u{ff}")],
        ),
        (
            "if-none-match",
            Method::GET,
            "/dbs/d/colls/c/docs/a",
            item,
            None,
            vec![pk, ("if-none-match", "\"\u{e9}\"")],
        ),
        (
            "x-ms-continuation",
            Method::GET,
            "/dbs/d/colls/c/docs",
            DOCS,
            None,
            vec![("x-ms-continuation", "abc\u{ff}")],
        ),
        (
            "x-ms-documentdb-partitionkey",
            Method::GET,
            "/dbs/d/colls/c/docs/a",
            item,
            None,
            vec![("x-ms-documentdb-partitionkey", "[\"p\u{e9}\"]")],
        ),
        (
            "x-ms-session-token",
            Method::GET,
            "/dbs/d/colls/c/docs/a",
            item,
            None,
            vec![pk, ("x-ms-session-token", "0:0#1\u{e9}")],
        ),
        (
            "x-ms-documentdb-is-upsert",
            Method::POST,
            "/dbs/d/colls/c/docs",
            DOCS,
            Some(replaced),
            vec![pk, ("x-ms-documentdb-is-upsert", "tru\u{e9}")],
        ),
    ];
    for (name, method, path, signed, body, headers) in cases {
        let (s, answer) = c.send(method, path, signed, body, &headers).await;
        assert_eq!(s, 400, "{name}: {answer}");
        assert_cosmos_error(&answer, "BadRequest");
        assert!(
            answer["message"].as_str().unwrap().contains(name),
            "{name}: {answer}"
        );
    }
    let (s, doc) = c
        .send(Method::GET, "/dbs/d/colls/c/docs/a", item, None, &[pk])
        .await;
    assert_eq!(
        (s, &doc["v"]),
        (200, &serde_json::json!(1)),
        "nothing replaced"
    );
    // Raw bytes (not UTF-8) are refused the same way.
    let date = httpdate::fmt_http_date(SystemTime::now());
    let mut s = std::net::TcpStream::connect(gw.addr).unwrap();
    s.write_all(
        format!(
            "DELETE /dbs/d/colls/c/docs/a HTTP/1.1\r\nHost: localhost\r\nx-ms-date: {date}\r\n\
             authorization: {}\r\nx-ms-documentdb-partitionkey: [\"p\"]\r\nconnection: close\r\n",
            c.key
                .authorization("DELETE", "docs", "dbs/d/colls/c/docs/a", &date)
        )
        .as_bytes(),
    )
    .unwrap();
    s.write_all(b"if-match: \xff\r\n\r\n").unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("if-match"), "{answer}");
    assert_eq!(stored(&gw).await, 1);
}
