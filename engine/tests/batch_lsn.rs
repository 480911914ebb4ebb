//! A transactional batch takes one LSN, as the service gives it (azure-cosmos's
//! `test_batch_lsn`: the batch's `lsn` is the partition's previous LSN + 1): its items share
//! `_lsn`, and the change feed still lists every write of it, in the batch's order, never
//! splitting it across pages, so a continuation (an LSN) resumes after the whole batch.

mod common;

use engine::{
    ChangeFeedMode, ChangeFeedOptions, ChangeFeedStart, ContainerClient, ContainerProperties,
    EngineOptions, TransactionalBatch,
};
use serde_json::{json, Value};

/// The LSN of the container's only physical partition.
fn lsn(c: &ContainerClient) -> u64 {
    let parts = c.partitions().unwrap();
    assert_eq!(parts.len(), 1);
    parts[0].lsn
}

/// Reads the feed from `start` to its end in pages of `page`: the ids of each page, and the
/// continuation to resume from.
async fn pages(
    c: &ContainerClient,
    mode: ChangeFeedMode,
    start: ChangeFeedStart,
    page: usize,
) -> (Vec<Vec<Value>>, String) {
    let mut out = Vec::new();
    let mut opts = ChangeFeedOptions {
        mode,
        start,
        max_item_count: page,
        ..Default::default()
    };
    loop {
        let p = c.change_feed(&opts).await.unwrap();
        let done = p.not_modified();
        opts.start = ChangeFeedStart::Continuation(p.continuation.clone());
        if done {
            return (out, p.continuation);
        }
        out.push(p.items);
    }
}

