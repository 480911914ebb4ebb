//! Engine core benchmarks, each a ratio measured side by side in one run (see BENCHMARKS.md):
//! - point read of a 1 KB item vs a raw heed get + serde_json parse of the same bytes;
//! - 64 concurrent creators vs SQLite (WAL, synchronous=FULL) inserting the same rows;
//! - point-read cost at 10 K vs 1 M items.
//!
//! `cargo bench -p engine --bench core` (set `BENCH_LARGE=0` to skip the 1 M item load);
//! `POINT_READS_ONLY=N` makes N point reads of each side for callgrind (see `point_reads_only`).

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use engine::{ContainerClient, ContainerProperties, Engine, EngineOptions, PartitionKey};
use heed::types::Bytes;
use serde_json::{json, Value};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// A ~1 KB customer document, shaped like the webstore seed's.
fn customer(i: u64) -> Value {
    json!({
        "id": format!("c{i}"), "customerId": format!("c{i}"), "type": "customer",
        "title": "", "firstName": "Franklin", "lastName": "Ye", "emailAddress": format!("franklin{i}@adventure-works.com"),
        "phoneNumber": "1 (11) 500 555-0139", "creationDate": "2014-02-05T00:00:00",
        "addresses": [{"addressLine1": "1796 Westbury Dr.", "addressLine2": "", "city": "Melton", "state": "VIC", "country": "AU", "zipCode": "3337"}],
        "password": {"hash": "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG", "salt": "c29tZXNhbHQ"},
        "salesOrderCount": 4, "pad": "x".repeat(300)
    })
}

async fn load(c: &ContainerClient, n: u64, make: fn(u64) -> Value) {
    let mut set = tokio::task::JoinSet::new();
    for i in 0..n {
        if set.len() >= 256 {
            set.join_next().await.unwrap().unwrap();
        }
        let c = c.clone();
        let doc = make(i);
        set.spawn(async move {
            c.create_item(
                &doc,
                None,
                Some(engine::ItemOptions {
                    enable_content_response_on_write: false,
                    ..Default::default()
                }),
            )
            .await
            .unwrap();
        });
        if i > 0 && i % 100_000 == 0 {
            eprintln!("  loaded {i}/{n}");
        }
    }
    while let Some(r) = set.join_next().await {
        r.unwrap();
    }
}

/// A bare heed database holding the same stored JSON as `container`, keyed by id: the floor the
/// engine is compared against.
fn raw_copy(
    container: &ContainerClient,
    dir: &std::path::Path,
    n: u64,
    id: fn(u64) -> String,
) -> (
    heed::Env<heed::WithoutTls>,
    heed::Database<'static, Bytes, Bytes>,
) {
    std::fs::create_dir_all(dir).unwrap();
    let env = unsafe {
        heed::EnvOpenOptions::new()
            .read_txn_without_tls()
            .map_size(8 << 30)
            .open(dir)
            .unwrap()
    };
    let raw: heed::Database<'static, Bytes, Bytes> = env
        .create_databases_and_commit(env.write_txn().unwrap(), |dbo, wtxn| -> heed::Result<_> {
            Ok(heed::CommitOrAbort::<_, ()>::Commit(
                dbo.create_database::<Bytes, Bytes>(wtxn, None)?,
            ))
        })
        .unwrap()
        .unwrap_commit();
    let mut wtxn = env.write_txn().unwrap();
    for i in 0..n {
        let id = id(i);
        let r = container
            .read_item_raw(&id, &PartitionKey::from(id.as_str()))
            .unwrap();
        raw.put(&mut wtxn, id.as_bytes(), &r.resource.unwrap())
            .unwrap();
    }
    wtxn.commit().unwrap();
    (env, raw)
}

/// 10 000 customers of ~1 KB in 4 partitions, and the same stored JSON in a bare heed database.
struct PointReads {
    _dir: tempfile::TempDir,
    _engine: Engine,
    container: ContainerClient,
    env: heed::Env<heed::WithoutTls>,
    raw: heed::Database<'static, Bytes, Bytes>,
    n: u64,
}

fn point_reads_setup(rt: &tokio::runtime::Runtime) -> PointReads {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path().join("engine"), EngineOptions::default()).unwrap();
    let n = 10_000u64;
    let container = rt.block_on(async {
        let db = engine.create_database("bench").await.unwrap();
        let c = db
            .create_container(
                ContainerProperties::new("customer", "/customerId").with_initial_partitions(4),
            )
            .await
            .unwrap();
        load(&c, n, customer).await;
        c
    });
    let (env, raw) = raw_copy(&container, &dir.path().join("raw"), n, |i| format!("c{i}"));
    PointReads {
        _dir: dir,
        _engine: engine,
        container,
        env,
        raw,
        n,
    }
}

