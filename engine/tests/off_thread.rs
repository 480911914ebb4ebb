//! Storage work runs off the caller's async thread (issue 19): on a single-threaded runtime —
//! what each actix worker is — a point read completes while heavy cross-partition queries are
//! still paging, instead of waiting for all of them. Before, every page ran inline on the one
//! thread, so the point read finished last. The same holds for change-feed pages (a processor's
//! workers run on the app's runtime).

mod common;

use std::future::Future;
use std::sync::{Arc, Mutex};

use engine::{
    ChangeFeedOptions, ChangeFeedStart, ContainerClient, ContainerProperties, EngineOptions,
    QueryOptions,
};
use serde_json::{json, Value};

/// On a single-threaded runtime, a container of 2 000 items in 4 partitions; `heavy` runs four
/// times at once, and a point read is started after them: it must not finish last.
fn point_read_beside<F, Fut>(heavy: F)
where
    F: Fn(ContainerClient) -> Fut,
    Fut: Future<Output = ()> + 'static,
{
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(
            &t,
            ContainerProperties::new("c", "/pk").with_initial_partitions(4),
        )
        .await;
        let mut writes = tokio::task::JoinSet::new();
        for i in 0..2000 {
            let c = c.clone();
            writes.spawn(async move {
                c.create_item(
                    &json!({"id": format!("i{i}"), "pk": format!("p{}", i % 50), "n": i}),
                    None,
                    None,
                )
                .await
                .unwrap();
            });
        }
        while writes.join_next().await.is_some() {}

        let finished: Arc<Mutex<Vec<&'static str>>> = Arc::default();
        let local = tokio::task::LocalSet::new();
        for _ in 0..4 {
            let (work, finished) = (heavy(c.clone()), finished.clone());
            local.spawn_local(async move {
                work.await;
                finished.lock().unwrap().push("heavy");
            });
        }
        local
            .run_until(async {
                // Let the heavy work start, then read one item.
                tokio::task::yield_now().await;
                let item = c.read_item::<Value>("i7", "p7", None).await.unwrap();
                assert_eq!(item.resource.unwrap()["n"], 7);
                finished.lock().unwrap().push("point");
            })
            .await;
        local.await;
        let order = finished.lock().unwrap().clone();
        assert_eq!(order.len(), 5);
        assert_ne!(
            order.last(),
            Some(&"point"),
            "the point read waited for every heavy task: {order:?}"
        );
        assert_eq!(order[0], "point", "{order:?}");
    });
}

#[test]
fn a_point_read_is_not_stuck_behind_change_feed_reads_on_its_thread() {
    point_read_beside(|c| async move {
        // The whole feed, ten changes a page: many pages.
        let mut options = ChangeFeedOptions {
            start: ChangeFeedStart::Beginning,
            max_item_count: 10,
            ..Default::default()
        };
        let mut read = 0;
        loop {
            let page = c.change_feed(&options).await.unwrap();
            if page.not_modified() {
                break;
            }
            read += page.items.len();
            options.start = ChangeFeedStart::Continuation(page.continuation);
        }
        assert_eq!(read, 2000);
    });
}

#[test]
fn a_point_read_is_not_stuck_behind_heavy_queries_on_its_thread() {
    point_read_beside(|c| async move {
        // A fan-out with a filter no index answers, ten rows a page: many pages.
        c.query_all::<Value>(
            "SELECT * FROM c WHERE c.n % 3 = 1",
            engine::NO_PARAMS,
            QueryOptions {
                max_item_count: Some(10),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    });
}
