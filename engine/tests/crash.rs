//! Durability: a child process writes under load and prints every write the engine acknowledged;
//! the parent kills it with SIGKILL at varying moments, reopens the files, and checks that every
//! acknowledged write is present and intact. The child is this same test binary, re-executed.

mod common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use engine::{ContainerProperties, Engine, EngineOptions};
use serde_json::{json, Value};

const CHILD_ENV: &str = "ENGINE_CRASH_CHILD_DIR";

/// The child: 16 concurrent writers creating and updating items until killed.
#[test]
fn crash_child() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let engine = Engine::open(&dir, EngineOptions { initial_partitions: 4, split_threshold_bytes: 256 * 1024, ..Default::default() }).unwrap();
        let db = engine.create_database_if_not_exists("crash").await.unwrap();
        let c = db.create_container_if_not_exists(ContainerProperties::new("items", "/pk")).await.unwrap();
        let run = std::process::id();
        let mut tasks = Vec::new();
        for w in 0..16 {
            let c = c.clone();
            tasks.push(tokio::spawn(async move {
                for i in 0u64.. {
                    let id = format!("{run}-{w}-{i}");
                    let pk = format!("pk{}", i % 13);
                    let doc = json!({"id": id, "pk": pk, "version": 1, "payload": "p".repeat((i % 50) as usize * 20)});
                    c.create_item(&doc, None, None).await.unwrap();
                    println!("ack create {id} {pk} 1");
                    if i % 3 == 0 {
                        let doc = json!({"id": id, "pk": pk, "version": 2, "payload": "updated"});
                        c.upsert_item(&doc, None, None).await.unwrap();
                        println!("ack update {id} {pk} 2");
                    }
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
    });
}

#[test]
fn acknowledged_writes_survive_sigkill() {
    if [CHILD_ENV, PROCESSOR_ENV, PROCEDURE_ENV]
        .iter()
        .any(|v| std::env::var(v).is_ok())
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Expected minimum version of each acknowledged item: (id, pk) -> version.
    let mut acked: HashMap<(String, String), u64> = HashMap::new();
    for (round, kill_after) in [7usize, 40, 150, 400, 900, 1500, 3000, 25, 2200, 5000]
        .into_iter()
        .enumerate()
    {
        let (lines, seen) =
            run_until_killed("crash_child", CHILD_ENV, dir.path(), kill_after, |l| {
                l.starts_with("ack ")
            });
        // Lines printed before the kill were acknowledged: they all count.
        for line in &lines {
            record(&mut acked, line);
        }
        assert!(
            seen >= kill_after.min(7),
            "round {round}: child wrote only {seen} acks"
        );

        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
            let c = engine.database("crash").container("items");
            for ((id, pk), version) in &acked {
                let item = c
                    .read_item::<Value>(id, pk.as_str(), None)
                    .await
                    .unwrap_or_else(|e| panic!("round {round}: acknowledged {id} lost: {e}"));
                let got = item.resource.unwrap()["version"].as_u64().unwrap();
                assert!(
                    got >= *version,
                    "round {round}: {id} has version {got}, acknowledged {version}"
                );
            }
            // Counters agree with the items actually stored.
            let stats = c.stats(1000).await.unwrap();
            let by_lp: u64 = stats
                .partitions
                .iter()
                .flat_map(|p| p.largest_logical_partitions.iter())
                .map(|l| l.items)
                .sum();
            assert_eq!(
                stats.items, by_lp,
                "round {round}: partition counters drifted"
            );
            assert!(stats.items as usize >= acked.len());
        });
    }
    eprintln!(
        "{} acknowledged writes checked after 10 SIGKILLs",
        acked.len()
    );
    assert!(
        acked.len() > 3000,
        "only {} writes were acknowledged in total",
        acked.len()
    );
}

fn record(acked: &mut HashMap<(String, String), u64>, line: &str) -> bool {
    let parts: Vec<_> = line.split_whitespace().collect();
    if parts.len() != 5 || parts[0] != "ack" {
        return false;
    }
    let v: u64 = parts[4].parse().unwrap();
    let e = acked
        .entry((parts[2].to_owned(), parts[3].to_owned()))
        .or_insert(0);
    *e = (*e).max(v);
    true
}

