//! A request signed as the SDKs sign theirs, sent by hand (tests that drive what no SDK sends,
//! or what an SDK sends that `cargo test` should cover without it).
// Each test binary takes what it needs of `common`.
#![allow(dead_code)]

use std::time::SystemTime;

use gateway::MasterKey;
use reqwest::header::HeaderMap;
use reqwest::Method;
use serde_json::{json, Value};

use super::TestGateway;

/// What the gateway answered: status, `x-ms-request-charge` (-1 when absent), the headers, the
/// body as JSON (`Null` when it is not JSON).
pub struct Answer {
    pub status: u16,
    pub charge: f64,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Header `name` as a number; panics naming the headers when it is not one.
    pub fn number(&self, name: &str) -> u64 {
        self.header(name)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("a numeric {name}: {:?}", self.headers))
    }
}

/// Sends `body` to `path`, signed with the emulator's key for `link` (resource type, link).
pub async fn send(
    gw: &TestGateway,
    method: Method,
    path: &str,
    link: (&str, &str),
    body: Value,
    headers: &[(&str, &str)],
) -> Answer {
    request(gw, method, path, link, Some(body), headers).await
}

/// [`send`], with no body at all when `body` is `None`.
pub async fn request(
    gw: &TestGateway,
    method: Method,
    path: &str,
    link: (&str, &str),
    body: Option<Value>,
    headers: &[(&str, &str)],
) -> Answer {
    let date = httpdate::fmt_http_date(SystemTime::now());
    let key = MasterKey::emulator();
    let mut req = reqwest::Client::new()
        .request(method.clone(), format!("http://{}{path}", gw.addr))
        .header("x-ms-date", &date)
        .header("x-ms-version", "2020-07-15")
        .header(
            "authorization",
            key.authorization(method.as_str(), link.0, link.1, &date),
        );
    if let Some(b) = body {
        req = req.body(b.to_string());
    }
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    let res = req.send().await.expect("the gateway answers");
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    let charge = headers
        .get("x-ms-request-charge")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or(-1.0);
    let body = serde_json::from_str(&res.text().await.unwrap()).unwrap_or(Value::Null);
    Answer {
        status,
        charge,
        headers,
        body,
    }
}

/// Database `d` with container `c`, partitioned on `/pk`, created over REST (both a 201).
pub async fn database_d_with_container_c(gw: &TestGateway) {
    let db = send(
        gw,
        Method::POST,
        "/dbs",
        ("dbs", ""),
        json!({"id": "d"}),
        &[],
    )
    .await;
    assert_eq!(db.status, 201, "{}", db.body);
    let container =
        json!({"id": "c", "partitionKey": {"paths": ["/pk"], "kind": "Hash", "version": 2}});
    let path = ("colls", "dbs/d");
    let c = send(gw, Method::POST, "/dbs/d/colls", path, container, &[]).await;
    assert_eq!(c.status, 201, "{}", c.body);
}
