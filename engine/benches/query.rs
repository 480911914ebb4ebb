//! Query benchmarks (see BENCHMARKS.md), each side by side in one run:
//! - a single-partition query returning 25 items vs the same query on SQLite with an index on
//!   the JSON property, over the same stored JSON (system properties included); both sides
//!   return the items parsed into `Value`s, then (typed rows) into the app's `Product` struct;
//! - ORDER BY ... TOP 100 over 100 K and 1 M items in 8 partitions: items read and RU must grow
//!   with partitions × 100, not with items.
//!
//! `cargo bench -p engine --bench query` (`BENCH_LARGE=0` stops at 100 K items; `QUERY_ONLY=N`
//! runs N single-partition queries of each side and each row type over 10 K items, for
//! callgrind: the loops `engine_queries` and `sqlite_queries`, once with `Value` and once with
//! `Product`; `QUERY_ROWS=values` or `typed` runs one of them).

use std::time::{Duration, Instant};

use engine::{ContainerClient, ContainerProperties, Engine, EngineOptions, QueryOptions};
use serde_json::{json, Value};

fn product(i: u64) -> Value {
    json!({
        "id": format!("p{i}"), "categoryId": format!("cat{}", i / 25), "categoryName": format!("Category {}", i / 25),
        "sku": format!("SKU-{i:08}"), "name": format!("Product {i}"), "price": (i * 7919 % 100_000) as f64 / 100.0,
        "tags": [{"id": "t1", "name": "Tag-1"}, {"id": format!("t{}", i % 50), "name": format!("Tag-{}", i % 50)}]
    })
}

/// Median of `runs` timings of `f`.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut t: Vec<Duration> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed()
        })
        .collect();
    t.sort();
    t[runs / 2]
}

mod common;

/// The items as an app declares them (typed rows): its own fields; the system properties the
/// stored JSON also holds are skipped.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct Product {
    id: String,
    category_id: String,
    category_name: String,
    sku: String,
    name: String,
    price: f64,
    tags: Vec<Tag>,
}

#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct Tag {
    id: String,
    name: String,
}

/// One 25-item single-partition query (category `k`) with rows of type `T`, as an app's
/// handler makes it.
async fn category<T: serde::de::DeserializeOwned + Send + 'static>(c: &ContainerClient, k: u64) {
    let r = c
        .query_items::<T>(
            "SELECT * FROM c WHERE c.categoryId = @id",
            &[("@id", json!(format!("cat{k}")))],
            QueryOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(r.items.len(), 25);
}

/// `calls` engine queries with rows of type `T` (for callgrind: `callgrind_annotate
/// --inclusive=yes`, this function's count divided by `calls` is the caller's thread's share of
/// one query; the storage thread's is `blocking::query_page::{{closure}}::{{closure}}`'s).
#[inline(never)]
async fn engine_queries<T: serde::de::DeserializeOwned + Send + 'static>(
    c: &ContainerClient,
    calls: u64,
    categories: u64,
) {
    for i in 0..calls {
        category::<T>(c, i * 37 % categories).await;
    }
}

/// `calls` SQLite queries with rows of type `T`, the other side of [`engine_queries`].
#[inline(never)]
fn sqlite_queries<T: serde::de::DeserializeOwned>(
    conn: &rusqlite::Connection,
    calls: u64,
    categories: u64,
) {
    let mut stmt = conn
        .prepare("SELECT body FROM items WHERE json_extract(body, '$.categoryId') = ?1")
        .unwrap();
    for i in 0..calls {
        let rows = sqlite_rows::<T>(&mut stmt, i * 37 % categories);
        assert_eq!(rows.len(), 25);
    }
}

/// SQLite's rows of category `k` as `T`: each JSON column parsed by serde_json in place (no
/// `String` copy), as the engine's are.
fn sqlite_rows<T: serde::de::DeserializeOwned>(stmt: &mut rusqlite::Statement, k: u64) -> Vec<T> {
    stmt.query_map([format!("cat{k}")], |r| {
        r.get_ref(0)
            .map(|v| serde_json::from_str::<T>(v.as_str().unwrap()).unwrap())
    })
    .unwrap()
    .map(|r| r.unwrap())
    .collect()
}

