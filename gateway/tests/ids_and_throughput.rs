//! Issue 35: `_self` links and resource ids, and database-level (shared) throughput, driven by
//! the official Python SDK (`tests/sdk/links.py`, `tests/sdk/shared_throughput.py`), and the
//! refusals a signed resource-id path meets over raw HTTP.

mod common;

use std::process::Command;
use std::time::SystemTime;

use common::TestGateway;
use gateway::MasterKey;
use serde_json::{json, Value};

fn sdk_installed() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import azure.cosmos"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok && std::env::var_os("CI").is_some() {
        panic!("the Python SDK is missing: pip install azure-cosmos (CI installs it)");
    }
    if !ok {
        eprintln!("SKIPPED: `pip install azure-cosmos` to run the SDK tests");
    }
    ok
}

fn run_sdk(gw: &TestGateway, script: &str) {
    if !sdk_installed() {
        return;
    }
    let path = format!("{}/tests/sdk/{script}", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(&path)
        .env("ACCOUNT_HOST", gw.endpoint())
        .env("ACCOUNT_KEY", gateway::EMULATOR_KEY)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{script} failed:\n{stdout}\n{stderr}");
}

#[test]
fn the_sdk_addresses_what_it_read_back_by_its_self_link() {
    let gw = TestGateway::start();
    run_sdk(&gw, "links.py");
}

#[test]
fn a_database_s_shared_throughput_is_an_offer_the_sdk_reads_and_replaces() {
    let gw = TestGateway::start();
    run_sdk(&gw, "shared_throughput.py");
}

/// A request signed as the SDKs sign a resource-id path (its last id, lower-cased).
async fn signed(
    addr: std::net::SocketAddr,
    method: reqwest::Method,
    path: &str,
    pk: &str,
    body: Option<Value>,
) -> (u16, Value) {
    // The SDKs sign a resource-id path with its resource type and its last id, lower-cased.
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (resource_type, link) = (segs[segs.len() - 2], segs[segs.len() - 1].to_lowercase());
    let date = httpdate::fmt_http_date(SystemTime::now());
    let mut r = reqwest::Client::new()
        .request(method.clone(), format!("http://{addr}{path}"))
        .header("x-ms-date", &date)
        .header("x-ms-version", "2020-07-15")
        .header("x-ms-documentdb-partitionkey", format!("[\"{pk}\"]"))
        .header(
            "authorization",
            MasterKey::emulator().authorization(method.as_str(), resource_type, &link, &date),
        );
    if let Some(b) = body {
        r = r.body(b.to_string());
    }
    let r = r.send().await.unwrap();
    let status = r.status().as_u16();
    let text = r.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

#[test]
fn a_resource_id_reaches_only_the_resource_it_names() {
    let gw = TestGateway::start();
    let addr = gw.addr;
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        let mut links = Vec::new();
        for db in ["a", "b"] {
            let d = gw.engine.create_database(db).await.unwrap();
            let c = d
                .create_container(engine::ContainerProperties::new("c", "/pk"))
                .await
                .unwrap();
            let doc = c
                .create_item(&json!({"id": "same", "pk": "p", "db": db}), None, None)
                .await
                .unwrap()
                .resource
                .unwrap();
            let doc: Value = doc;
            links.push(doc["_self"].as_str().unwrap().to_owned());
        }
        // Each _self reads its own item.
        for (link, db) in links.iter().zip(["a", "b"]) {
            let (status, got) =
                signed(addr, reqwest::Method::GET, &format!("/{link}"), "p", None).await;
            assert_eq!(
                (status, got["db"].as_str()),
                (200, Some(db)),
                "{link}: {got}"
            );
        }
        // An item's rid under the other database's container is refused before any lookup.
        let a: Vec<&str> = links[0].trim_end_matches('/').split('/').collect();
        let b: Vec<&str> = links[1].trim_end_matches('/').split('/').collect();
        let crossed = format!("/dbs/{}/colls/{}/docs/{}", b[1], b[3], a[5]);
        let (status, _) = signed(addr, reqwest::Method::GET, &crossed, "p", None).await;
        assert_eq!(status, 403, "{crossed}");
        let (status, _) = signed(
            addr,
            reqwest::Method::DELETE,
            &format!("/dbs/{}/colls/{}/docs/{}", a[1], b[3], a[5]),
            "p",
            None,
        )
        .await;
        assert_eq!(status, 403);
        // A rid of the right shape that names no item is a 404, and nothing was deleted.
        let (status, _) = signed(
            addr,
            reqwest::Method::DELETE,
            &format!("/{}", links[0]),
            "other",
            None,
        )
        .await;
        assert_eq!(status, 404);
        let (status, _) = signed(
            addr,
            reqwest::Method::GET,
            &format!("/{}", links[0]),
            "p",
            None,
        )
        .await;
        assert_eq!(status, 200);
        // Meant for another container (one deleted and re-created under this name): 400/1024.
        let path = "/dbs/a/colls/c/docs/same";
        let date = httpdate::fmt_http_date(SystemTime::now());
        let r = reqwest::Client::new()
            .get(format!("http://{addr}{path}"))
            .header("x-ms-date", &date)
            .header("x-ms-version", "2020-07-15")
            .header("x-ms-documentdb-partitionkey", "[\"p\"]")
            .header("x-ms-cosmos-intended-collection-rid", b[3])
            .header(
                "authorization",
                MasterKey::emulator().authorization("GET", "docs", &path[1..], &date),
            )
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 400);
        assert_eq!(r.headers()["x-ms-substatus"], "1024");
    });
}