/// `calls` engine point reads (`read_item_raw` + parse), as the criterion bench makes them.
#[inline(never)]
fn engine_point_reads(p: &PointReads, calls: u64) {
    for k in 0..calls {
        let id = format!("c{}", k * 7919 % p.n);
        let r = p
            .container
            .read_item_raw(&id, &PartitionKey::from(id.as_str()))
            .unwrap();
        black_box(serde_json::from_slice::<Value>(r.resource.as_ref().unwrap()).unwrap());
    }
}

/// `calls` raw heed gets + parse of the same items.
#[inline(never)]
fn raw_point_reads(p: &PointReads, calls: u64) {
    for k in 0..calls {
        let id = format!("c{}", k * 7919 % p.n);
        let rtxn = p.env.read_txn().unwrap();
        let bytes = p.raw.get(&rtxn, id.as_bytes()).unwrap().unwrap();
        black_box(serde_json::from_slice::<Value>(bytes).unwrap());
    }
}

/// `POINT_READS_ONLY=N`: N point reads of each side and nothing else, for callgrind, whose
/// instruction counts do not depend on the machine's load: each side's inclusive count
/// (`callgrind_annotate --inclusive=yes`, functions `engine_point_reads` and `raw_point_reads`)
/// divided by N is one read.
fn point_reads_only(calls: u64) {
    let rt = runtime();
    let p = point_reads_setup(&rt);
    engine_point_reads(&p, calls);
    raw_point_reads(&p, calls);
    println!("{calls} point reads of each side");
}

fn point_read_vs_raw_heed(c: &mut Criterion) {
    let rt = runtime();
    let PointReads {
        container,
        env,
        raw,
        n,
        ..
    } = &point_reads_setup(&rt);
    let (container, env, raw, n) = (container, env, raw, *n);
    let sample_len = container
        .read_item_raw("c0", &PartitionKey::from("c0"))
        .unwrap()
        .resource
        .unwrap()
        .len();
    eprintln!("item size: {sample_len} bytes");
    let mut g = c.benchmark_group("point_read_1kb");
    g.throughput(Throughput::Elements(1));
    let mut i = 0u64;
    g.bench_function("engine read_item", |b| {
        b.iter(|| {
            i = (i + 7919) % n;
            let id = format!("c{i}");
            let r = container
                .read_item_raw(&id, &PartitionKey::from(id.as_str()))
                .unwrap();
            black_box(serde_json::from_slice::<Value>(r.resource.as_ref().unwrap()).unwrap());
        })
    });
    g.bench_function("raw heed get + serde_json", |b| {
        b.iter(|| {
            i = (i + 7919) % n;
            let id = format!("c{i}");
            let rtxn = env.read_txn().unwrap();
            let bytes = raw.get(&rtxn, id.as_bytes()).unwrap().unwrap();
            black_box(serde_json::from_slice::<Value>(bytes).unwrap());
        })
    });
    g.finish();
}

