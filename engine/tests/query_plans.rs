//! How queries run: routing, index use, ORDER BY merges that stop early, paging, budgets.

mod common;

use std::collections::HashSet;

use engine::{ContainerClient, ContainerProperties, EngineOptions, QueryOptions, NO_PARAMS};
use serde_json::{json, Value};

async fn products(t: &common::TestEngine, n: usize) -> ContainerClient {
    let c = common::container(
        t,
        ContainerProperties::new("product", "/categoryId").with_initial_partitions(8),
    )
    .await;
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..n {
        let c = c.clone();
        tasks.spawn(async move {
            let doc = json!({"id": format!("p{i}"), "categoryId": format!("cat{}", i % 40), "price": (i * 7919) % 1000, "name": format!("Product {i}"), "tags": [format!("t{}", i % 3)]});
            c.create_item(&doc, None, None).await.unwrap();
        });
    }
    while let Some(r) = tasks.join_next().await {
        r.unwrap();
    }
    c
}

#[test]
fn routing_index_use_and_metrics() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = products(&t, 2000).await;
        // The partition key in the filter: one physical partition, one logical partition read.
        let r = c.query_all::<Value>("SELECT * FROM c WHERE c.categoryId = 'cat7'", NO_PARAMS, QueryOptions::default()).await.unwrap();
        assert_eq!(r.items.len(), 50);
        let m = r.query_metrics.unwrap();
        assert_eq!(m.partitions_visited, 1, "{m:?}");
        assert_eq!(m.retrieved_document_count, 50);
        assert!(m.plan.contains("exact"), "routing answers the filter exactly: {}", m.plan);
        // An indexed filter elsewhere fans out but loads only the matches.
        let r = c.query_all::<Value>("SELECT * FROM c WHERE c.price = 7", NO_PARAMS, QueryOptions::default()).await.unwrap();
        let m = r.query_metrics.unwrap();
        assert_eq!(m.partitions_visited, 8);
        assert_eq!(m.retrieved_document_count, r.items.len() as u64, "{m:?}");
        assert!(m.plan.contains("index /price ="), "{}", m.plan);
        let indexed_ru = r.request_charge;
        // The same filter on an unindexed expression scans everything and costs more.
        let r = c.query_all::<Value>("SELECT * FROM c WHERE c.price + 0 = 7", NO_PARAMS, QueryOptions::default()).await.unwrap();
        assert_eq!(r.query_metrics.as_ref().unwrap().retrieved_document_count, 2000);
        assert!(!r.query_metrics.as_ref().unwrap().plan.contains("exact"));
        // Both pay a query base in each of the 8 partitions; the scan pays for 2000 items on top.
        assert!(r.request_charge > indexed_ru * 4.0, "{} vs {indexed_ru}", r.request_charge);
        // A partition key given by the caller confines the query.
        let opts = QueryOptions { partition_key: Some("cat3".into()), ..Default::default() };
        let r = c.query_all::<Value>("SELECT VALUE COUNT(1) FROM c", NO_PARAMS, opts).await.unwrap();
        assert_eq!(r.items, vec![json!(50)]);
        // ARRAY_CONTAINS and STARTSWITH use the index too.
        let r = c.query_all::<Value>("SELECT VALUE c.id FROM c WHERE ARRAY_CONTAINS(c.tags, 't1') AND STARTSWITH(c.name, 'Product 1')", NO_PARAMS, QueryOptions::default()).await.unwrap();
        assert!(!r.items.is_empty());
        assert!(r.query_metrics.unwrap().plan.contains("index"));
    });
}

#[test]
fn order_by_top_reads_per_partition_not_per_item() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = products(&t, 4000).await;
        let r = c
            .query_all::<Value>(
                "SELECT TOP 10 c.id, c.price FROM c ORDER BY c.price DESC",
                NO_PARAMS,
                QueryOptions::default(),
            )
            .await
            .unwrap();
        let prices: Vec<i64> = r
            .items
            .iter()
            .map(|d| d["price"].as_i64().unwrap())
            .collect();
        assert_eq!(prices.len(), 10);
        assert!(prices.windows(2).all(|w| w[0] >= w[1]));
        assert_eq!(prices[0], 999);
        let m = r.query_metrics.unwrap();
        assert!(m.plan.contains("ordered index /price DESC"), "{}", m.plan);
        assert!(
            m.retrieved_document_count <= 8 * 10,
            "read {} items for a TOP 10",
            m.retrieved_document_count
        );
    });
}

