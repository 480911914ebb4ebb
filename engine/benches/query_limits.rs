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

use engine::{ContainerProperties, Engine, EngineOptions};
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
            let r = rt.block_on(common::all_pages(&c, &sql, None, 100));
            let (rows, ru) = (r.rows, r.request_charge);
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
            let r = rt.block_on(common::all_pages(&c, sql, None, 100));
            let (ru, read) = (r.request_charge, r.items_read);
            println!(
                "{n} items, {sql}: peak heap +{:.1} MB, {:.0} ms, {ru:.0} RU, {read} items read",
                (PEAK.load(Relaxed) - before) as f64 / (1 << 20) as f64,
                started.elapsed().as_secs_f64() * 1e3
            );
        }
        let sql = "SELECT DISTINCT VALUE c.categoryId FROM c";
        let one = rt.block_on(common::all_pages(&c, sql, None, 1_000));
        let paged = rt.block_on(common::all_pages(&c, sql, None, 100));
        let (a, ru_one, read_one) = (one.rows, one.request_charge, one.items_read);
        let (b, ru_paged, read_paged, pages) = (
            paged.rows,
            paged.request_charge,
            paged.items_read,
            paged.pages,
        );
        assert_eq!(a.len(), b.len());
        println!(
            "{n} items, DISTINCT of {} values: one page {ru_one:.0} RU / {read_one} items read; {pages} pages of 100: {ru_paged:.0} RU / {read_paged} items read",
            a.len()
        );
    }
}