/// Runs the child test `name` (this binary, `env` pointing it at `dir`) and SIGKILLs it once
/// `wanted` of its stdout lines satisfied `counts`. Returns every line it printed, including
/// those flushed before the kill, and how many counted before it.
fn run_until_killed(
    name: &str,
    env: &str,
    dir: &std::path::Path,
    wanted: usize,
    counts: impl Fn(&str) -> bool,
) -> (Vec<String>, usize) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(env, dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let (mut out, mut seen) = (Vec::new(), 0);
    while seen < wanted {
        let Some(Ok(line)) = lines.next() else { break };
        seen += usize::from(counts(&line));
        out.push(line);
    }
    unsafe { libc_kill(child.id() as i32) };
    out.extend(lines.map_while(Result::ok));
    let _ = child.wait();
    (out, seen)
}

extern "C" {
    fn kill(pid: i32, sig: i32) -> i32;
}

/// SIGKILL: no destructor, no flush, no chance to finish a commit.
unsafe fn libc_kill(pid: i32) {
    kill(pid, 9);
}

const PROCESSOR_ENV: &str = "ENGINE_CRASH_PROCESSOR_DIR";

/// The child for the processor crash test: keeps updating source items while a processor copies
/// them into a view, batch by batch, until it is killed.
#[test]
fn crash_processor_child() {
    let Ok(dir) = std::env::var(PROCESSOR_ENV) else {
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let engine = Engine::open(
            &dir,
            EngineOptions {
                initial_partitions: 3,
                ..Default::default()
            },
        )
        .unwrap();
        let (source, view, leases) = processor_containers(&engine).await;
        let writer = tokio::spawn(async move {
            for i in 0u64.. {
                let v = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64;
                let doc =
                    json!({"id": format!("s{}", i % 400), "pk": format!("k{}", i % 17), "v": v});
                source.upsert_item(&doc, None, None).await.unwrap();
            }
        });
        let p = copy_processor(&engine, "view", view, leases).await;
        p.start().await.unwrap();
        writer.await.unwrap();
    });
}

async fn processor_containers(
    engine: &Engine,
) -> (
    engine::ContainerClient,
    engine::ContainerClient,
    engine::ContainerClient,
) {
    let db = engine.create_database_if_not_exists("cf").await.unwrap();
    let source = db
        .create_container_if_not_exists(ContainerProperties::new("source", "/pk"))
        .await
        .unwrap();
    let view = db
        .create_container_if_not_exists(ContainerProperties::new("view", "/pk"))
        .await
        .unwrap();
    let view2 = db
        .create_container_if_not_exists(ContainerProperties::new("rebuilt", "/pk"))
        .await
        .unwrap();
    drop(view2);
    let leases = db
        .create_container_if_not_exists(ContainerProperties::new("leases", "/processor"))
        .await
        .unwrap();
    (source, view, leases)
}

/// A processor copying `{id, pk, v}` of every change into `view`, printing each finished batch.
async fn copy_processor(
    engine: &Engine,
    name: &str,
    view: engine::ContainerClient,
    leases: engine::ContainerClient,
) -> engine::ChangeFeedProcessor {
    let source = engine.database("cf").container("source");
    source
        .change_feed_processor(name)
        .lease_container(leases)
        .max_items_per_batch(25)
        .handler(move |changes: Vec<Value>| {
            let view = view.clone();
            async move {
                for d in changes {
                    view.upsert_item(
                        &json!({"id": d["id"], "pk": d["pk"], "v": d["v"]}),
                        None,
                        None,
                    )
                    .await?;
                }
                println!("batch");
                Ok::<_, engine::Error>(())
            }
        })
        .build()
        .unwrap()
}

async fn snapshot(c: &engine::ContainerClient) -> HashMap<String, u64> {
    let mut out = HashMap::new();
    let mut cont: Option<String> = None;
    loop {
        let page = c
            .read_all_items::<Value>(1000, cont.as_deref())
            .await
            .unwrap();
        for d in page.items {
            out.insert(
                d["id"].as_str().unwrap().to_owned(),
                d["v"].as_u64().unwrap(),
            );
        }
        match page.continuation {
            Some(next) => cont = Some(next),
            None => return out,
        }
    }
}

