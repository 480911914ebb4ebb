//! The change feed: latest-version and all-versions modes, starts, continuations, splits, TTL.

mod common;

use std::collections::{HashMap, HashSet};

use engine::{
    ChangeFeedMode, ChangeFeedOptions, ChangeFeedStart, ContainerClient, ContainerProperties,
    EngineOptions,
};
use serde_json::{json, Value};

/// Reads the feed to its end from `start`, in pages of `page`; returns items and the continuation.
async fn drain(
    c: &ContainerClient,
    mode: ChangeFeedMode,
    start: ChangeFeedStart,
    page: usize,
) -> (Vec<Value>, String) {
    let mut items = Vec::new();
    let mut opts = ChangeFeedOptions {
        mode,
        start,
        max_item_count: page,
        ..Default::default()
    };
    loop {
        let p = c.change_feed(&opts).await.unwrap();
        assert!(p.request_charge >= 1.0);
        let done = p.not_modified();
        items.extend(p.items);
        opts.start = ChangeFeedStart::Continuation(p.continuation.clone());
        if done {
            return (items, p.continuation);
        }
    }
}

#[test]
fn latest_version_mode_shows_each_item_once_at_its_latest_version() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions {
            initial_partitions: 3,
            ..Default::default()
        });
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        for i in 0..20 {
            c.create_item(
                &json!({"id": format!("{i}"), "pk": format!("p{}", i % 5), "v": 1}),
                None,
                None,
            )
            .await
            .unwrap();
        }
        for i in 0..5 {
            c.upsert_item(
                &json!({"id": format!("{i}"), "pk": format!("p{}", i % 5), "v": 2}),
                None,
                None,
            )
            .await
            .unwrap();
        }
        c.delete_item("19", "p4", None).await.unwrap();
        let (items, cont) = drain(
            &c,
            ChangeFeedMode::LatestVersion,
            ChangeFeedStart::Beginning,
            3,
        )
        .await;
        assert_eq!(
            items.len(),
            19,
            "each live item once; deletes are not in this mode"
        );
        let ids: HashSet<_> = items
            .iter()
            .map(|d| d["id"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(ids.len(), 19);
        for d in &items {
            let i: u32 = d["id"].as_str().unwrap().parse().unwrap();
            assert_eq!(d["v"], if i < 5 { 2 } else { 1 }, "latest version of {i}");
        }
        // Order within a logical partition follows the writes (LSN order).
        let mut last: HashMap<String, u64> = HashMap::new();
        for d in &items {
            let lsn = d["_lsn"].as_u64().unwrap();
            let prev = last.insert(d["pk"].as_str().unwrap().to_owned(), lsn);
            assert!(prev.is_none_or(|p| p < lsn));
        }
        // A continuation sees only what changed after it.
        c.upsert_item(&json!({"id": "7", "pk": "p2", "v": 3}), None, None)
            .await
            .unwrap();
        c.create_item(&json!({"id": "new", "pk": "p9"}), None, None)
            .await
            .unwrap();
        let (more, _) = drain(
            &c,
            ChangeFeedMode::LatestVersion,
            ChangeFeedStart::Continuation(cont),
            100,
        )
        .await;
        let ids: Vec<_> = more.iter().map(|d| d["id"].as_str().unwrap()).collect();
        assert_eq!(ids.len(), 2);
        assert!(ids.contains(&"7") && ids.contains(&"new"));
        // "Now" starts after everything committed so far.
        let now = c
            .change_feed_token(&ChangeFeedOptions {
                start: ChangeFeedStart::Now,
                ..Default::default()
            })
            .unwrap();
        c.create_item(&json!({"id": "after", "pk": "p1"}), None, None)
            .await
            .unwrap();
        let (after, _) = drain(
            &c,
            ChangeFeedMode::LatestVersion,
            ChangeFeedStart::Continuation(now),
            10,
        )
        .await;
        assert_eq!(after.len(), 1);
        // One logical partition's feed.
        let opts = ChangeFeedOptions {
            partition_key: Some("p2".into()),
            max_item_count: 100,
            ..Default::default()
        };
        let page = c.change_feed(&opts).await.unwrap();
        assert!(page.items.iter().all(|d| d["pk"] == "p2"));
        assert_eq!(page.items.len(), 4);
        // Point in time: nothing was written in the future.
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        let future = now.unwrap().as_secs() + 3600;
        let (none, _) = drain(
            &c,
            ChangeFeedMode::LatestVersion,
            ChangeFeedStart::PointInTime(future),
            10,
        )
        .await;
        assert!(none.is_empty());
        // A garbage continuation is a 400 naming the field.
        let bad = ChangeFeedOptions {
            start: ChangeFeedStart::Continuation("nope".into()),
            ..Default::default()
        };
        assert_eq!(c.change_feed(&bad).await.unwrap_err().status_code(), 400);
    });
}

