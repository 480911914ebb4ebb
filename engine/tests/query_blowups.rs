//! Queries that multiply rows (issue 33): a JOIN over arrays has a time and a memory bound
//! wherever it runs, through a page or inside a script, and its refusal says which.
//! One test per binary run here: it reads the process's peak memory.

mod common;

use std::time::{Duration, Instant};

use engine::{ContainerProperties, EngineOptions, JavaScript};
use serde_json::{json, Value};

/// The process's peak resident memory, in MB (`VmHWM`).
fn peak_rss_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<u64>()
        .unwrap()
        / 1024
}

#[test]
fn a_join_that_multiplies_one_item_into_a_million_rows_is_bounded() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        let arr: Vec<Value> = (0..100).map(|i| json!({"n": i, "pad": "x".repeat(50)})).collect();
        c.create_item(&json!({"id": "1", "pk": "p", "arr": arr}), None, None)
            .await
            .unwrap();
        let before = peak_rss_mb();
        let started = Instant::now();
        // An aggregate folds the rows as they are made: it answers, or stops at the hard limit.
        let count = c
            .query_all::<Value>(
                "SELECT VALUE COUNT(1) FROM c JOIN a IN c.arr JOIN b IN c.arr JOIN x IN c.arr",
                engine::NO_PARAMS,
                Default::default(),
            )
            .await;
        eprintln!("count: {:?} in {:?}", count.as_ref().map(|r| r.items.clone()).map_err(|e| e.to_string()), started.elapsed());
        match &count {
            Ok(r) => assert_eq!(r.items, vec![json!(1_000_000)]),
            Err(e) => assert_eq!(e.status_code(), 408, "{e}"),
        }
        assert!(started.elapsed() < Duration::from_secs(8), "{:?}", started.elapsed());
        // Rows kept for output: refused at the memory ceiling, naming it.
        let started = Instant::now();
        let e = c
            .query_all::<Value>(
                "SELECT a.n AS a, b.n AS b, x.pad AS x FROM c JOIN a IN c.arr JOIN b IN c.arr JOIN x IN c.arr",
                engine::NO_PARAMS,
                Default::default(),
            )
            .await
            .unwrap_err();
        eprintln!("refused: {e} after {:?}", started.elapsed());
        assert!(matches!(e.status_code(), 400 | 408), "{e}");
        assert!(e.to_string().contains("JOIN"), "{e}");
        assert!(started.elapsed() < Duration::from_secs(8), "{:?}", started.elapsed());
        // A filter on the joined values keeps what it keeps, however large the product.
        let r = c
            .query_all::<Value>(
                "SELECT VALUE [a.n, b.n] FROM c JOIN a IN c.arr JOIN b IN c.arr WHERE a.n = 3 AND b.n < 2",
                engine::NO_PARAMS,
                Default::default(),
            )
            .await
            .unwrap();
        assert_eq!(r.items, vec![json!([3, 0]), json!([3, 1])]);
        // Inside a procedure: the script's deadline stops the evaluator (408, rolled back).
        c.scripts()
            .upsert_stored_procedure(
                "joins",
                JavaScript::new(
                    "function joins() { var c = getContext().getCollection(); \
                     c.queryDocuments(c.getSelfLink(), 'SELECT a.n AS a, b.n AS b, x.n AS x, y.n AS y FROM c JOIN a IN c.arr JOIN b IN c.arr JOIN x IN c.arr JOIN y IN c.arr', \
                     function (err, rows) { if (err) throw err; getContext().getResponse().setBody(rows.length); }); }",
                )
                .unwrap(),
            )
            .unwrap();
        let started = Instant::now();
        let e = c
            .scripts()
            .execute_stored_procedure::<Value>("joins", "p", &[])
            .await
            .unwrap_err();
        eprintln!("refused: {e} after {:?}", started.elapsed());
        assert!(matches!(e.status_code(), 400 | 408), "{e}");
        assert!(started.elapsed() < Duration::from_secs(7), "{:?}", started.elapsed());
        let grew = peak_rss_mb().saturating_sub(before);
        eprintln!("peak memory grew {grew} MB");
        assert!(grew < 512, "peak memory grew {grew} MB");
    });
}