#[test]
fn pages_resume_without_duplicates_or_gaps_under_concurrent_writes() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = products(&t, 600).await;
        for sql in [
            "SELECT * FROM c ORDER BY c.price",
            "SELECT * FROM c",
            "SELECT * FROM c WHERE c.price >= 100",
        ] {
            let expected = c
                .query_all::<Value>(sql, NO_PARAMS, QueryOptions::default())
                .await
                .unwrap()
                .items
                .len();
            let mut opts = QueryOptions {
                max_item_count: Some(37),
                ..Default::default()
            };
            let mut seen = HashSet::new();
            let mut last_price = -1;
            let mut pages = 0;
            loop {
                let page = c
                    .query_items::<Value>(sql, NO_PARAMS, opts.clone())
                    .await
                    .unwrap();
                pages += 1;
                assert!(page.items.len() <= 37);
                for d in &page.items {
                    assert!(
                        seen.insert(d["id"].as_str().unwrap().to_owned()),
                        "{sql}: {} twice",
                        d["id"]
                    );
                    if sql.contains("ORDER BY") {
                        let p = d["price"].as_i64().unwrap();
                        assert!(p >= last_price, "{sql}: out of order");
                        last_price = p;
                    }
                }
                // Writers keep adding items that sort before the cursor: they must not appear.
                c.create_item(
                    &json!({"id": format!("late{pages}"), "categoryId": "cat1", "price": -1}),
                    None,
                    None,
                )
                .await
                .unwrap();
                match page.continuation {
                    Some(next) => opts.continuation = Some(next),
                    None => break,
                }
            }
            let original = seen.iter().filter(|id| id.starts_with('p')).count();
            assert_eq!(original, expected, "{sql}");
            assert!(pages > 10);
            for i in 1..=pages {
                c.delete_item(&format!("late{i}"), "cat1", None).await.ok();
            }
        }
        // A continuation only resumes its own query.
        let first = c
            .query_items::<Value>(
                "SELECT * FROM c",
                NO_PARAMS,
                QueryOptions {
                    max_item_count: Some(5),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        let opts = QueryOptions {
            continuation: first.continuation,
            ..Default::default()
        };
        let e = c
            .query_items::<Value>("SELECT c.id FROM c", NO_PARAMS, opts)
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 400);
    });
}

#[test]
fn a_page_stops_at_its_budget_and_continues() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = products(&t, 1000).await;
        let opts = QueryOptions {
            max_request_units_per_page: Some(20.0),
            max_item_count: Some(1000),
            ..Default::default()
        };
        let page = c
            .query_items::<Value>(
                "SELECT * FROM c WHERE c.price + 0 >= 0",
                NO_PARAMS,
                opts.clone(),
            )
            .await
            .unwrap();
        assert!(
            page.continuation.is_some(),
            "a 20 RU budget cannot read 1000 items"
        );
        assert!(page.items.len() < 1000 && !page.items.is_empty());
        assert!(page.request_charge < 30.0, "{}", page.request_charge);
        let all = c
            .query_all::<Value>("SELECT * FROM c WHERE c.price + 0 >= 0", NO_PARAMS, opts)
            .await
            .unwrap();
        assert_eq!(all.items.len(), 1000);
    });
}

#[test]
fn syntax_errors_and_bad_parameters_are_400() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        let e = c
            .query_all::<Value>("SELECT * FROM c WHERE", NO_PARAMS, QueryOptions::default())
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 400);
        assert!(e.to_string().contains("line 1, column 22"), "{e}");
        let e = c
            .query_all::<Value>(
                "SELECT * FROM c WHERE c.a = @a",
                &[("a", json!(1))],
                QueryOptions::default(),
            )
            .await
            .unwrap_err();
        assert!(e.to_string().contains("start with @"), "{e}");
        let e = c
            .query_all::<Value>(
                "SELECT * FROM c WHERE c.a = @a",
                NO_PARAMS,
                QueryOptions::default(),
            )
            .await
            .unwrap_err();
        assert!(e.to_string().contains("@a"), "{e}");
    });
}