#[test]
fn all_versions_mode_has_every_write_and_delete_including_ttl_purges() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(
            &t,
            ContainerProperties::new("c", "/pk")
                .with_all_versions_retention(3600)
                .with_default_ttl(-1),
        )
        .await;
        c.create_item(&json!({"id": "a", "pk": "p", "v": 1}), None, None)
            .await
            .unwrap();
        c.replace_item(&json!({"id": "a", "pk": "p", "v": 2}), "a", None, None)
            .await
            .unwrap();
        c.delete_item("a", "p", None).await.unwrap();
        c.create_item(&json!({"id": "short", "pk": "p", "ttl": 1}), None, None)
            .await
            .unwrap();
        // The purge runs once a second; the item expires after one.
        tokio::time::sleep(std::time::Duration::from_millis(3500)).await;
        let (records, _) = drain(
            &c,
            ChangeFeedMode::AllVersionsAndDeletes,
            ChangeFeedStart::Beginning,
            2,
        )
        .await;
        let kinds: Vec<_> = records
            .iter()
            .map(|r| r["metadata"]["operationType"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            kinds,
            ["create", "replace", "delete", "create", "delete"],
            "{records:#?}"
        );
        assert_eq!(records[1]["current"]["v"], 2);
        assert_eq!(records[2]["metadata"]["id"], "a");
        // A delete's record carries an empty `current`, as the service's does ("Change feed
        // modes"; azure-cosmos's test_change_feed_all_versions.py reads it).
        assert_eq!(records[2]["current"], json!({}), "{records:#?}");
        assert_eq!(records[4]["current"], json!({}));
        assert_eq!(records[2]["metadata"]["timeToLiveExpired"], false);
        assert_eq!(
            records[4]["metadata"]["timeToLiveExpired"], true,
            "the TTL purge shows as a delete"
        );
        assert_eq!(
            c.stats(1).await.unwrap().items,
            0,
            "the expired item was purged, counters follow"
        );
        // The latest-version feed never showed deletes; all-versions needs the container setting.
        let plain = common::container(&t, ContainerProperties::new("plain", "/pk")).await;
        let opts = ChangeFeedOptions {
            mode: ChangeFeedMode::AllVersionsAndDeletes,
            ..Default::default()
        };
        assert_eq!(
            plain.change_feed(&opts).await.unwrap_err().status_code(),
            400
        );
    });
}

#[test]
fn change_log_retention_drops_old_records() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(
            &t,
            ContainerProperties::new("c", "/pk").with_all_versions_retention(1),
        )
        .await;
        c.create_item(&json!({"id": "old", "pk": "p"}), None, None)
            .await
            .unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(3500)).await;
        c.create_item(&json!({"id": "fresh", "pk": "p"}), None, None)
            .await
            .unwrap();
        let (records, _) = drain(
            &c,
            ChangeFeedMode::AllVersionsAndDeletes,
            ChangeFeedStart::Beginning,
            10,
        )
        .await;
        let ids: Vec<_> = records
            .iter()
            .map(|r| r["current"]["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["fresh"]);
        // The item itself is not affected by the log's retention.
        c.read_item::<Value>("old", "p", None).await.unwrap();
    });
}

#[test]
fn a_reader_continues_across_partition_splits_without_losing_changes() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions {
            split_threshold_bytes: 32 * 1024,
            ..Default::default()
        });
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        c.create_item(&json!({"id": "first", "pk": "x"}), None, None)
            .await
            .unwrap();
        let (_, mut cont) = drain(
            &c,
            ChangeFeedMode::LatestVersion,
            ChangeFeedStart::Beginning,
            10,
        )
        .await;
        let mut seen: HashSet<String> = HashSet::new();
        for round in 0..6 {
            for i in 0..60 {
                let id = format!("r{round}-{i}");
                c.create_item(
                    &json!({"id": id, "pk": format!("k{}", i % 31), "pad": "z".repeat(300)}),
                    None,
                    None,
                )
                .await
                .unwrap();
            }
            let (items, next) = drain(
                &c,
                ChangeFeedMode::LatestVersion,
                ChangeFeedStart::Continuation(cont),
                25,
            )
            .await;
            cont = next;
            for d in items {
                assert!(
                    seen.insert(d["id"].as_str().unwrap().to_owned()),
                    "{} delivered twice",
                    d["id"]
                );
            }
        }
        assert!(c.partitions().unwrap().len() >= 3, "the test needs splits");
        assert_eq!(seen.len(), 360, "every change after the continuation, once");
    });
}
