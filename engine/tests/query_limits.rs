//! Query limits that scale (issue 18 §3): long operator chains, long `IN` lists, `DISTINCT`
//! paged in one pass, aggregates whose memory does not grow with the container.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering::Relaxed};

use engine::{ContainerClient, ContainerProperties, EngineOptions, ItemOptions, QueryOptions};
use serde_json::{json, Value};

/// Counts live heap bytes and their peak, so a test can show what a query holds at once.
struct Counting;
static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size() as isize, Relaxed) + l.size() as isize;
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size() as isize, Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            let now = LIVE.fetch_add(new as isize - l.size() as isize, Relaxed) + new as isize
                - l.size() as isize;
            PEAK.fetch_max(now, Relaxed);
        }
        q
    }
}

#[global_allocator]
static A: Counting = Counting;

/// The heap counter is process-wide: the tests of this file take turns.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// `n` items of about `pad` bytes over 50 logical partitions, 4 physical partitions.
async fn filled(t: &common::TestEngine, n: usize, pad: usize) -> ContainerClient {
    let c = common::container(
        t,
        ContainerProperties::new("c", "/pk").with_initial_partitions(4),
    )
    .await;
    let opts = ItemOptions {
        enable_content_response_on_write: false,
        ..Default::default()
    };
    let mut set = tokio::task::JoinSet::new();
    for i in 0..n {
        if set.len() >= 64 {
            set.join_next().await.unwrap().unwrap();
        }
        let (c, opts) = (c.clone(), opts.clone());
        set.spawn(async move {
            let doc = json!({
                "id": format!("i{i}"), "pk": format!("p{}", i % 50), "n": i,
                "category": format!("cat{}", i % 37), "pad": "x".repeat(pad),
            });
            c.create_item(&doc, None, Some(opts)).await.unwrap();
        });
    }
    while let Some(r) = set.join_next().await {
        r.unwrap();
    }
    c
}

async fn pages(c: &ContainerClient, sql: &str, page: usize) -> (Vec<Value>, u64, usize) {
    let (mut rows, mut retrieved, mut n) = (Vec::new(), 0, 0);
    let mut continuation = None;
    loop {
        let r = c
            .query_items::<Value>(
                sql,
                engine::NO_PARAMS,
                QueryOptions {
                    max_item_count: Some(page),
                    continuation: continuation.take(),
                    // Debug builds on a loaded machine: time is not what these tests measure.
                    max_duration_per_page: Some(std::time::Duration::from_secs(60)),
                    ..Default::default()
                },
            )
            .await
            .unwrap_or_else(|e| panic!("{}…: {e}", &sql[..sql.len().min(80)]));
        n += 1;
        rows.extend(r.items);
        retrieved += r.query_metrics.unwrap().retrieved_document_count;
        match r.continuation {
            Some(c) => continuation = Some(c),
            None => return (rows, retrieved, n),
        }
    }
}

#[test]
fn distinct_pages_read_each_item_once() {
    let _turn = serial();
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = filled(&t, 3_000, 10).await;
        let sql = "SELECT DISTINCT VALUE c.category FROM c";
        let (all, read_whole, _) = pages(&c, sql, 1_000).await;
        let (paged, read_paged, n) = pages(&c, sql, 5).await;
        assert_eq!(all.len(), 37, "{all:?}");
        assert!(n >= 8, "{n} pages");
        let mut a: Vec<String> = all.iter().map(Value::to_string).collect();
        let mut b: Vec<String> = paged.iter().map(Value::to_string).collect();
        a.sort();
        b.sort();
        assert_eq!(a, b, "paged DISTINCT returns each value once");
        // One pass: paging reads the container once, as the unpaged query does.
        assert_eq!(read_whole, 3_000);
        assert_eq!(read_paged, 3_000);
        // With OFFSET/LIMIT after the de-duplication.
        let (some, _, _) = pages(
            &c,
            "SELECT DISTINCT VALUE c.category FROM c OFFSET 30 LIMIT 10",
            3,
        )
        .await;
        assert_eq!(some.len(), 7);
    });
}