fn create_64_writers_vs_sqlite(c: &mut Criterion) {
    let rt = runtime();
    let writers = 64u64;
    let per_writer = 20u64;
    let mut g = c.benchmark_group("create_64_concurrent");
    g.throughput(Throughput::Elements(writers * per_writer));
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(20));

    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path().join("engine"), EngineOptions::default()).unwrap();
    // Cosmos DB's default policy indexes every path (~16 entries per customer here); the same
    // writes with indexing off show what the index costs.
    let (indexed, unindexed) = rt.block_on(async {
        let db = engine.create_database("bench").await.unwrap();
        let indexed = db
            .create_container(ContainerProperties::new("customer", "/customerId"))
            .await
            .unwrap();
        let none = json!({"indexingMode": "none"});
        let unindexed = db
            .create_container(
                ContainerProperties::new("customerNoIndex", "/customerId")
                    .with_indexing_policy(none),
            )
            .await
            .unwrap();
        (indexed, unindexed)
    });
    let mut round = 0u64;
    for (name, container) in [
        ("engine, every path indexed", indexed),
        ("engine, indexing none", unindexed),
    ] {
        g.bench_function(name, |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                for _ in 0..iters {
                    round += 1;
                    let r = round;
                    rt.block_on(creates(&container, writers, per_writer, r));
                }
                start.elapsed()
            })
        });
    }

    let db_path = dir.path().join("sqlite.db");
    {
        let conn = rusqlite::Connection::open(&db_path).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        conn.pragma_update(None, "synchronous", "FULL").unwrap();
        conn.execute("CREATE TABLE items (pk TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (pk, id))", []).unwrap();
    }
    let mut round = 0u64;
    g.bench_function("sqlite wal synchronous=full", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                round += 1;
                let r = round;
                let path = Arc::new(db_path.clone());
                std::thread::scope(|s| {
                    for w in 0..writers {
                        let path = path.clone();
                        s.spawn(move || {
                            let conn = rusqlite::Connection::open(&*path).unwrap();
                            conn.busy_timeout(Duration::from_secs(60)).unwrap();
                            conn.pragma_update(None, "synchronous", "FULL").unwrap();
                            for k in 0..per_writer {
                                let mut doc = customer(0);
                                let id = format!("r{r}-w{w}-{k}");
                                doc["id"] = json!(id);
                                doc["customerId"] = json!(id);
                                let body = serde_json::to_string(&doc).unwrap();
                                // One durable transaction per create, as the engine acknowledges each.
                                conn.execute(
                                    "INSERT INTO items (pk, id, body) VALUES (?1, ?2, ?3)",
                                    (&id, &id, &body),
                                )
                                .unwrap();
                            }
                        });
                    }
                });
            }
            start.elapsed()
        })
    });
    g.finish();
}

/// `writers` concurrent tasks each creating `per_writer` customers (round `r` keeps ids unique).
async fn creates(container: &ContainerClient, writers: u64, per_writer: u64, r: u64) {
    let mut set = tokio::task::JoinSet::new();
    for w in 0..writers {
        let c = container.clone();
        set.spawn(async move {
            for k in 0..per_writer {
                let mut doc = customer(0);
                let id = format!("r{r}-w{w}-{k}");
                doc["id"] = json!(id);
                doc["customerId"] = json!(id);
                let opts = engine::ItemOptions {
                    enable_content_response_on_write: false,
                    ..Default::default()
                };
                c.create_item(&doc, None, Some(opts)).await.unwrap();
            }
        });
    }
    while let Some(r) = set.join_next().await {
        r.unwrap();
    }
}

fn point_read_scaling(c: &mut Criterion) {
    let sizes: &[u64] = if std::env::var("BENCH_LARGE").as_deref() == Ok("0") {
        &[10_000, 100_000]
    } else {
        &[10_000, 1_000_000]
    };
    let rt = runtime();
    let mut g = c.benchmark_group("point_read_scaling");
    g.throughput(Throughput::Elements(1));
    for &n in sizes {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path().join("engine"), EngineOptions::default()).unwrap();
        eprintln!("loading {n} items…");
        let container = rt.block_on(async {
            let db = engine.create_database("bench").await.unwrap();
            let c = db.create_container(ContainerProperties::new("posts", "/postId").with_initial_partitions(4)).await.unwrap();
            load(&c, n, |i| json!({"id": format!("p{i}"), "postId": format!("p{i}"), "type": "post", "title": "A title", "content": "y".repeat(200)})).await;
            c
        });
        let (env, raw) = raw_copy(&container, &dir.path().join("raw"), n, |i| format!("p{i}"));
        let mut i = 0u64;
        g.bench_with_input(BenchmarkId::new("engine read_item", n), &n, |b, &n| {
            b.iter(|| {
                i = (i + 104_729) % n;
                let id = format!("p{i}");
                black_box(
                    container
                        .read_item_raw(&id, &PartitionKey::from(id.as_str()))
                        .unwrap(),
                );
            })
        });
        g.bench_with_input(BenchmarkId::new("raw heed get", n), &n, |b, &n| {
            b.iter(|| {
                i = (i + 104_729) % n;
                let id = format!("p{i}");
                let rtxn = env.read_txn().unwrap();
                black_box(raw.get(&rtxn, id.as_bytes()).unwrap().unwrap().len());
            })
        });
    }
    g.finish();
}

criterion_group!(
    benches,
    point_read_vs_raw_heed,
    create_64_writers_vs_sqlite,
    point_read_scaling
);
fn main() {
    if let Some(calls) = std::env::var("POINT_READS_ONLY")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        point_reads_only(calls);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
