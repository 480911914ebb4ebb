//! Query limits that scale (issue 18 §3), in one run over one container of 100 K products in
//! 8 physical partitions (1 M with BENCH_LARGE=1):
//! - `LOWER(c.sku) IN (...)` of 1 K, 10 K and 50 K strings: time grows with list + items, not
//!   list × items (the list is a hash set);
//! - `SELECT VALUE COUNT(1)` and `SUM`: the peak heap stays flat whatever the container size;
//! - `SELECT DISTINCT VALUE c.categoryId` paged 100 at a time vs in one page: items read equal.
//!
//! `cargo bench -p engine --bench query_limits`

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering::Relaxed};
use std::time::Instant;

use engine::{ContainerClient, ContainerProperties, Engine, EngineOptions, QueryOptions};
use serde_json::{json, Value};

struct Counting;
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            PEAK.fetch_max(
                LIVE.fetch_add(l.size() as isize, Relaxed) + l.size() as isize,
                Relaxed,
            );
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size() as isize, Relaxed);
    }
}

#[global_allocator]
static A: Counting = Counting;

fn product(i: u64) -> Value {
    json!({
        "id": format!("p{i}"), "categoryId": format!("cat{}", i % 400), "sku": format!("SKU-{i:08}"),
        "name": format!("Product {i}"), "price": (i * 7919 % 100_000) as f64 / 100.0,
        "description": "A product of the bench, described at some length so that items weigh what catalogue items weigh. ".repeat(8),
    })
}

/// All pages of `sql`: rows, RU, items read, pages.
async fn all_pages(c: &ContainerClient, sql: &str, page: usize) -> (Vec<Value>, f64, u64, usize) {
    let (mut rows, mut ru, mut read, mut n, mut cont) = (Vec::new(), 0.0, 0, 0, None);
    loop {
        let r = c
            .query_items::<Value>(
                sql,
                engine::NO_PARAMS,
                QueryOptions {
                    max_item_count: Some(page),
                    continuation: cont.take(),
                    max_request_units_per_page: Some(f64::MAX),
                    max_duration_per_page: Some(std::time::Duration::from_secs(600)),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        rows.extend(r.items);
        ru += r.request_charge;
        read += r.query_metrics.unwrap().retrieved_document_count;
        n += 1;
        match r.continuation {
            Some(c) => cont = Some(c),
            None => return (rows, ru, read, n),
        }
    }
}

mod common;

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
    let c = rt.block_on(async {
        let db = engine.create_database("bench").await.unwrap();
        db.create_container(
            ContainerProperties::new("product", "/categoryId").with_initial_partitions(8),
        )
        .await
        .unwrap()
    });
    let sizes: &[u64] = if std::env::var("BENCH_LARGE").as_deref() == Ok("1") {
        &[100_000, 1_000_000]
    } else {
        &[100_000]
    };
    let mut loaded = 0;
    for &n in sizes {
        eprintln!("loading to {n} products…");
        rt.block_on(common::load(&c, loaded..n, product));
        loaded = n;
        for list in [1_000usize, 10_000, 50_000] {
            // One in 100 of the strings names a product.
            let items: Vec<String> = (0..list)
                .map(|i| {
                    if i % 100 == 0 {
                        format!("'sku-{:08}'", i)
                    } else {
                        format!("'none-{i}'")
                    }
                })
                .collect();
            let sql = format!(
                "SELECT VALUE COUNT(1) FROM c WHERE LOWER(c.sku) IN ({})",
                items.join(",")
            );
            let started = Instant::now();
            let (rows, ru, _, _) = rt.block_on(all_pages(&c, &sql, 100));
            println!(
                "{n} items, LOWER(c.sku) IN ({list} strings): {:.0} ms, {ru:.0} RU, count {}",
                started.elapsed().as_secs_f64() * 1e3,
                rows[0]
            );
        }
        for sql in [
            "SELECT VALUE COUNT(1) FROM c",
            "SELECT VALUE SUM(c.price) FROM c",
        ] {
            let before = LIVE.load(Relaxed);
            PEAK.store(before, Relaxed);
            let started = Instant::now();
            let (_, ru, read, _) = rt.block_on(all_pages(&c, sql, 100));
            println!(
                "{n} items, {sql}: peak heap +{:.1} MB, {:.0} ms, {ru:.0} RU, {read} items read",
                (PEAK.load(Relaxed) - before) as f64 / (1 << 20) as f64,
                started.elapsed().as_secs_f64() * 1e3
            );
        }
        let sql = "SELECT DISTINCT VALUE c.categoryId FROM c";
        let (a, ru_one, read_one, _) = rt.block_on(all_pages(&c, sql, 1_000));
        let (b, ru_paged, read_paged, pages) = rt.block_on(all_pages(&c, sql, 100));
        assert_eq!(a.len(), b.len());
        println!(
            "{n} items, DISTINCT of {} values: one page {ru_one:.0} RU / {read_one} items read; {pages} pages of 100: {ru_paged:.0} RU / {read_paged} items read",
            a.len()
        );
    }
}