#[test]
fn ordered_merges_survive_splits_and_deletes() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions { split_threshold_bytes: 48 * 1024, ..Default::default() });
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        for i in 0..600 {
            c.create_item(&json!({"id": format!("{i}"), "pk": format!("k{}", i % 61), "n": i, "pad": "z".repeat(100)}), None, None).await.unwrap();
        }
        for i in (0..600).step_by(3) {
            c.delete_item(&format!("{i}"), format!("k{}", i % 61), None).await.unwrap();
        }
        let partitions = c.partitions().unwrap().len();
        assert!(partitions >= 3, "the test needs splits");
        let r = c.query_all::<Value>("SELECT TOP 5 VALUE c.n FROM c ORDER BY c.n DESC", NO_PARAMS, QueryOptions::default()).await.unwrap();
        assert_eq!(r.items, vec![json!(599), json!(598), json!(596), json!(595), json!(593)]);
        let m = r.query_metrics.unwrap();
        assert!(m.plan.starts_with("ordered"), "per-partition counts stayed exact: {}", m.plan);
        assert!(m.retrieved_document_count <= (partitions * 5) as u64);
        // An item without the property forces the exact path (it sorts first ascending).
        c.create_item(&json!({"id": "no-n", "pk": "k1"}), None, None).await.unwrap();
        let r = c.query_all::<Value>("SELECT TOP 2 VALUE c.id FROM c ORDER BY c.n", NO_PARAMS, QueryOptions::default()).await.unwrap();
        assert_eq!(r.items, vec![json!("no-n"), json!("1")]);
    });
}

#[test]
fn composite_indexes_serve_multi_key_order_by() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let policy = json!({
            "includedPaths": [{"path": "/*"}],
            "compositeIndexes": [[{"path": "/category"}, {"path": "/price", "order": "descending"}]]
        });
        let with = common::container(&t, ContainerProperties::new("with", "/pk").with_indexing_policy(policy).with_initial_partitions(4)).await;
        let without = common::container(&t, ContainerProperties::new("without", "/pk").with_initial_partitions(4)).await;
        for i in 0..500 {
            let d = json!({"id": format!("{i}"), "pk": format!("k{}", i % 17), "category": format!("c{}", i % 5), "price": (i * 37) % 101});
            with.create_item(&d, None, None).await.unwrap();
            without.create_item(&d, None, None).await.unwrap();
        }
        for (sql, backwards) in [
            ("SELECT TOP 20 c.id, c.category, c.price FROM c ORDER BY c.category, c.price DESC", false),
            ("SELECT TOP 20 c.id, c.category, c.price FROM c ORDER BY c.category DESC, c.price", true),
        ] {
            let a = with.query_all::<Value>(sql, NO_PARAMS, QueryOptions { max_item_count: Some(7), ..Default::default() }).await.unwrap();
            let b = without.query_all::<Value>(sql, NO_PARAMS, QueryOptions::default()).await.unwrap();
            let keys = |r: &[Value]| r.iter().map(|d| (d["category"].clone(), d["price"].clone())).map(|(c, p)| format!("{c}{p}")).collect::<Vec<_>>();
            assert_eq!(keys(&a.items), keys(&b.items), "{sql}");
            let plan = a.query_metrics.unwrap().plan;
            assert!(plan.contains("ordered composite index"), "{plan}");
            assert_eq!(plan.contains("backwards"), backwards, "{plan}");
            assert!(b.query_metrics.unwrap().plan.starts_with("whole"));
        }
        // An order no composite index has runs whole, still correct.
        let r = with.query_all::<Value>("SELECT VALUE c.id FROM c ORDER BY c.price, c.category", NO_PARAMS, QueryOptions::default()).await.unwrap();
        assert_eq!(r.items.len(), 500);
    });
}

/// Regression: an ORDER BY merge inside a routed partition reads its candidates from the order
/// index, so another indexed filter must still be evaluated (it once made the plan "exact" and
/// returned every item of the partition).
#[test]
fn ordered_merges_in_a_routed_partition_apply_every_filter() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, ContainerProperties::new("posts", "/postId")).await;
        for i in 0..30 {
            let kind = ["post", "comment", "like"][i % 3];
            let doc = json!({"id": format!("x{i}"), "postId": "p1", "type": kind, "creationDate": format!("2026-01-{:02}", i + 1)});
            c.create_item(&doc, None, None).await.unwrap();
        }
        for (select, options) in [
            ("SELECT * FROM p WHERE p.postId = 'p1' AND p.type = 'comment' ORDER BY p.creationDate", QueryOptions::default()),
            ("SELECT * FROM p WHERE p.type = 'comment' ORDER BY p.creationDate DESC", QueryOptions { partition_key: Some("p1".into()), ..Default::default() }),
        ] {
            let r = c.query_all::<Value>(select, NO_PARAMS, options).await.unwrap();
            assert_eq!(r.items.len(), 10, "{select}: {:?}", r.query_metrics);
            assert!(r.items.iter().all(|d| d["type"] == "comment"), "{select}");
        }
    });
}

