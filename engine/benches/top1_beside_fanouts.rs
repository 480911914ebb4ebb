//! A `SELECT TOP 1` fan-out beside two heavy fan-outs (issue 33: "two at once made a TOP 1
//! fan-out wait 47 s"). One container of 60 000 items in 8 physical partitions; the probe runs
//! `SELECT TOP 1 * FROM c` (cross-partition, one page) every 50 ms, first alone, then while two
//! clients page through a heavy query in a loop, each page as soon as the last one came back:
//! - `or`: a 16 000-term OR chain no index answers (`LOWER(c.name) = '…' OR …`), so every row
//!   is checked against every term;
//! - `regex`: `RegexMatch(c.description, …)`, unindexed, matching nothing.
//!
//! Reports the probe's p50 / p95 / max and the heavy pages' p50 / max: a probe that waits for a
//! query thread waits about one heavy page.
//!
//! `cargo bench -p engine --bench top1_beside_fanouts` (`BENCH_PROBES=` probes per scenario,
//! `BENCH_HEAVY=` heavy clients instead of two).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use engine::{ContainerClient, ContainerProperties, QueryOptions};
use serde_json::{json, Value};

mod common;

const ITEMS: u64 = 60_000;

fn item(i: u64) -> Value {
    json!({
        "id": format!("i{i}"), "pk": format!("p{}", i % 500), "n": i,
        "name": format!("Item {i}"),
        "description": "An item of the bench, with a description long enough to make a regex read some text. ".repeat(3),
    })
}

/// The heavy query of a scenario.
fn heavy_sql(kind: &str) -> String {
    match kind {
        "or" => {
            let terms: Vec<String> = (0..16_000)
                .map(|i| format!("LOWER(c.name) = 'none {i}'"))
                .collect();
            format!("SELECT VALUE c.n FROM c WHERE {}", terms.join(" OR "))
        }
        _ => "SELECT VALUE c.n FROM c WHERE RegexMatch(c.description, 'enough.*zebra.*[0-9]+$')"
            .into(),
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn summary(mut ms: Vec<f64>) -> String {
    if ms.is_empty() {
        return "none".into();
    }
    ms.sort_by(f64::total_cmp);
    format!(
        "p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms ({} samples)",
        percentile(&ms, 0.5),
        percentile(&ms, 0.95),
        ms[ms.len() - 1],
        ms.len()
    )
}

/// `probes` TOP 1 fan-outs, 50 ms apart: their latencies in ms.
async fn probe(c: &ContainerClient, probes: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(probes);
    for _ in 0..probes {
        let started = Instant::now();
        let page = c
            .query_items::<Value>(
                "SELECT TOP 1 * FROM c",
                engine::NO_PARAMS,
                QueryOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(page.items.len(), 1);
        out.push(started.elapsed().as_secs_f64() * 1e3);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    out
}

/// Pages through `sql` in a loop until `stop`, recording each page's latency.
async fn heavy(
    c: ContainerClient,
    sql: String,
    stop: Arc<AtomicBool>,
    pages: Arc<Mutex<Vec<f64>>>,
) {
    let mut continuation = None;
    while !stop.load(Ordering::Relaxed) {
        let started = Instant::now();
        let options = QueryOptions {
            continuation: continuation.take(),
            ..Default::default()
        };
        let page = c
            .query_items::<Value>(&sql, engine::NO_PARAMS, options)
            .await;
        pages
            .lock()
            .unwrap()
            .push(started.elapsed().as_secs_f64() * 1e3);
        // A refused page (its hard limit) starts the query again, as a client would.
        continuation = page.ok().and_then(|p| p.continuation);
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let probes: usize = std::env::var("BENCH_PROBES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let heavy_clients: usize = std::env::var("BENCH_HEAVY")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    let rt = common::runtime();
    let dir = tempfile::tempdir().unwrap();
    rt.block_on(async {
        let props = ContainerProperties::new("items", "/pk").with_initial_partitions(8);
        let (_engine, c) = common::loaded(dir.path(), props, ITEMS, item).await;
        // Warm: the first page of each kind, so the probe does not pay for cold pages.
        probe(&c, 3).await;
        println!("TOP 1 fan-out alone: {}", summary(probe(&c, probes).await));
        for kind in ["or", "regex"] {
            let stop = Arc::new(AtomicBool::new(false));
            let pages = Arc::new(Mutex::new(Vec::new()));
            let clients: Vec<_> = (0..heavy_clients)
                .map(|_| {
                    tokio::spawn(heavy(
                        c.clone(),
                        heavy_sql(kind),
                        stop.clone(),
                        pages.clone(),
                    ))
                })
                .collect();
            // Let both heavy clients get going.
            tokio::time::sleep(Duration::from_millis(300)).await;
            let window = Instant::now();
            let latencies = probe(&c, probes).await;
            let window = window.elapsed().as_secs_f64() + 0.3;
            stop.store(true, Ordering::Relaxed);
            for client in clients {
                client.await.unwrap();
            }
            let pages = std::mem::take(&mut *pages.lock().unwrap());
            println!(
                "TOP 1 fan-out beside {heavy_clients} `{kind}` fan-outs: {}; their pages: {:.1}/s, {}",
                summary(latencies),
                pages.len() as f64 / window,
                summary(pages)
            );
        }
    });
}
