//! Issue 36 in figures, over 60 000 items in 500 logical partitions (4 physical):
//! - a 50 000-value `IN` and a 16 000-term `OR` of equalities on an indexed path (goal < 100 ms):
//!   index unions, one page each, median of 5;
//! - `SELECT DISTINCT VALUE c.pk` in one page and paged by 2 (goal: paged within 10% of the
//!   unpaged RU), and `DISTINCT … ORDER BY`, whose pages used to read the container again;
//! - `COUNT(1)` over an unindexed `RegexMatch`: pages at the default budget instead of a 408.
//!
//! `cargo bench -p engine --bench query_paging` (`BENCH_ONLY=unions`: the first two alone).

use std::time::{Duration, Instant};

use engine::{ContainerClient, ContainerProperties, QueryOptions};
use serde_json::{json, Value};

mod common;

const ITEMS: u64 = 60_000;

fn item(i: u64) -> Value {
    json!({
        "id": format!("i{i}"), "pk": format!("p{}", i % 500), "n": i,
        "sku": format!("SKU-{i:08}"), "name": format!("Item {i}"),
        "nested": {"a": i % 997},
        "description": "An item of the bench, with a description long enough to weigh something. ".repeat(3),
    })
}

/// What the pages of one query returned and cost.
struct Pages {
    rows: usize,
    pages: usize,
    ru: f64,
    /// The query base each page paid per physical partition it visited (`ru::rate::QUERY`).
    bases: f64,
    read: u64,
    millis: f64,
}

/// The query base of one physical partition's share of a page (`ru::rate::QUERY`).
const BASE: f64 = 5.0;

/// Pages of `sql` of `page` rows, at the engine's default page budget (`unbounded`: none), at
/// most `max_pages` of them.
async fn pages(
    c: &ContainerClient,
    sql: &str,
    page: usize,
    unbounded: bool,
    max_pages: usize,
) -> Pages {
    let started = Instant::now();
    let mut out = Pages {
        rows: 0,
        pages: 0,
        ru: 0.0,
        bases: 0.0,
        read: 0,
        millis: 0.0,
    };
    let mut continuation = None;
    while out.pages < max_pages {
        let mut options = QueryOptions {
            max_item_count: Some(page),
            continuation: continuation.take(),
            ..Default::default()
        };
        if unbounded {
            options.max_request_units_per_page = Some(f64::MAX);
            options.max_duration_per_page = Some(Duration::from_secs(600));
        }
        let r = c
            .query_items::<Value>(sql, engine::NO_PARAMS, options)
            .await
            .unwrap();
        out.rows += r.items.len();
        out.pages += 1;
        out.ru += r.request_charge;
        let m = r.query_metrics.unwrap();
        out.read += m.retrieved_document_count;
        out.bases += m.partitions_visited.max(1) as f64 * BASE;
        continuation = r.continuation;
        if continuation.is_none() {
            break;
        }
    }
    out.millis = started.elapsed().as_secs_f64() * 1e3;
    out
}

/// One page of `sql`, five times: (median ms, rows, RU, plan).
async fn timed(c: &ContainerClient, sql: &str) -> (f64, usize, f64, String) {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..5 {
        let started = Instant::now();
        let r = c
            .query_items::<Value>(
                sql,
                engine::NO_PARAMS,
                QueryOptions {
                    max_item_count: Some(1000),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        times.push(started.elapsed().as_secs_f64() * 1e3);
        assert!(r.continuation.is_none(), "one page");
        last = Some(r);
    }
    times.sort_by(f64::total_cmp);
    let r = last.unwrap();
    let parse = Instant::now();
    engine::check_query(sql).unwrap();
    let m = r.query_metrics.unwrap();
    eprintln!(
        "  parse {:.1} ms, page on the engine {:.1} ms",
        parse.elapsed().as_secs_f64() * 1e3,
        m.execution_time_ms
    );
    (times[2], r.items.len(), r.request_charge, m.plan)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let rt = common::runtime();
    let dir = tempfile::tempdir().unwrap();
    rt.block_on(async {
        let props = ContainerProperties::new("c", "/pk").with_initial_partitions(4);
        let (_engine, c) = common::loaded(dir.path(), props, ITEMS, item).await;

        println!("| query over {ITEMS} items | time (median of 5) | rows | RU | plan |");
        println!("| --- | ---: | ---: | ---: | --- |");
        // 50 000 strings, one in 1 000 present.
        let values: Vec<String> = (0..50_000u64)
            .map(|i| {
                if i % 1000 == 0 {
                    format!("'SKU-{:08}'", i)
                } else {
                    format!("'SKU-X{i}'")
                }
            })
            .collect();
        let sql = format!(
            "SELECT VALUE c.n FROM c WHERE c.sku IN ({})",
            values.join(", ")
        );
        let (ms, rows, ru, plan) = timed(&c, &sql).await;
        println!("| `c.sku IN (50 000 strings)` | {ms:.1} ms | {rows} | {ru:.2} | {plan} |");
        // 16 000 terms, one in 1 000 present.
        let terms: Vec<String> = (0..16_000u64)
            .map(|i| {
                let n = if i % 1000 == 0 { i } else { 1_000_000 + i };
                format!("c.n = {n}")
            })
            .collect();
        let sql = format!("SELECT VALUE c.n FROM c WHERE {}", terms.join(" OR "));
        let (ms, rows, ru, plan) = timed(&c, &sql).await;
        println!("| `c.n = … OR` × 16 000 | {ms:.1} ms | {rows} | {ru:.2} | {plan} |");

        // `BENCH_ONLY=unions`: the two index unions alone (for a profile).
        if std::env::var("BENCH_ONLY").as_deref() == Ok("unions") {
            return;
        }
        println!();
        println!("| query | pages | rows | items read | RU | time |");
        println!("| --- | ---: | ---: | ---: | ---: | ---: |");
        let row = |what: &str, p: &Pages| {
            println!(
                "| {what} | {} | {} | {} | {:.0} | {:.0} ms |",
                p.pages, p.rows, p.read, p.ru, p.millis
            )
        };
        let sql = "SELECT DISTINCT VALUE c.pk FROM c";
        let one = pages(&c, sql, 100_000, true, usize::MAX).await;
        row("`DISTINCT VALUE c.pk`, one page", &one);
        let by2 = pages(&c, sql, 2, false, usize::MAX).await;
        row("the same, paged by 2 (default budget)", &by2);
        println!(
            "\npaged / unpaged RU: {:.3}; without the page bases (each page is an execution of \
             its own, RU.md): {:.3} ({:.0} / {:.0} RU)\n",
            by2.ru / one.ru,
            (by2.ru - by2.bases) / (one.ru - one.bases),
            by2.ru - by2.bases,
            one.ru - one.bases
        );
        let sql = "SELECT DISTINCT VALUE c.nested.a FROM c ORDER BY c.nested.a";
        let one = pages(&c, sql, 100_000, true, usize::MAX).await;
        row(
            "`DISTINCT VALUE c.nested.a … ORDER BY c.nested.a`, one page",
            &one,
        );
        let four = pages(&c, sql, 2, false, 4).await;
        row("the same, first 4 pages by 2", &four);
        let all = pages(&c, sql, 2, false, usize::MAX).await;
        row("the same, every page by 2", &all);
        let sql = "SELECT VALUE COUNT(1) FROM c WHERE RegexMatch(c.name, '^Item [0-9]*7$')";
        let count = pages(&c, sql, 100, false, usize::MAX).await;
        row("`COUNT(1)` over `RegexMatch` (default budget)", &count);
    });
}