/// A routed ORDER BY merges from the index when every item of the logical partition has the
/// sorted property (known from per-logical-partition counts, whatever the size of the rest of the
/// physical partition), and falls back to sorting the partition when one lacks it.
#[test]
fn routed_order_by_uses_logical_partition_counts() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, ContainerProperties::new("posts", "/postId")).await;
        let mut docs = Vec::new();
        for i in 0..10 {
            docs.push(json!({"id": format!("a{i}"), "postId": "small", "d": format!("2026-01-{:02}", i + 1)}));
        }
        for i in 0..400 {
            docs.push(json!({"id": format!("b{i}"), "postId": "big", "d": format!("2025-{:03}", i)}));
        }
        docs.push(json!({"id": "c0", "postId": "mixed", "d": "2026-02-01"}));
        docs.push(json!({"id": "c1", "postId": "mixed"}));
        for d in docs {
            c.create_item(&d, None, None).await.unwrap();
        }
        let q = |pk: &'static str| {
            let c = c.clone();
            async move {
                let opts = QueryOptions { partition_key: Some(pk.into()), ..Default::default() };
                c.query_all::<Value>("SELECT * FROM p ORDER BY p.d DESC", NO_PARAMS, opts).await.unwrap()
            }
        };
        let r = q("small").await;
        let m = r.query_metrics.unwrap();
        assert!(m.plan.starts_with("ordered"), "{}", m.plan);
        assert_eq!(r.items.len(), 10);
        assert_eq!(m.retrieved_document_count, 10, "only the partition's items: {m:?}");
        assert_eq!(r.items[0]["id"], "a9");
        // One item without the property: the index cannot order it, so the partition is sorted.
        let r = q("mixed").await;
        let m = r.query_metrics.unwrap();
        assert!(m.plan.starts_with("whole"), "{}", m.plan);
        assert_eq!(r.items.len(), 2, "items lacking the property are returned too");
        // Deleting it makes the partition fully indexed again.
        c.delete_item("c1", "mixed", None).await.unwrap();
        assert!(q("mixed").await.query_metrics.unwrap().plan.starts_with("ordered"));
    });
}

/// A routed ORDER BY whose equality filter leaves only a few items sorts those items instead of
/// walking the order index of the whole physical partition; with many, it merges from the index.
#[test]
fn routed_order_by_with_a_narrow_filter_sorts_the_few_matches() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, ContainerProperties::new("posts", "/postId")).await;
        for p in 0..20 {
            for i in 0..30 {
                let kind = if i % 5 == 0 { "comment" } else { "like" };
                let doc = json!({"id": format!("p{p}-{i}"), "postId": format!("p{p}"), "type": kind, "d": format!("2026-{:02}-{:02}", 1 + i % 12, 1 + (i * 7) % 28)});
                c.create_item(&doc, None, None).await.unwrap();
            }
        }
        let sql = "SELECT * FROM p WHERE p.postId = @p AND p.type = @t ORDER BY p.d DESC";
        let run = |kind: &'static str, page: usize| {
            let c = c.clone();
            async move {
                let opts = QueryOptions { max_item_count: Some(page), ..Default::default() };
                c.query_items::<Value>(sql, &[("@p", json!("p3")), ("@t", json!(kind))], opts).await.unwrap()
            }
        };
        // 6 comments, pages of 25: sorted in memory from the index's matches.
        let r = run("comment", 25).await;
        let m = r.query_metrics.clone().unwrap();
        assert!(m.plan.starts_with("whole"), "{}", m.plan);
        assert_eq!(m.retrieved_document_count, 6);
        let dates: Vec<&str> = r.items.iter().map(|d| d["d"].as_str().unwrap()).collect();
        assert!(dates.windows(2).all(|w| w[0] >= w[1]), "{dates:?}");
        // 24 likes, pages of 2: too many to sort for a page; the index merge reads 2.
        let r = run("like", 2).await;
        let m = r.query_metrics.unwrap();
        assert!(m.plan.starts_with("ordered"), "{}", m.plan);
        assert_eq!(r.items.len(), 2);
        assert!(r.items.iter().all(|d| d["type"] == "like"));
        let merged = r.request_charge;
        // 24 likes, pages of 10: sorted in memory (24 <= 4 pages), priced as the merge it
        // replaces: the page's 10 items loaded, the other 14 as index entries; every page alike.
        let (page1, page2) = (run("like", 10).await, run("like", 2).await);
        let m = page1.query_metrics.clone().unwrap();
        assert!(m.plan.starts_with("whole"), "{}", m.plan);
        assert_eq!(m.retrieved_document_count, 24);
        assert_eq!(m.partitions[0].items_read, 10, "{m:?}");
        assert_eq!(m.partitions[0].index_entries_read, 24 + 14, "{m:?}");
        assert!(page1.request_charge < merged + 1.5, "{} vs {merged}", page1.request_charge);
        assert!(page2.request_charge <= merged);
        let opts = QueryOptions { max_item_count: Some(10), continuation: page1.continuation.clone(), ..Default::default() };
        let next = c.query_items::<Value>(sql, &[("@p", json!("p3")), ("@t", json!("like"))], opts).await.unwrap();
        assert_eq!(next.items.len(), 10);
        assert!((next.request_charge - page1.request_charge).abs() < 0.5, "{} vs {}", next.request_charge, page1.request_charge);
    });
}

