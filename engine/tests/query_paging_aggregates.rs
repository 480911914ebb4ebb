//! Queries computed whole page like any other (issue 36): an aggregate, GROUP BY, DISTINCT with
//! ORDER BY or an ORDER BY without its index gathers page by page within the page's budget,
//! answering empty pages with a continuation until the last (as Cosmos DB does), carrying its
//! partial state in the continuation or on the engine's side, and never reading an item twice.

mod common;

use std::time::Duration;

use engine::{
    ContainerClient, ContainerProperties, EngineOptions, QueryOptions, TransactionalBatch,
};
use serde_json::{json, Value};

/// Creates `n` items, 100 per logical partition, in batches (one transaction each).
async fn load(c: &ContainerClient, n: u64, make: fn(u64) -> Value) {
    let mut set = tokio::task::JoinSet::new();
    for lp in 0..n.div_ceil(100) {
        if set.len() >= 8 {
            set.join_next().await.unwrap().unwrap();
        }
        let c = c.clone();
        set.spawn(async move {
            let mut batch = TransactionalBatch::new(format!("p{lp}"));
            for i in lp * 100..((lp + 1) * 100).min(n) {
                batch = batch.create_item(&make(i));
            }
            assert!(c.execute_batch(batch).await.unwrap().is_success());
        });
    }
    while let Some(r) = set.join_next().await {
        r.unwrap();
    }
}

fn item(i: u64) -> Value {
    json!({
        "id": format!("i{i}"), "pk": format!("p{}", i / 100), "name": format!("item-{i}"),
        "n": i, "g": format!("g{}", i % 7), "d": i % 1000,
    })
}

/// Every page of `sql` one by one: (rows of each page, continuation lengths, items read).
async fn pages(
    c: &ContainerClient,
    sql: &str,
    options: QueryOptions,
) -> (Vec<Vec<Value>>, Vec<usize>, u64) {
    let mut options = options;
    let (mut rows, mut tokens, mut read) = (Vec::new(), Vec::new(), 0);
    loop {
        let page = c
            .query_items::<Value>(sql, engine::NO_PARAMS, options.clone())
            .await
            .unwrap();
        read += page
            .query_metrics
            .as_ref()
            .unwrap()
            .retrieved_document_count;
        rows.push(page.items);
        match page.continuation {
            Some(t) => {
                tokens.push(t.len());
                options.continuation = Some(t);
            }
            None => return (rows, tokens, read),
        }
    }
}

#[test]
fn a_count_over_an_unindexed_regex_of_200_000_items_pages_to_the_exact_count() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(
            &t,
            ContainerProperties::new("c", "/pk").with_initial_partitions(4),
        )
        .await;
        load(&c, 200_000, item).await;
        let sql = "SELECT VALUE COUNT(1) FROM c WHERE RegexMatch(c.name, '^item-[0-9]*7$')";
        let budget = Duration::from_millis(100);
        let options = QueryOptions {
            max_duration_per_page: Some(budget),
            ..Default::default()
        };
        let started = std::time::Instant::now();
        let (rows, tokens, read) = pages(&c, sql, options.clone()).await;
        println!("{} pages in {:?}", rows.len(), started.elapsed());
        assert!(rows.len() >= 3, "{} pages", rows.len());
        // Intermediate pages are empty; the last holds the exact count.
        let (last, before) = rows.split_last().unwrap();
        assert!(before.iter().all(|r| r.is_empty()), "{before:?}");
        assert_eq!(last, &vec![json!(20_000)]);
        assert_eq!(read, 200_000, "every item read once over all pages");
        // The partial count travels in a short continuation.
        assert!(tokens.iter().all(|n| *n < 1024), "{tokens:?}");
        // The engine's own iterator pages through the empty pages.
        let all = c
            .query_all::<Value>(sql, engine::NO_PARAMS, options)
            .await
            .unwrap();
        assert_eq!(all.items, vec![json!(20_000)]);
    });
}

#[test]
fn group_by_distinct_and_unindexed_order_by_page_without_reading_an_item_twice() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(
            &t,
            ContainerProperties::new("c", "/pk").with_initial_partitions(3),
        )
        .await;
        load(&c, 6_000, item).await;
        let unpaged = QueryOptions {
            max_item_count: Some(100_000),
            max_duration_per_page: Some(Duration::from_secs(60)),
            max_request_units_per_page: Some(1e9),
            ..Default::default()
        };
        let paged = |n| QueryOptions {
            max_item_count: Some(n),
            max_duration_per_page: Some(Duration::from_millis(2)),
            ..Default::default()
        };
        for (sql, page_rows) in [
            (
                "SELECT c.g, COUNT(1) AS n, SUM(c.n) AS s, AVG(c.n) AS a, MIN(c.name) AS lo, MAX(c.name) AS hi FROM c GROUP BY c.g",
                2,
            ),
            ("SELECT VALUE {n: COUNT(1), s: SUM(c.n), hi: MAX(c.name)} FROM c WHERE c.n % 3 = 1", 1),
            ("SELECT DISTINCT VALUE c.d FROM c ORDER BY c.d DESC", 7),
            ("SELECT c.id, c.g FROM c WHERE c.n % 2 = 0 ORDER BY c.g, c.n DESC", 50),
        ] {
            let one = c
                .query_items::<Value>(sql, engine::NO_PARAMS, unpaged.clone())
                .await
                .unwrap();
            assert!(one.continuation.is_none(), "{sql}: one page");
            let (rows, tokens, read) = pages(&c, sql, paged(page_rows)).await;
            assert!(rows.len() > 2, "{sql}: {} pages", rows.len());
            let got: Vec<Value> = rows.concat();
            let mut want = one.items.clone();
            let mut got_sorted = got.clone();
            if sql.contains("GROUP BY") {
                // Groups come in no particular order.
                want.sort_by_key(|v| v.to_string());
                got_sorted.sort_by_key(|v| v.to_string());
            }
            assert_eq!(got_sorted, want, "{sql}");
            assert_eq!(read, 6_000, "{sql}: each item read once");
            // Large states stay on the engine's side: the continuation stays short.
            assert!(tokens.iter().all(|n| *n < 4096), "{sql}: {tokens:?}");
        }
    });
}

#[test]
fn a_streamed_distinct_over_many_values_keeps_a_short_continuation() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        load(&c, 3_000, item).await;
        let sql = "SELECT DISTINCT VALUE c.d FROM c";
        let options = QueryOptions {
            max_item_count: Some(10),
            ..Default::default()
        };
        let (rows, tokens, read) = pages(&c, sql, options).await;
        let mut got: Vec<u64> = rows.concat().iter().map(|v| v.as_u64().unwrap()).collect();
        assert_eq!(got.len(), 1000, "each value once");
        got.sort();
        assert_eq!(got, (0..1000).collect::<Vec<_>>());
        assert_eq!(read, 3_000, "one pass");
        // 1 000 hashes are 8 000 bytes: they are kept on the engine's side past a few hundred.
        assert!(tokens.iter().all(|n| *n < 4096), "{tokens:?}");
    });
}
