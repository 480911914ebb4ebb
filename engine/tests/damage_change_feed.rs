//! Issue 34: a damaged change feed answers an error that says so, never a short feed. Copies of
//! a real store are damaged the way a bad disk damages a B-tree that LMDB then walks without an
//! error (leaves whose key count shrank), and the feeds read from them, in pages, by the whole
//! container, by feed range and by partition key, in both modes.

mod common;

use std::path::Path;

use common::damage::{cut, is_leaf, leaves_where, nodes, open_copy, says_damaged, PAGE};
use engine::{
    ChangeFeedMode, ChangeFeedOptions, ChangeFeedStart, ContainerClient, ContainerProperties,
    Engine, EngineOptions, FeedRange, PartitionKey,
};
use serde_json::json;

const ITEMS: usize = 3000;

/// Leaves of the `feed` table (16-byte keys, an EPK and an id as values) or of the `log`
/// table (16-byte keys, a record naming its operation).
fn leaves(bytes: &[u8], log: bool) -> Vec<usize> {
    leaves_where(bytes, |ksize, data| {
        let is_log = data.windows(13).any(|w| w == b"operationType");
        ksize == 16 && is_log == log && (log || (17..=40).contains(&data.len()))
    })
}

/// A store of 3 000 items in two physical partitions with an all-versions feed; 300 of them
/// replaced and 100 deleted. Returns its data file.
fn store(dir: &Path) -> Vec<u8> {
    let rt = common::rt();
    rt.block_on(async {
        let e = Engine::open(
            dir,
            EngineOptions {
                initial_partitions: 2,
                ..Default::default()
            },
        )
        .unwrap();
        let db = e.create_database_if_not_exists("d").await.unwrap();
        let c = db
            .create_container(
                ContainerProperties::new("c", "/pk").with_all_versions_retention(1 << 30),
            )
            .await
            .unwrap();
        for i in 0..ITEMS {
            let doc = json!({"id": format!("i{i}"), "pk": format!("p{}", i % 30), "v": i});
            c.create_item(&doc, None, None).await.unwrap();
        }
        for i in (0..ITEMS).step_by(10) {
            let doc = json!({"id": format!("i{i}"), "pk": format!("p{}", i % 30), "v": -1});
            c.upsert_item(&doc, None, None).await.unwrap();
        }
        for i in (5..ITEMS).step_by(30) {
            c.delete_item(&format!("i{i}"), format!("p{}", i % 30).as_str(), None)
                .await
                .unwrap();
        }
    });
    std::fs::read(dir.join("data.mdb")).unwrap()
}

/// Reads a feed to its end in pages of 70: the number of changes, or the error.
async fn drain(c: &ContainerClient, mut opts: ChangeFeedOptions) -> Result<usize, String> {
    let mut n = 0;
    opts.max_item_count = 70;
    for _ in 0..10_000 {
        let page = c.change_feed(&opts).await.map_err(|e| e.to_string())?;
        if page.not_modified() {
            return Ok(n);
        }
        n += page.items.len();
        opts.start = ChangeFeedStart::Continuation(page.continuation);
    }
    Err("the feed never ends".into())
}

/// The feeds read: the whole container, each feed range, three partition keys; both modes.
fn feeds(ranges: &[FeedRange]) -> Vec<(String, ChangeFeedOptions)> {
    let mut out = Vec::new();
    for mode in [
        ChangeFeedMode::LatestVersion,
        ChangeFeedMode::AllVersionsAndDeletes,
    ] {
        let base = ChangeFeedOptions {
            mode,
            ..Default::default()
        };
        out.push((format!("{mode:?} whole"), base.clone()));
        for (i, r) in ranges.iter().enumerate() {
            let range = Some(*r);
            out.push((
                format!("{mode:?} range {i}"),
                ChangeFeedOptions {
                    range,
                    ..base.clone()
                },
            ));
        }
        for pk in ["p0", "p7", "p29"] {
            let partition_key = Some(PartitionKey::from(pk));
            out.push((
                format!("{mode:?} key {pk}"),
                ChangeFeedOptions {
                    partition_key,
                    ..base.clone()
                },
            ));
        }
    }
    out
}

/// What every feed answers on `bytes` (a copy in `dir`).
fn answers(dir: &Path, bytes: &[u8]) -> Vec<(String, Result<usize, String>)> {
    let e = open_copy(dir, bytes);
    common::rt().block_on(async {
        let c = e.database("d").container("c");
        let ranges = c.feed_ranges().unwrap();
        let mut out = Vec::new();
        for (name, opts) in feeds(&ranges) {
            out.push((name, drain(&c, opts).await));
        }
        out
    })
}

#[test]
fn a_damaged_change_feed_is_an_error_never_a_short_feed() {
    let tmp = tempfile::tempdir().unwrap();
    let clean = store(&tmp.path().join("store"));
    let truth = answers(&tmp.path().join("clean"), &clean);
    let whole: Vec<usize> = truth.iter().map(|(_, a)| *a.as_ref().unwrap()).collect();
    // 2 900 items; 3 000 creates, 300 replaces, 100 deletes.
    assert_eq!(whole[0], ITEMS - 100, "{truth:?}");
    assert_eq!(whole[truth.len() / 2], ITEMS + 400, "{truth:?}");

    for (what, log) in [("latest-version feed", false), ("all-versions log", true)] {
        let pages = leaves(&clean, log);
        assert!(pages.len() > 3, "{what}: found {} leaves", pages.len());
        let mut bytes = clean.clone();
        cut(&mut bytes, &pages);
        let got = answers(&tmp.path().join(format!("{log}")), &bytes);
        for ((name, answer), (_, want)) in got.iter().zip(&truth) {
            match answer {
                Ok(n) => assert_eq!(
                    Ok(*n),
                    *want,
                    "{what} damaged: the {name} feed answered short without an error"
                ),
                Err(e) => assert!(says_damaged(e), "{what} damaged: {name}: {e}"),
            }
        }
        // The damage is where every feed of its mode reads: each of them refuses.
        let refused = got
            .iter()
            .filter(|(name, a)| a.is_err() && name.starts_with(if log { "All" } else { "Latest" }))
            .count();
        assert_eq!(refused, truth.len() / 2, "{what}: {got:?}");
    }
}

/// An item lost from the items' B-tree while its feed entry stays: the feed names it, the read
/// does not find it: damage, not a change silently left out.
#[test]
fn a_feed_entry_without_its_item_is_damage() {
    let tmp = tempfile::tempdir().unwrap();
    let clean = store(&tmp.path().join("store"));
    let mut bytes = clean.clone();
    let item_leaves: Vec<usize> = (2..bytes.len() / PAGE)
        .filter(|&n| {
            is_leaf(&bytes, n)
                && nodes(&bytes[n * PAGE..(n + 1) * PAGE])
                    .iter()
                    .any(|(k, d)| *k > 20 && d.windows(5).any(|w| w == b"\"_ts\""))
        })
        .collect();
    assert!(!item_leaves.is_empty());
    cut(&mut bytes, &item_leaves);
    let e = open_copy(&tmp.path().join("copy"), &bytes);
    common::rt().block_on(async {
        let c = e.database("d").container("c");
        let err = drain(&c, ChangeFeedOptions::default()).await.unwrap_err();
        assert!(
            says_damaged(&err) && err.contains("which a read does not find"),
            "{err}"
        );
    });
}