fn ids(items: &[Value]) -> Vec<String> {
    items
        .iter()
        .map(|d| {
            d.get("current")
                .and_then(|c| c.get("id"))
                .or_else(|| d.pointer("/metadata/id"))
                .or_else(|| d.get("id"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

#[test]
fn a_batch_takes_one_lsn_and_the_feed_lists_all_its_writes() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions {
            initial_partitions: 1,
            ..Default::default()
        });
        let c = common::container(
            &t,
            ContainerProperties::new("c", "/pk").with_all_versions_retention(3600),
        )
        .await;
        for id in ["replace_me", "delete_me", "before"] {
            c.upsert_item(&json!({"id": id, "pk": "p"}), None, None)
                .await
                .unwrap();
        }
        let (_, before_batch) = pages(
            &c,
            ChangeFeedMode::LatestVersion,
            ChangeFeedStart::Beginning,
            10,
        )
        .await;
        let (_, before_batch_log) = pages(
            &c,
            ChangeFeedMode::AllVersionsAndDeletes,
            ChangeFeedStart::Now,
            10,
        )
        .await;
        let l = lsn(&c);

        let batch = TransactionalBatch::new("p")
            .create_item(&json!({"id": "a", "pk": "p"}))
            .replace_item(
                "replace_me",
                &json!({"id": "replace_me", "pk": "p", "v": 2}),
                None,
            )
            .read_item("before")
            .upsert_item(&json!({"id": "b", "pk": "p"}))
            .delete_item("delete_me", None)
            .create_item(&json!({"id": "c", "pk": "p"}))
            // The same item twice: its latest version is the feed's.
            .replace_item("a", &json!({"id": "a", "pk": "p", "v": 2}), None);
        let r = c.execute_batch(batch).await.unwrap();
        assert!(r.is_success(), "{:?}", r.error_message);
        assert_eq!(lsn(&c), l + 1, "the batch takes one LSN");
        for id in ["a", "replace_me", "b", "c"] {
            let d = c.read_item::<Value>(id, "p", None).await.unwrap();
            assert_eq!(d.resource.unwrap()["_lsn"], l + 1, "{id}");
        }
        // The one before keeps its own.
        let d = c.read_item::<Value>("before", "p", None).await.unwrap();
        assert_eq!(d.resource.unwrap()["_lsn"], l);

        // Latest version, one item a page: the batch's writes come in one page, in order
        // (`a` at its second write), and the continuation resumes after them.
        let (got, after_batch) = pages(
            &c,
            ChangeFeedMode::LatestVersion,
            ChangeFeedStart::Continuation(before_batch.clone()),
            1,
        )
        .await;
        assert_eq!(got.len(), 1, "one page: {got:?}");
        assert_eq!(ids(&got[0]), ["replace_me", "b", "c", "a"]);
        c.create_item(&json!({"id": "later", "pk": "p"}), None, None)
            .await
            .unwrap();
        let (got, _) = pages(
            &c,
            ChangeFeedMode::LatestVersion,
            ChangeFeedStart::Continuation(after_batch),
            1,
        )
        .await;
        assert_eq!(got.iter().map(|p| ids(p)).collect::<Vec<_>>(), [["later"]]);
        // From the beginning in pages of two: every item once.
        let (got, _) = pages(
            &c,
            ChangeFeedMode::LatestVersion,
            ChangeFeedStart::Beginning,
            2,
        )
        .await;
        let mut all: Vec<String> = got.iter().flat_map(|p| ids(p)).collect();
        all.sort();
        assert_eq!(all, ["a", "b", "before", "c", "later", "replace_me"]);

        // All versions: every write of the batch, the delete and both of `a`'s, at its LSN.
        let (got, _) = pages(
            &c,
            ChangeFeedMode::AllVersionsAndDeletes,
            ChangeFeedStart::Continuation(before_batch_log),
            2,
        )
        .await;
        let records: Vec<Value> = got.concat();
        assert_eq!(
            ids(&records),
            ["a", "replace_me", "b", "delete_me", "c", "a", "later"]
        );
        for r in &records[..6] {
            assert_eq!(r["metadata"]["lsn"], l + 1, "{r}");
        }
        assert_eq!(records[3]["metadata"]["operationType"], "delete");

        // The writer's bookkeeping is what `check` expects.
        let reports = t.engine.check().unwrap();
        assert!(engine::check_failed(&reports).is_none(), "{reports:?}");

        // An item of the batch written again alone leaves the batch's other entries.
        c.upsert_item(&json!({"id": "b", "pk": "p", "v": 3}), None, None)
            .await
            .unwrap();
        let (got, _) = pages(
            &c,
            ChangeFeedMode::LatestVersion,
            ChangeFeedStart::Continuation(before_batch),
            10,
        )
        .await;
        assert_eq!(
            got.iter().flat_map(|p| ids(p)).collect::<Vec<_>>(),
            ["replace_me", "c", "a", "later", "b"]
        );
        let reports = t.engine.check().unwrap();
        assert!(engine::check_failed(&reports).is_none(), "{reports:?}");
    });
}

#[test]
fn a_split_keeps_a_batch_whole() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions {
            initial_partitions: 1,
            split_threshold_bytes: 32 * 1024,
            ..Default::default()
        });
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        let mut written = 0;
        for round in 0..12 {
            let pk = format!("k{round}");
            let mut batch = TransactionalBatch::new(pk.as_str());
            for i in 0..8 {
                batch = batch.create_item(
                    &json!({"id": format!("{round}-{i}"), "pk": pk, "pad": "z".repeat(400)}),
                );
            }
            let r = c.execute_batch(batch).await.unwrap();
            assert!(r.is_success(), "{:?}", r.error_message);
            written += 8;
        }
        assert!(c.partitions().unwrap().len() >= 2, "the test needs a split");
        let (got, _) = pages(
            &c,
            ChangeFeedMode::LatestVersion,
            ChangeFeedStart::Beginning,
            3,
        )
        .await;
        let mut all: Vec<String> = got.iter().flat_map(|p| ids(p)).collect();
        // A page holds whole batches: each page's size is a multiple of a batch's.
        assert!(got.iter().all(|p| p.len() % 8 == 0), "{got:?}");
        all.sort();
        all.dedup();
        assert_eq!(all.len(), written);
        let reports = t.engine.check().unwrap();
        assert!(engine::check_failed(&reports).is_none(), "{reports:?}");
    });
}
