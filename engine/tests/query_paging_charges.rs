//! What a paged query costs against the same query in one page (issue 36, `RU.md`, "Continuation
//! pages"): each page is an execution of its own and pays the query base for every physical
//! partition it visits, as Cosmos DB charges every page; beyond those bases, a paged `DISTINCT`
//! costs what the unpaged one does, since no page reads an item an earlier page read.

mod common;

use engine::{ContainerClient, ContainerProperties, EngineOptions, QueryOptions};
use serde_json::{json, Value};

/// The query base of one physical partition's share of a page (`ru::rate::QUERY`).
const BASE: f64 = 5.0;

/// (rows, pages, RU, RU of the page bases, items read) of every page of `sql` by `page`.
async fn run(c: &ContainerClient, sql: &str, page: usize) -> (usize, usize, f64, f64, u64) {
    let (mut rows, mut pages, mut ru, mut bases, mut read) = (0, 0, 0.0, 0.0, 0);
    let mut continuation = None;
    loop {
        let r = c
            .query_items::<Value>(
                sql,
                engine::NO_PARAMS,
                QueryOptions {
                    max_item_count: Some(page),
                    continuation,
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        let m = r.query_metrics.unwrap();
        rows += r.items.len();
        pages += 1;
        ru += r.request_charge;
        bases += m.partitions_visited.max(1) as f64 * BASE;
        read += m.retrieved_document_count;
        // Every page pays at least its bases.
        assert!(
            r.request_charge >= m.partitions_visited.max(1) as f64 * BASE,
            "{}",
            r.request_charge
        );
        continuation = r.continuation;
        if continuation.is_none() {
            return (rows, pages, ru, bases, read);
        }
    }
}

#[test]
fn a_paged_distinct_costs_its_page_bases_and_nothing_read_twice() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(
            &t,
            ContainerProperties::new("c", "/pk").with_initial_partitions(3),
        )
        .await;
        for i in 0..1_500u64 {
            let item = json!({"id": format!("i{i}"), "pk": format!("p{}", i % 60), "n": i});
            c.create_item(&item, None, None).await.unwrap();
        }
        let sql = "SELECT DISTINCT VALUE c.pk FROM c";
        let (rows, pages, ru, bases, read) = run(&c, sql, 100_000).await;
        assert_eq!((rows, pages, read), (60, 1, 1_500));
        let (rows_by2, pages_by2, ru_by2, bases_by2, read_by2) = run(&c, sql, 2).await;
        assert_eq!((rows_by2, read_by2), (60, 1_500));
        assert!(pages_by2 >= 30, "{pages_by2}");
        // Each page's charge is rounded to 0.01 RU.
        let rounding = 0.01 * pages_by2 as f64;
        let (beyond, beyond_by2) = (ru - bases, ru_by2 - bases_by2);
        assert!(
            (beyond_by2 - beyond).abs() <= beyond * 0.01 + rounding,
            "beyond the bases: paged {beyond_by2:.2} RU, unpaged {beyond:.2} RU"
        );
    });
}
