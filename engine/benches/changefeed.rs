//! Change feed and stored procedure benchmarks (see BENCHMARKS.md):
//! - change-to-handler lag, p50/p99, under a steady write load (processor woken on commit);
//! - stored-procedure throughput vs the same writes as separate requests, side by side.
//!
//! `cargo bench -p engine --bench changefeed`

use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::{ContainerProperties, Engine, EngineOptions, PatchOperation, ScriptContext};
use parking_lot::Mutex;
use serde_json::{json, Value};

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

async fn lag(engine: &Engine) {
    let db = engine.create_database("lag").await.unwrap();
    let source = db
        .create_container(ContainerProperties::new("source", "/pk").with_initial_partitions(4))
        .await
        .unwrap();
    let leases = db
        .create_container(ContainerProperties::new("leases", "/processor"))
        .await
        .unwrap();
    let epoch = Instant::now();
    let lags = Arc::new(Mutex::new(Vec::new()));
    let l = lags.clone();
    let p = source
        .change_feed_processor("lag")
        .lease_container(leases)
        .handler(move |changes: Vec<Value>| {
            let l = l.clone();
            async move {
                let now = epoch.elapsed().as_micros() as f64;
                let mut l = l.lock();
                for d in changes {
                    l.push((now - d["writtenAtMicros"].as_f64().unwrap()) / 1000.0);
                }
                Ok::<_, String>(())
            }
        })
        .build()
        .unwrap();
    p.start().await.unwrap();
    // A steady load: 8 writers, each one write every 4 ms (about 2 000 writes/s), for 5 s.
    let mut writers = Vec::new();
    for w in 0..8 {
        let source = source.clone();
        writers.push(tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(4));
            for i in 0..1250 {
                tick.tick().await;
                let doc = json!({"id": format!("{w}-{i}"), "pk": format!("k{}", i % 50), "writtenAtMicros": epoch.elapsed().as_micros() as u64});
                source.create_item(&doc, None, None).await.unwrap();
            }
        }));
    }
    for w in writers {
        w.await.unwrap();
    }
    while lags.lock().len() < 10_000 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    p.stop().await;
    let mut v = lags.lock().clone();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "change-to-handler lag over {} changes at ~2000 writes/s: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        v.len(),
        percentile(&v, 0.5),
        percentile(&v, 0.99),
        v[v.len() - 1]
    );
}

fn create_order(ctx: &mut ScriptContext, args: &[Value]) -> engine::Result<Value> {
    let customer_id = args[0].as_str().unwrap_or_default().to_owned();
    ctx.patch_item(
        &customer_id,
        vec![PatchOperation::increment("/salesOrderCount", 1)],
    )?;
    ctx.create_item(
        json!({"id": args[1], "customerId": customer_id, "type": "salesOrder", "total": 42.5}),
    )
}

async fn procedures(engine: &Engine) {
    let db = engine.create_database("orders").await.unwrap();
    let c = db
        .create_container(
            ContainerProperties::new("customer", "/customerId").with_initial_partitions(4),
        )
        .await
        .unwrap();
    c.scripts()
        .upsert_stored_procedure("createOrder", create_order)
        .unwrap();
    for n in 0..64 {
        let id = format!("cust{n}");
        c.create_item(
            &json!({"id": id, "customerId": id, "type": "customer", "salesOrderCount": 0}),
            None,
            None,
        )
        .await
        .unwrap();
    }
    let per_client = 100;
    let run = |with_procedure: bool, round: usize| {
        let c = c.clone();
        async move {
            let started = Instant::now();
            let mut tasks = Vec::new();
            for n in 0..64 {
                let c = c.clone();
                tasks.push(tokio::spawn(async move {
                    let customer = format!("cust{n}");
                    for i in 0..per_client {
                        let order = format!("o{round}-{n}-{i}");
                        if with_procedure {
                            c.scripts()
                                .execute_stored_procedure::<Value>("createOrder", customer.as_str(), &[json!(customer), json!(order)])
                                .await
                                .unwrap();
                        } else {
                            c.create_item(&json!({"id": order, "customerId": customer, "type": "salesOrder", "total": 42.5}), None, None).await.unwrap();
                            c.patch_item::<Value>(&customer, customer.as_str(), &[PatchOperation::increment("/salesOrderCount", 1)], None)
                                .await
                                .unwrap();
                        }
                    }
                }));
            }
            for t in tasks {
                t.await.unwrap();
            }
            (64 * per_client) as f64 / started.elapsed().as_secs_f64()
        }
    };
    // Alternate the two, three rounds each, so machine noise hits both alike.
    let (mut sp, mut sep) = (Vec::new(), Vec::new());
    for round in 0..3 {
        sp.push(run(true, round * 2).await);
        sep.push(run(false, round * 2 + 1).await);
    }
    let best = |v: &[f64]| v.iter().cloned().fold(0.0, f64::max);
    println!(
        "orders/s with 64 clients: stored procedure {:.0}, separate create + patch {:.0}, ratio {:.2}x",
        best(&sp),
        best(&sep),
        best(&sp) / best(&sep)
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // `cargo bench -- --list` probes targets
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    rt.block_on(async {
        lag(&engine).await;
        procedures(&engine).await;
    });
}