/// The SQLite side's prepared statement, moved into a runtime task with the loop that uses it.
/// SAFETY: rusqlite opens connections without SQLite's own mutex (multi-thread mode): one
/// connection may be used from any thread, one thread at a time, which the single task that
/// owns it guarantees.
struct SqliteSide(rusqlite::Statement<'static>);
unsafe impl Send for SqliteSide {}

impl SqliteSide {
    fn new(conn: rusqlite::Connection) -> Self {
        let conn: &'static rusqlite::Connection = Box::leak(Box::new(conn));
        SqliteSide(
            conn.prepare("SELECT body FROM items WHERE json_extract(body, '$.categoryId') = ?1")
                .unwrap(),
        )
    }

    /// The 25 items of category `k`, as `T`, as the engine's are.
    fn category<T: serde::de::DeserializeOwned>(&mut self, k: u64) {
        let rows = sqlite_rows::<T>(&mut self.0, k);
        assert_eq!(rows.len(), 25);
    }
}

/// What [`side_by_side`] measured: medians of (engine, SQLite), and the SQLite side back.
struct Sides {
    wall: (Duration, Duration),
    /// CPU time of the calling thread: all of SQLite's call, the engine's share that runs on
    /// the caller's async thread (its storage thread's work is not in it).
    cpu: (Duration, Duration),
    sqlite: SqliteSide,
}

/// CPU time this thread has used.
fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given, which lives on this stack.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// The row type both sides build in [`side_by_side`].
#[derive(Clone, Copy, PartialEq)]
enum Rows {
    /// `serde_json::Value`.
    Values,
    /// The app's struct, [`Product`] (typed rows).
    Typed,
}

/// Medians of 1 050 engine queries and 1 000 SQLite queries, both with rows of type `rows`, 50
/// of each in turn, from a task on `rt` (as an actix or tokio handler runs): both sides see the
/// same machine load, however it changes during the run.
fn side_by_side(
    rt: &tokio::runtime::Runtime,
    c: &ContainerClient,
    sqlite: SqliteSide,
    rows: Rows,
) -> Sides {
    let c = c.clone();
    rt.block_on(rt.spawn(async move {
        let mut sqlite = sqlite;
        let (mut engine_times, mut sqlite_times) = (Vec::new(), Vec::new());
        let (mut engine_cpu, mut sqlite_cpu) = (Vec::new(), Vec::new());
        // In blocks of 50 calls a side: each side runs warm, as in a loop of its own, and
        // both see the machine's load as it changes.
        for i in 0..2050u64 {
            let k = i * 37 % 4000;
            if i / 50 % 2 == 1 {
                let (started, cpu) = (Instant::now(), thread_cpu());
                match rows {
                    Rows::Values => sqlite.category::<Value>(k),
                    Rows::Typed => sqlite.category::<Product>(k),
                }
                sqlite_times.push(started.elapsed());
                sqlite_cpu.push(thread_cpu() - cpu);
                continue;
            }
            let (started, cpu) = (Instant::now(), thread_cpu());
            match rows {
                Rows::Values => category::<Value>(&c, k).await,
                Rows::Typed => category::<Product>(&c, k).await,
            }
            engine_times.push(started.elapsed());
            engine_cpu.push(thread_cpu().saturating_sub(cpu));
        }
        let median = |mut t: Vec<Duration>| {
            t.sort();
            t[t.len() / 2]
        };
        Sides {
            wall: (median(engine_times), median(sqlite_times)),
            cpu: (median(engine_cpu), median(sqlite_cpu)),
            sqlite,
        }
    }))
    .unwrap()
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
    let engine = Engine::open(dir.path().join("engine"), EngineOptions::default()).unwrap();
    // `QUERY_ONLY=N` (for callgrind): N queries of each side over fewer items, nothing else.
    let only: Option<u64> = std::env::var("QUERY_ONLY")
        .ok()
        .and_then(|n| n.parse().ok());
    let n = if only.is_some() { 10_000 } else { 100_000u64 };
    eprintln!("loading {n} products into the engine and SQLite…");
    let c = rt.block_on(async {
        let db = engine.create_database("bench").await.unwrap();
        let c = db
            .create_container(
                ContainerProperties::new("product", "/categoryId").with_initial_partitions(8),
            )
            .await
            .unwrap();
        common::load(&c, 0..n, product).await;
        c
    });
    let conn = rusqlite::Connection::open(dir.path().join("sqlite.db")).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    conn.execute_batch(
        "CREATE TABLE items (pk TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (pk, id));
         CREATE INDEX by_category ON items (json_extract(body, '$.categoryId'));",
    )
    .unwrap();
    {
        let tx = conn.unchecked_transaction().unwrap();
        let mut stmt = tx
            .prepare("INSERT INTO items (pk, id, body) VALUES (?1, ?2, ?3)")
            .unwrap();
        // The same bytes the engine stores and returns: the item with its system properties.
        let mut cont: Option<String> = None;
        loop {
            let page = rt
                .block_on(c.read_all_items::<Value>(5000, cont.as_deref()))
                .unwrap();
            for p in &page.items {
                stmt.execute((
                    p["categoryId"].as_str().unwrap(),
                    p["id"].as_str().unwrap(),
                    p.to_string(),
                ))
                .unwrap();
            }
            match page.continuation {
                Some(next) => cont = Some(next),
                None => break,
            }
        }
        drop(stmt);
        tx.commit().unwrap();
    }

    if let Some(calls) = only {
        // `QUERY_ROWS=values|typed`: one row type only (callgrind merges a generic function's
        // instances under one name).
        let rows = std::env::var("QUERY_ROWS").unwrap_or_default();
        if rows != "typed" {
            rt.block_on(engine_queries::<Value>(&c, calls, n / 25));
            sqlite_queries::<Value>(&conn, calls, n / 25);
        }
        if rows != "values" {
            rt.block_on(engine_queries::<Product>(&c, calls, n / 25));
            sqlite_queries::<Product>(&conn, calls, n / 25);
        }
        println!("{calls} queries of each side");
        return;
    }

    // 1. Single-partition query returning 25 items, as `Value`s and as typed rows, each side by
    // side with SQLite building the same rows, on a single-threaded runtime (an actix worker)
    // and a multi-thread one.
    let charge_of = |typed: bool| {
        let sql = "SELECT * FROM c WHERE c.categoryId = 'cat7'";
        let opts = QueryOptions::default();
        rt.block_on(async {
            if typed {
                c.query_items::<Product>(sql, engine::NO_PARAMS, opts)
                    .await
                    .unwrap()
                    .request_charge
            } else {
                c.query_items::<Value>(sql, engine::NO_PARAMS, opts)
                    .await
                    .unwrap()
                    .request_charge
            }
        })
    };
    let charge = charge_of(false);
    assert_eq!(charge, charge_of(true), "typed rows cost what Values cost");
    let mut sqlite = SqliteSide::new(conn);
    // What each actix worker is: a single-threaded runtime.
    let actix_like = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // One untimed round first: the first rows of a run paid for pages the load had left cold.
    sqlite = side_by_side(&actix_like, &c, sqlite, Rows::Values).sqlite;
    for (rows, on_one_thread, name) in [
        (
            Rows::Values,
            true,
            "rows as Values, single-threaded runtime (an actix worker)",
        ),
        (
            Rows::Typed,
            true,
            "typed rows (Product), single-threaded runtime",
        ),
        (Rows::Values, false, "rows as Values, multi-thread runtime"),
        (
            Rows::Typed,
            false,
            "typed rows (Product), multi-thread runtime",
        ),
    ] {
        let rt = if on_one_thread { &actix_like } else { &rt };
        let sides = side_by_side(rt, &c, sqlite, rows);
        sqlite = sides.sqlite;
        let ((e, q), (ec, qc)) = (sides.wall, sides.cpu);
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        println!(
            "single-partition query, 25 items of {n} ({charge} RU), {name}: engine {:.1} µs, SQLite + JSON index {:.1} µs, engine/SQLite time {:.2}",
            us(e),
            us(q),
            us(e) / us(q)
        );
        if on_one_thread {
            println!(
                "  CPU time on the calling thread (the engine's storage thread not counted): engine {:.1} µs, SQLite {:.1} µs, engine/SQLite {:.2}",
                us(ec),
                us(qc),
                us(ec) / us(qc)
            );
        }
    }

    // 2. ORDER BY ... TOP 100 across 8 partitions, at 100 K and (unless BENCH_LARGE=0) 1 M items.
    let top = |c: &ContainerClient| {
        let mut last = None;
        let t = median(51, || {
            last = Some(
                rt.block_on(c.query_all::<Value>(
                    "SELECT TOP 100 c.id, c.price FROM c ORDER BY c.price DESC",
                    engine::NO_PARAMS,
                    QueryOptions::default(),
                ))
                .unwrap(),
            );
        });
        let r = last.unwrap();
        let m = r.query_metrics.clone().unwrap();
        (t, r.request_charge, m.retrieved_document_count, m.plan)
    };
    let (t1, ru1, read1, plan1) = top(&c);
    println!("ORDER BY price DESC TOP 100, {n} items, 8 partitions: {:.2} ms, {ru1} RU, {read1} items read ({plan1})", t1.as_secs_f64() * 1e3);
    if std::env::var("BENCH_LARGE").as_deref() != Ok("0") {
        eprintln!("loading 900 000 more…");
        rt.block_on(common::load(&c, n..1_000_000, product));
        let (t2, ru2, read2, plan2) = top(&c);
        println!("ORDER BY price DESC TOP 100, 1000000 items, 8 partitions: {:.2} ms, {ru2} RU, {read2} items read ({plan2})", t2.as_secs_f64() * 1e3);
        println!(
            "10x the items: time x{:.2}, RU x{:.2}, items read x{:.2}",
            t2.as_secs_f64() / t1.as_secs_f64(),
            ru2 / ru1,
            read2 as f64 / read1 as f64
        );
    }
}
