//! Random requests, correctly signed so they get past authorization, at the real server: every
//! answer is a Cosmos-style error or a success, never a 5xx or a panic, and only the requests
//! answered with success stored anything.

mod common;

use std::time::SystemTime;

use common::TestGateway;
use gateway::MasterKey;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

#[derive(Debug, Clone)]
struct Fuzzed {
    method: &'static str,
    id: Option<String>,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
}

fn header_value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ -~]{0,24}",
        Just("[{}]".to_owned()),
        Just("[\"p\"]".to_owned()),
        // Hierarchical keys and prefixes, and a value too many.
        Just("[\"p\",\"q\"]".to_owned()),
        Just("[\"p\",{},null]".to_owned()),
        Just("[\"p\",1,2,3]".to_owned()),
        Just("true".to_owned()),
        Just("-1".to_owned()),
        "[0-9]{1,12}",
    ]
}

fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..200),
        "[ -~]{0,120}".prop_map(String::into_bytes),
        Just(br#"{"id":"x","pk":"p"}"#.to_vec()),
        "[a-z0-9 ]{0,8}".prop_map(|id| format!(r#"{{"id":"{id}","pk":"p","n":1}}"#).into_bytes()),
        Just(br#"{"query":"SELECT * FROM c","parameters":[]}"#.to_vec()),
        "[ -~]{0,40}"
            .prop_map(|q| format!(r#"{{"query":"{}"}}"#, q.replace(['"', '\\'], "")).into_bytes()),
        Just(br#"{"operations":[{"op":"set","path":"/n","value":2}]}"#.to_vec()),
        Just(br#"[{"operationType":"Create","resourceBody":{"id":"b","pk":"p"}}]"#.to_vec()),
        Just(vec![0x80, 1, 2, 3]),
    ]
}

fn fuzzed() -> impl Strategy<Value = Fuzzed> {
    let names = prop_oneof![
        Just("x-ms-documentdb-partitionkey"),
        Just("x-ms-max-item-count"),
        Just("x-ms-continuation"),
        Just("x-ms-documentdb-isquery"),
        Just("x-ms-documentdb-is-upsert"),
        Just("x-ms-cosmos-is-batch-request"),
        Just("x-ms-cosmos-is-query-plan-request"),
        Just("x-ms-documentdb-partitionkeyrangeid"),
        Just("if-match"),
        Just("if-none-match"),
        Just("a-im"),
        Just("content-type"),
        Just("x-ms-start-epk"),
        Just("x-ms-documentdb-pre-trigger-include"),
    ];
    (
        prop_oneof![
            Just("GET"),
            Just("POST"),
            Just("PUT"),
            Just("PATCH"),
            Just("DELETE")
        ],
        proptest::option::of("[ -~\u{e9}\u{4e2d}]{0,12}"),
        proptest::collection::vec((names, header_value()), 0..5),
        body(),
    )
        .prop_map(|(method, id, headers, body)| Fuzzed {
            method,
            id,
            headers,
            body,
        })
}

#[test]
fn random_requests_never_fail_the_server_nor_store_on_error() {
    let gw = TestGateway::start();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let http = reqwest::Client::new();
    let key = MasterKey::emulator();
    let send = |method: &str,
                path: &str,
                kind: &str,
                link: &str,
                headers: &[(&str, String)],
                body: Vec<u8>| {
        let date = httpdate::fmt_http_date(SystemTime::now());
        let mut req = http
            .request(method.parse().unwrap(), format!("http://{}{path}", gw.addr))
            .header("x-ms-date", &date)
            .header(
                "authorization",
                key.authorization(method, kind, link, &date),
            )
            .body(body);
        for (k, v) in headers {
            req = req.header(*k, v.as_str());
        }
        rt.block_on(async {
            let r = req.send().await.expect("the gateway answers");
            let status = r.status().as_u16();
            (status, r.text().await.unwrap_or_default())
        })
    };
    let (s, _) = send("POST", "/dbs", "dbs", "", &[], br#"{"id":"d"}"#.to_vec());
    assert_eq!(s, 201);
    let (s, _) = send(
        "POST",
        "/dbs/d/colls",
        "colls",
        "dbs/d",
        &[],
        br#"{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash"}}"#.to_vec(),
    );
    assert_eq!(s, 201);

    let mut runner = TestRunner::new(Config {
        cases: 400,
        failure_persistence: None,
        ..Config::default()
    });
    // Every item's id and etag: a refused request must leave them as they were.
    let snapshot = || {
        let c = gw.engine.database("d").container("c");
        let mut v: Vec<(String, String)> = rt
            .block_on(c.query_all::<serde_json::Value>(
                "SELECT c.id, c._etag FROM c",
                engine::NO_PARAMS,
                Default::default(),
            ))
            .unwrap()
            .items
            .iter()
            .map(|d| (d["id"].to_string(), d["_etag"].to_string()))
            .collect();
        v.sort();
        v
    };
    let statuses = std::cell::RefCell::new(std::collections::BTreeMap::<u16, u32>::new());
    runner
        .run(&fuzzed(), |f| {
            // An empty id or one of dots is no path segment a URL keeps: the client would sign
            // another path than it sends.
            if let Some(id) = &f.id {
                prop_assume!(id.chars().any(|c| c != '.'));
            }
            let before = snapshot();
            let (path, link) = match &f.id {
                Some(id) => {
                    let enc = percent_encoding::utf8_percent_encode(
                        id,
                        percent_encoding::NON_ALPHANUMERIC,
                    );
                    (
                        format!("/dbs/d/colls/c/docs/{enc}"),
                        format!("dbs/d/colls/c/docs/{id}"),
                    )
                }
                None => ("/dbs/d/colls/c/docs".to_owned(), "dbs/d/colls/c".to_owned()),
            };
            let (status, text) = send(f.method, &path, "docs", &link, &f.headers, f.body.clone());
            prop_assert!(
                status < 500 || status == 501,
                "{f:?} answered {status}: {text}"
            );
            *statuses.borrow_mut().entry(status).or_default() += 1;
            if status >= 400 {
                prop_assert_eq!(
                    &before,
                    &snapshot(),
                    "{:?} answered {} yet changed items",
                    f,
                    status
                );
                let v: serde_json::Value = serde_json::from_str(&text)
                    .map_err(|e| TestCaseError::fail(format!("{f:?}: {status} {text}: {e}")))?;
                prop_assert!(v["code"].is_string() && v["message"].is_string(), "{text}");
            }
            Ok(())
        })
        .unwrap();
    // The requests reached the handlers (not only the signature check), and some succeeded.
    let statuses = statuses.into_inner();
    assert!(statuses.keys().any(|s| *s < 300), "{statuses:?}");
    assert!(
        statuses.get(&400).copied().unwrap_or(0) > 20,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.get(&401),
        None,
        "signed requests pass: {statuses:?}"
    );
    eprintln!("statuses: {statuses:?}");
    // Still serving.
    let (s, _) = send("GET", "/", "", "", &[], Vec::new());
    assert_eq!(s, 200);
}
