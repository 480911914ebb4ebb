//! Writes to one container while a procedure of another loops (issue 32): every write goes
//! through the engine's single writer, and a script runs on it, so a script's own JavaScript is
//! what other containers wait on. The writer lets a call's JavaScript run `max_javascript`
//! (50 ms of CPU by default) in all; this measures what that means for a neighbour's writes.
//!
//! `cargo bench -p engine --bench script_writer`

use std::time::{Duration, Instant};

use engine::{ContainerClient, ContainerProperties, Engine, EngineOptions, JavaScript};
use serde_json::{json, Value};

/// Writes to `c` one after another for `for_how_long`: their latencies, sorted.
async fn write_for(c: &ContainerClient, tag: &str, for_how_long: Duration) -> Vec<Duration> {
    let mut out = Vec::new();
    let started = Instant::now();
    let mut i = 0;
    while started.elapsed() < for_how_long {
        let t = Instant::now();
        c.create_item(&json!({"id": format!("{tag}-{i}"), "pk": "p"}), None, None)
            .await
            .unwrap();
        out.push(t.elapsed());
        i += 1;
    }
    out.sort();
    out
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn report(what: &str, l: &[Duration]) {
    println!(
        "| {what} | {} | {:.2} ms | {:.2} ms | {:.2} ms |",
        l.len(),
        pct(l, 0.5).as_secs_f64() * 1e3,
        pct(l, 0.99).as_secs_f64() * 1e3,
        l.last().unwrap().as_secs_f64() * 1e3
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    rt.block_on(async {
        let db = engine.create_database("bench").await.unwrap();
        // No throughput limit on the looping container: the worst case, back to back.
        let looping = db
            .create_container(ContainerProperties::new("looping", "/pk"))
            .await
            .unwrap();
        let other = db
            .create_container(ContainerProperties::new("other", "/pk"))
            .await
            .unwrap();
        looping
            .scripts()
            .upsert_stored_procedure(
                "spin",
                JavaScript::new("function spin() { while (true) {} }").unwrap(),
            )
            .unwrap();
        let quiet = write_for(&other, "quiet", Duration::from_secs(5)).await;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let spinner = {
            let (looping, stop) = (looping.clone(), stop.clone());
            tokio::spawn(async move {
                let mut calls = 0u32;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let e = looping
                        .scripts()
                        .execute_stored_procedure::<Value>("spin", "p", &[])
                        .await
                        .unwrap_err();
                    assert_eq!(e.status_code(), 408, "{e}");
                    calls += 1;
                }
                calls
            })
        };
        let beside = write_for(&other, "beside", Duration::from_secs(5)).await;
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let calls = spinner.await.unwrap();
        println!("| another container's writes | writes | p50 | p99 | max |");
        println!("|---|---:|---:|---:|---:|");
        report("alone", &quiet);
        report(
            &format!("beside a looping procedure ({calls} calls, each stopped)"),
            &beside,
        );
    });
}