#[test]
fn a_processor_killed_mid_batch_delivers_everything_after_restart() {
    if [CHILD_ENV, PROCESSOR_ENV, PROCEDURE_ENV]
        .iter()
        .any(|v| std::env::var(v).is_ok())
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for (round, batches) in [3usize, 40, 1, 15, 300].into_iter().enumerate() {
        let (_, seen) = run_until_killed(
            "crash_processor_child",
            PROCESSOR_ENV,
            dir.path(),
            batches,
            |l| l == "batch",
        );
        assert_eq!(seen, batches, "round {round}: the child stopped early");
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let (source, view, leases) = processor_containers(&engine).await;
        // Resume: the checkpoints never ran ahead of the handler, so catching up completes the view.
        let p = copy_processor(&engine, "view", view.clone(), leases.clone()).await;
        p.start().await.unwrap();
        wait_for_no_lag(&p).await;
        p.stop().await;
        let expected = snapshot(&source).await;
        assert!(
            expected.len() >= 50,
            "the children wrote {} items",
            expected.len()
        );
        assert_eq!(
            snapshot(&view).await,
            expected,
            "the live view equals the source"
        );
        // A view rebuilt from the beginning equals the live one.
        let rebuilt = engine.database("cf").container("rebuilt");
        let p = copy_processor(&engine, "rebuild", rebuilt.clone(), leases).await;
        p.start().await.unwrap();
        wait_for_no_lag(&p).await;
        p.stop().await;
        assert_eq!(
            snapshot(&rebuilt).await,
            expected,
            "the rebuilt view equals the live one"
        );
    });
}

async fn wait_for_no_lag(p: &engine::ChangeFeedProcessor) {
    for _ in 0..1000 {
        if p.estimate_lag()
            .await
            .unwrap()
            .iter()
            .all(|l| l.pending == 0)
        {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("the processor never caught up");
}

const PROCEDURE_ENV: &str = "ENGINE_CRASH_PROCEDURE_DIR";

/// `createOrder`: a sales order and the customer's `salesOrderCount`, in one transaction.
fn create_order(ctx: &mut engine::ScriptContext, args: &[Value]) -> engine::Result<Value> {
    let customer_id = args[0].as_str().unwrap_or_default().to_owned();
    let mut customer = ctx
        .read_item(&customer_id)?
        .unwrap_or_else(|| json!({"id": customer_id, "customerId": customer_id, "type": "customer", "salesOrderCount": 0}));
    customer["salesOrderCount"] = json!(customer["salesOrderCount"].as_i64().unwrap_or(0) + 1);
    ctx.upsert_item(customer)?;
    ctx.create_item(json!({"id": args[1], "customerId": customer_id, "type": "salesOrder"}))
}

#[test]
fn crash_procedure_child() {
    let Ok(dir) = std::env::var(PROCEDURE_ENV) else {
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let engine = Engine::open(
            &dir,
            EngineOptions {
                initial_partitions: 4,
                ..Default::default()
            },
        )
        .unwrap();
        let db = engine.create_database_if_not_exists("shop").await.unwrap();
        let c = db
            .create_container_if_not_exists(ContainerProperties::new("customer", "/customerId"))
            .await
            .unwrap();
        c.scripts()
            .upsert_stored_procedure("createOrder", create_order)
            .unwrap();
        let run = std::process::id();
        let mut tasks = Vec::new();
        for w in 0..16 {
            let c = c.clone();
            tasks.push(tokio::spawn(async move {
                for i in 0u64.. {
                    let customer = format!("cust{}", (w + i) % 20);
                    let order = format!("{run}-{w}-{i}");
                    c.scripts()
                        .execute_stored_procedure::<Value>(
                            "createOrder",
                            customer.as_str(),
                            &[json!(customer), json!(order)],
                        )
                        .await
                        .unwrap();
                    println!("order");
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
    });
}

#[test]
fn counts_stay_equal_to_orders_when_procedures_are_killed() {
    if [CHILD_ENV, PROCESSOR_ENV, PROCEDURE_ENV]
        .iter()
        .any(|v| std::env::var(v).is_ok())
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut acknowledged = 0;
    for orders in [5usize, 300, 50, 1200, 1] {
        let (lines, _) = run_until_killed(
            "crash_procedure_child",
            PROCEDURE_ENV,
            dir.path(),
            orders,
            |l| l == "order",
        );
        let seen = lines.iter().filter(|l| *l == "order").count();
        acknowledged += seen;
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let c = engine.database("shop").container("customer");
        let mut total_orders = 0;
        for n in 0..20 {
            let customer = format!("cust{n}");
            let items = c
                .read_all_items_in_partition::<Value>(customer.as_str())
                .await
                .unwrap()
                .items;
            let orders = items.iter().filter(|d| d["type"] == "salesOrder").count() as i64;
            let count = items
                .iter()
                .find(|d| d["type"] == "customer")
                .map_or(0, |d| d["salesOrderCount"].as_i64().unwrap());
            assert_eq!(
                count, orders,
                "{customer}: salesOrderCount {count} but {orders} orders"
            );
            total_orders += orders as usize;
        }
        assert!(
            total_orders >= acknowledged,
            "{total_orders} orders stored, {acknowledged} acknowledged"
        );
    });
}