#[test]
fn aggregates_do_not_hold_the_items() {
    let _turn = serial();
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        // 6 000 items of 4 KB: 24 MB of JSON.
        let c = filled(&t, 6_000, 4_000).await;
        // A count of items is counted from storage (`count.rs`): nothing loaded at all.
        for (sql, want, loads) in [
            ("SELECT VALUE COUNT(1) FROM c", json!(6_000), false),
            (
                "SELECT VALUE SUM(c.n) FROM c",
                json!(5_999 * 6_000 / 2),
                true,
            ),
            (
                "SELECT VALUE MAX(c.n) FROM c WHERE c.category = 'cat3'",
                json!(5_997),
                true,
            ),
        ] {
            let before = LIVE.load(Relaxed);
            PEAK.store(before, Relaxed);
            let (rows, read, _) = pages(&c, sql, 100).await;
            let held = PEAK.load(Relaxed) - before;
            assert_eq!(rows, vec![want], "{sql}");
            assert_eq!(read > 0, loads, "{sql}: {read} items read");
            assert!(
                held < 8 << 20,
                "{sql} held {:.1} MB at once over 24 MB of items",
                held as f64 / (1 << 20) as f64
            );
        }
        // GROUP BY keeps one row per group, not the items.
        let (groups, _, _) = pages(
            &c,
            "SELECT c.category, COUNT(1) AS n FROM c GROUP BY c.category",
            100,
        )
        .await;
        assert_eq!(groups.len(), 37);
        let total: u64 = groups.iter().map(|g| g["n"].as_u64().unwrap()).sum();
        assert_eq!(total, 6_000);
    });
}

#[test]
fn long_in_lists_and_chains_run() {
    let _turn = serial();
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = filled(&t, 500, 10).await;
        // 50 000 strings, 100 of which are ids.
        let list: Vec<String> = (0..50_000)
            .map(|i| {
                if i % 500 == 0 {
                    format!("'i{}'", i / 500)
                } else {
                    format!("'nope{i}'")
                }
            })
            .collect();
        let sql = format!("SELECT VALUE c.n FROM c WHERE c.id IN ({})", list.join(","));
        let (rows, _, _) = pages(&c, &sql, 1_000).await;
        assert_eq!(rows.len(), 100);
        let sql = format!(
            "SELECT VALUE COUNT(1) FROM c WHERE LOWER(c.id) NOT IN ({})",
            list.join(",")
        );
        assert_eq!(pages(&c, &sql, 1_000).await.0, vec![json!(400)]);
        // Numbers compare as doubles in the set, as `=` does.
        let nums: Vec<String> = (0..10_000).map(|i| format!("{i}.0")).collect();
        let sql = format!(
            "SELECT VALUE COUNT(1) FROM c WHERE c.n IN ({})",
            nums.join(",")
        );
        assert_eq!(pages(&c, &sql, 1_000).await.0, vec![json!(500)]);
        // A 10 000-term OR chain through the planner and storage.
        let ors: Vec<String> = (0..10_000).map(|i| format!("c.n = {}", i * 7)).collect();
        let sql = format!("SELECT VALUE COUNT(1) FROM c WHERE {}", ors.join(" OR "));
        assert_eq!(pages(&c, &sql, 1_000).await.0, vec![json!(72)]);
        // AND chains still feed the planner's conjuncts (the partition key routes).
        let sql = "SELECT VALUE COUNT(1) FROM c WHERE c.pk = 'p1' AND c.n >= 0 AND c.n < 1000";
        let r = c
            .query_items::<Value>(sql, engine::NO_PARAMS, QueryOptions::default())
            .await
            .unwrap();
        assert_eq!(r.items, vec![json!(10)]);
        assert!(
            r.query_metrics.unwrap().routed,
            "routed by the chain's pk conjunct"
        );
    });
}
