//! Scripts created over the REST API by a hostile client (issue 32): a text that runs code when
//! it is evaluated is refused quickly while other requests are answered, and one stored before
//! such checks existed never stops the gateway from starting.

mod common;

use std::time::{Duration, Instant, SystemTime};

use common::TestGateway;
use gateway::MasterKey;
use serde_json::json;

fn signed(
    http: &reqwest::Client,
    addr: std::net::SocketAddr,
    method: reqwest::Method,
    path: &str,
    (kind, link): (&str, &str),
    body: Option<String>,
) -> reqwest::RequestBuilder {
    let date = httpdate::fmt_http_date(SystemTime::now());
    let key = MasterKey::emulator();
    let mut req = http
        .request(method.clone(), format!("http://{addr}{path}"))
        .header("x-ms-date", &date)
        .header("x-ms-version", "2020-07-15")
        .header(
            "authorization",
            key.authorization(method.as_str(), kind, link, &date),
        );
    if let Some(b) = body {
        req = req.body(b);
    }
    req
}

/// The stored procedures registered on `db/c`.
fn procedures(gw: &TestGateway) -> Vec<String> {
    let c = gw.engine.database("db").container("c");
    c.scripts().list().unwrap().stored_procedures
}

async fn container(engine: &engine::Engine) -> u32 {
    let db = engine.create_database_if_not_exists("db").await.unwrap();
    db.create_container(engine::ContainerProperties::new("c", "/pk"))
        .await
        .unwrap();
    db.containers()[0].rid()
}

#[test]
fn a_script_text_that_loops_or_allocates_when_created_is_a_quick_400_and_others_are_served() {
    let gw = TestGateway::start();
    let addr = gw.addr;
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        container(&gw.engine).await;
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(20))
            .build()
            .unwrap();
        let bodies = [
            "function a(){}) , (function(){while(true){}})(), (function b(){}",
            "function a(){}, (function(){while(true){}})()",
            "function a(){}, (function(){ var a = [], s = 'x'.repeat(1 << 20); for (;;) a.push(s + a.length); })()",
        ];
        // Hostile creates at once (two left the gateway answering nothing before), and the
        // account read beside them.
        let creates: Vec<_> = bodies
            .iter()
            .map(|body| {
                let req = signed(
                    &http,
                    addr,
                    reqwest::Method::POST,
                    "/dbs/db/colls/c/sprocs",
                    ("sprocs", "dbs/db/colls/c"),
                    Some(json!({"id": "evil", "body": body}).to_string()),
                );
                tokio::spawn(async move {
                    let started = Instant::now();
                    let r = req.send().await.unwrap();
                    let status = r.status().as_u16();
                    (status, r.text().await.unwrap(), started.elapsed())
                })
            })
            .collect();
        let mut slowest_read = Duration::ZERO;
        for _ in 0..20 {
            let started = Instant::now();
            let r = signed(&http, addr, reqwest::Method::GET, "/", ("", ""), None)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 200);
            slowest_read = slowest_read.max(started.elapsed());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        for (create, body) in creates.into_iter().zip(bodies) {
            let (status, text, took) = create.await.unwrap();
            assert_eq!(status, 400, "{body}: {text}");
            assert!(took < Duration::from_secs(6), "{body}: {took:?}");
        }
        assert!(slowest_read < Duration::from_secs(1), "{slowest_read:?}");
    });
    assert!(procedures(&gw).is_empty());
}

#[test]
fn a_stored_script_that_loops_when_loaded_is_skipped_and_the_gateway_starts() {
    let data = tempfile::tempdir().unwrap();
    let rid = {
        let gw = TestGateway::at(data.path(), gateway::Limits::default());
        tokio::runtime::Runtime::new()
            .unwrap()
            .block_on(container(&gw.engine))
    };
    // As an older gateway stored them: a good procedure, and one whose text loops after a delay
    // when it is evaluated (what made every restart hang).
    let saved = json!([
        {"container": rid, "kind": "sprocs", "id": "good", "ts": 1,
         "body": "function good() { getContext().getResponse().setBody('ok'); }"},
        {"container": rid, "kind": "sprocs", "id": "delayed", "ts": 1,
         "body": "function a(){}, (function(){ var t = Date.now(); while (Date.now() - t < 1e9) {} })()"},
    ]);
    std::fs::write(
        data.path().join("gateway-scripts.json"),
        serde_json::to_vec(&saved).unwrap(),
    )
    .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let dir = data.path().to_owned();
    std::thread::spawn(move || {
        let gw = TestGateway::at(&dir, gateway::Limits::default());
        let _ = tx.send(gw);
    });
    let gw = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the gateway starts within 20 s");
    assert_eq!(procedures(&gw), vec!["good".to_owned()]);
}