/// The blog's V2 shape: posts interleaved with many comments and likes in `posts`, queried across
/// partitions by date (Q6) and by author (Q3). The `type = 'post'` conjunct is answered from the
/// index, so neither the merge nor the per-partition pricing loads a comment or a like.
#[test]
fn equality_conjuncts_are_answered_from_the_index_in_fan_outs() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(
            &t,
            ContainerProperties::new("posts", "/postId").with_initial_partitions(4),
        )
        .await;
        let mut tasks = tokio::task::JoinSet::new();
        for p in 0..120 {
            let c = c.clone();
            tasks.spawn(async move {
                let post_id = format!("post{p}");
                let user = format!("user{}", p % 6);
                let day = |n: usize| format!("2025-01-{:02}T{:02}:{:02}:00Z", 1 + p % 28, n % 24, p % 60);
                c.create_item(&json!({"id": post_id, "postId": post_id, "type": "post", "userId": user, "creationDate": day(p)}), None, None).await.unwrap();
                for k in 0..9 {
                    let kind = if k % 3 == 0 { "comment" } else { "like" };
                    // Comments and likes by the post's author too, so `userId` alone is not enough.
                    c.create_item(&json!({"id": format!("{post_id}-{k}"), "postId": post_id, "type": kind, "userId": user, "creationDate": day(p + k + 1)}), None, None).await.unwrap();
                }
            });
        }
        while let Some(r) = tasks.join_next().await {
            r.unwrap();
        }
        let newest = "SELECT TOP 10 * FROM p WHERE p.type = 'post' ORDER BY p.creationDate DESC";
        let r = c.query_items::<Value>(newest, NO_PARAMS, QueryOptions::default()).await.unwrap();
        assert_eq!(r.items.len(), 10);
        assert!(r.items.iter().all(|i| i["type"] == "post"));
        let m = r.query_metrics.unwrap();
        assert_eq!(m.partitions_visited, 4);
        // The merge's 10 plus each partition's own first page (10 posts each at most): no
        // comment or like was loaded to be rejected.
        assert!(m.retrieved_document_count <= 10, "{m:?}");
        let loaded: u64 = m.partitions.iter().map(|p| p.items_read).sum();
        assert!(loaded <= 40, "{m:?}");
        // The same answer as evaluating every item.
        let slow = "SELECT TOP 10 * FROM p WHERE CONCAT(p.type, '') = 'post' ORDER BY p.creationDate DESC";
        let all = c.query_items::<Value>(slow, NO_PARAMS, QueryOptions::default()).await.unwrap();
        assert_eq!(r.items, all.items);
        let loaded_slow: u64 = all.query_metrics.unwrap().partitions.iter().map(|p| p.items_read).sum();
        assert!(loaded_slow > 3 * loaded, "{loaded_slow} vs {loaded}");
        assert!(r.request_charge < all.request_charge, "{} vs {}", r.request_charge, all.request_charge);

        // One author's posts, newest first: few candidates after `type`, so they are sorted
        // instead of merging every partition's date index.
        let by_user = "SELECT * FROM p WHERE p.userId = 'user2' AND p.type = 'post' ORDER BY p.creationDate DESC";
        let r = c.query_all::<Value>(by_user, NO_PARAMS, QueryOptions::default()).await.unwrap();
        assert_eq!(r.items.len(), 20);
        let dates: Vec<&str> = r.items.iter().map(|i| i["creationDate"].as_str().unwrap()).collect();
        assert!(dates.windows(2).all(|w| w[0] >= w[1]), "{dates:?}");
        let m = r.query_metrics.unwrap();
        assert_eq!(m.retrieved_document_count, 20, "{m:?}");
    });
}
