//! Issue 34: filtered and ORDER BY queries answered from index scans never drop an item silently.
//! Two kinds of damage on copies of a real store: index leaves whose key count shrank (LMDB walks
//! them without an error; the leaf check of `storage::pages` sees it), and index entries lost
//! from sound pages (deleted straight through LMDB, counters untouched: what a damaged branch
//! page skipping a subtree looks like to a scan; the ORDER BY walk's count sees it).

mod common;

use std::path::Path;

use common::damage::{cut, delete_keys, leaves_where, open_copy, says_damaged};
use engine::{ContainerProperties, Engine, EngineOptions, QueryOptions, NO_PARAMS};
use serde_json::{json, Value};

const ITEMS: usize = 3000;

fn store(dir: &Path) -> Vec<u8> {
    common::rt().block_on(async {
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
            .create_container(ContainerProperties::new("c", "/pk"))
            .await
            .unwrap();
        for i in 0..ITEMS {
            let doc = json!({"id": format!("i{i}"), "pk": format!("p{}", i % 30), "x": i % 50});
            c.create_item(&doc, None, None).await.unwrap();
        }
    });
    std::fs::read(dir.join("data.mdb")).unwrap()
}

/// The queries: filters answered from the index (equality, range, IN), ORDER BY merges both
/// ways, whole and confined to one logical partition; paged by 70.
const QUERIES: &[(&str, Option<&str>)] = &[
    ("SELECT VALUE COUNT(1) FROM c WHERE c.x = 7", None),
    ("SELECT VALUE c.id FROM c WHERE c.x = 7", None),
    ("SELECT VALUE c.id FROM c WHERE c.x > 40", None),
    ("SELECT VALUE c.id FROM c WHERE c.x IN (1, 2, 3)", None),
    ("SELECT VALUE c.id FROM c ORDER BY c.x", None),
    ("SELECT VALUE c.id FROM c ORDER BY c.x DESC", None),
    ("SELECT VALUE c.id FROM c ORDER BY c.x", Some("p7")),
    ("SELECT VALUE c.id FROM c WHERE c.x = 7", Some("p7")),
];

async fn answer(e: &Engine, sql: &str, pk: Option<&str>) -> Result<Vec<Value>, String> {
    let c = e.database("d").container("c");
    let mut out = Vec::new();
    let mut continuation = None;
    loop {
        let page = c
            .query_items::<Value>(
                sql,
                NO_PARAMS,
                QueryOptions {
                    partition_key: pk.map(Into::into),
                    max_item_count: Some(70),
                    continuation,
                    ..Default::default()
                },
            )
            .await
            .map_err(|e| e.to_string())?;
        out.extend(page.items);
        match page.continuation {
            Some(next) => continuation = Some(next),
            None => return Ok(out),
        }
    }
}

fn answers(dir: &Path, bytes: &[u8]) -> Vec<Result<Vec<Value>, String>> {
    let e = open_copy(dir, bytes);
    common::rt().block_on(async {
        let mut out = Vec::new();
        for (sql, pk) in QUERIES {
            out.push(answer(&e, sql, *pk).await);
        }
        out
    })
}

/// Each answer is the undamaged one, or an error that names the damage; returns the refusals.
fn judge(
    what: &str,
    got: &[Result<Vec<Value>, String>],
    truth: &[Result<Vec<Value>, String>],
    queries: &[(&str, Option<&str>)],
) -> usize {
    let mut refused = 0;
    for ((sql, pk), (g, t)) in queries.iter().zip(got.iter().zip(truth)) {
        match g {
            Ok(rows) => assert_eq!(
                rows,
                t.as_ref().unwrap(),
                "{what}: {sql} (pk {pk:?}) answered wrong without an error"
            ),
            Err(e) => {
                assert!(says_damaged(e), "{what}: {sql}: {e}");
                refused += 1;
            }
        }
    }
    refused
}

/// The index's leaf pages: nodes with keys of at least 41 bytes (`rid · pp · path hash · value
/// · epk · id hash`) whose data is an item's `epk · id` or shorter.
fn index_leaves(bytes: &[u8]) -> Vec<usize> {
    leaves_where(bytes, |ksize, data| ksize >= 41 && data.len() <= 16 + 8)
}

#[test]
fn index_leaves_that_lost_keys_are_refused_never_a_short_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let clean = store(&tmp.path().join("store"));
    let truth = answers(&tmp.path().join("clean"), &clean);
    let rows: Vec<usize> = truth.iter().map(|t| t.as_ref().unwrap().len()).collect();
    assert_eq!(rows, [1, 60, 540, 180, ITEMS, ITEMS, 100, 20], "{truth:?}");

    let mut bytes = clean.clone();
    let leaves = index_leaves(&bytes);
    assert!(leaves.len() > 10, "{} index leaves", leaves.len());
    cut(&mut bytes, &leaves);
    let got = answers(&tmp.path().join("cut"), &bytes);
    let refused = judge("index leaves cut", &got, &truth, QUERIES);
    // Every query walks a leaf that lost a key.
    assert_eq!(refused, QUERIES.len(), "{got:?}");
    // Opened for writing (the map then as large as the engine reserves), the same.
    let rw = tmp.path().join("cut-rw");
    std::fs::create_dir_all(&rw).unwrap();
    std::fs::write(rw.join("data.mdb"), &bytes).unwrap();
    let e = Engine::open(&rw, EngineOptions::default()).unwrap();
    let err = common::rt()
        .block_on(answer(&e, QUERIES[1].0, None))
        .unwrap_err();
    assert!(
        err.contains("leaf page") && err.contains("engine check"),
        "{err}"
    );
}

/// The path hash of `/x` as the index keys it (`index::path_hash`).
fn x_hash() -> [u8; 8] {
    xxhash_rust::xxh3::xxh3_64(b"/x").to_be_bytes()
}

/// The entries of `/x` (`rid · pp · path hash · number · epk · id hash`, 49 bytes) among `keys`.
fn x_entries(keys: Vec<Vec<u8>>) -> impl Iterator<Item = Vec<u8>> {
    keys.into_iter()
        .filter(|k| k.len() == 49 && k[8..16] == x_hash())
}

/// Whether entry `k` holds the number `n` (`index::encoding`: tag 04, the bits made ordered).
fn holds(k: &[u8], n: f64) -> bool {
    k[16] == 0x04 && k[17..25] == (n.to_bits() | 1 << 63).to_be_bytes()
}

#[test]
fn index_entries_lost_from_sound_pages_are_refused_never_a_short_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let clean = store(&tmp.path().join("store"));
    let truth = answers(&tmp.path().join("clean"), &clean);

    // Through LMDB itself (sound pages, counters untouched): every 97th entry of /x, and in each
    // physical partition the first entry of x = 7, of x = 2 and of x = 45, which the equality,
    // IN and range filters read.
    let (bytes, lost) = delete_keys(&tmp.path().join("lost"), &clean, "index", |keys| {
        let xs: Vec<Vec<u8>> = x_entries(keys).collect();
        let mut doomed: Vec<Vec<u8>> = xs.iter().step_by(97).cloned().collect();
        for n in [7.0, 2.0, 45.0] {
            for pp in [0u32, 1] {
                let hit = xs
                    .iter()
                    .find(|k| k[4..8] == pp.to_be_bytes() && holds(k, n));
                doomed.extend(hit.cloned());
            }
        }
        doomed.sort();
        doomed.dedup();
        doomed
    });
    assert!(lost > 20);
    let got = answers(&tmp.path().join("copy"), &bytes);
    judge("index entries lost", &got, &truth, QUERIES);
    // The filters compare each value's entries with its counter (`index::terms`); the ORDER BY
    // merges walk the whole order index and meet its counts. The routed equality compares its
    // logical partition's share of the value with that partition's counter: the entries lost
    // are other logical partitions', so it answers exactly (`judge` above).
    for at in [0, 1, 2, 3, 4, 5] {
        assert!(got[at].is_err(), "{}: {:?}", QUERIES[at].0, got[at]);
    }
    // Every value a filter reads: STARTSWITH, a range of strings, each value of IN.
    let (bytes_ids, _) = delete_keys(&tmp.path().join("lost-ids"), &clean, "index", |keys| {
        let id = xxhash_rust::xxh3::xxh3_64(b"/id").to_be_bytes();
        keys.into_iter()
            .filter(|k| {
                k.len() > 41 && k[8..16] == id && k.windows(6).any(|w| w == b"i123\x00\x01")
            })
            .take(1)
            .collect()
    });
    let e = open_copy(&tmp.path().join("copy-ids"), &bytes_ids);
    common::rt().block_on(async {
        for sql in [
            "SELECT VALUE c.id FROM c WHERE STARTSWITH(c.id, 'i12')",
            "SELECT VALUE c.id FROM c WHERE c.id >= 'i1' AND c.id < 'i2'",
            "SELECT VALUE c.id FROM c WHERE c.id IN ('i5', 'i123')",
            "SELECT VALUE COUNT(1) FROM c WHERE c.id = 'i123'",
        ] {
            let err = answer(&e, sql, None).await.unwrap_err();
            assert!(
                says_damaged(&err) && err.contains("index scan"),
                "{sql}: {err}"
            );
        }
        // A value whose entries are all there still answers.
        let rows = answer(&e, "SELECT VALUE c.id FROM c WHERE c.id = 'i124'", None)
            .await
            .unwrap();
        assert_eq!(rows, [json!("i124")]);
    });
}

/// A store written before the term counters (none, and no mark saying they are complete): read
/// as it is by a reader, given its counters when the writer opens it, then checked as any other.
#[test]
fn stores_without_term_counters_are_read_and_given_them() {
    let tmp = tempfile::tempdir().unwrap();
    let clean = store(&tmp.path().join("store"));
    let truth = answers(&tmp.path().join("clean"), &clean);
    // Term counters are `rid · FFFFFFFE · …` (per physical partition) and `rid · FFFFFFFD · …`
    // (per logical partition) index keys; the mark is `index/term-counts/2` in meta.
    let (old, n) = delete_keys(&tmp.path().join("old"), &clean, "index", |keys| {
        keys.into_iter()
            .filter(|k| {
                k.len() > 12
                    && (k[4..8] == [0xFF, 0xFF, 0xFF, 0xFE] || k[4..8] == [0xFF, 0xFF, 0xFF, 0xFD])
            })
            .collect()
    });
    assert!(n > 50, "{n} term counters");
    let (old, marks) = delete_keys(&tmp.path().join("old2"), &old, "meta", |keys| {
        keys.into_iter()
            .filter(|k| k.starts_with(b"index/term-counts"))
            .collect()
    });
    assert_eq!(marks, 1);
    assert_eq!(
        answers(&tmp.path().join("read"), &old),
        truth,
        "read as it is"
    );
    // The writer builds them; `check` then finds all in order, and a lost entry is refused.
    let dir = tmp.path().join("rw");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("data.mdb"), &old).unwrap();
    let e = Engine::open(&dir, EngineOptions::default()).unwrap();
    let reports = e.check().unwrap();
    assert!(reports.iter().all(|r| r.problems.is_empty()), "{reports:?}");
    drop(e);
    let built = std::fs::read(dir.join("data.mdb")).unwrap();
    assert_eq!(answers(&tmp.path().join("built"), &built), truth);
    let (lost, _) = delete_keys(&tmp.path().join("lost"), &built, "index", |keys| {
        x_entries(keys).filter(|k| holds(k, 7.0)).take(1).collect()
    });
    let got = answers(&tmp.path().join("lost-copy"), &lost);
    assert!(got[1].as_ref().is_err_and(|e| says_damaged(e)), "{got:?}");
    // And `check` names the counter that disagrees.
    let dir = tmp.path().join("lost-rw");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("data.mdb"), &lost).unwrap();
    let e = Engine::open(&dir, EngineOptions::default()).unwrap();
    let problems: Vec<String> = e
        .check()
        .unwrap()
        .into_iter()
        .flat_map(|r| r.problems)
        .collect();
    assert!(problems.iter().any(|p| p.contains("term")), "{problems:?}");
}

/// The counts are not taken for damage when the store moves between pages: writes and splits
/// between the pages of an ORDER BY merge and of a change feed read from the beginning.
#[test]
fn pages_across_writes_and_splits_are_not_taken_for_damage() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions {
            split_threshold_bytes: 64 * 1024,
            ..Default::default()
        });
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        let write = |i: usize| {
            let c = c.clone();
            async move {
                let doc = json!({"id": format!("i{i}"), "pk": format!("p{}", i % 97), "x": i, "pad": "p".repeat(200)});
                c.upsert_item(&doc, None, None).await.unwrap();
            }
        };
        for i in 0..300 {
            write(i).await;
        }
        let mut continuation = None;
        let mut feed = engine::ChangeFeedOptions {
            max_item_count: 40,
            ..Default::default()
        };
        for round in 0..12 {
            let page = c
                .query_items::<Value>(
                    "SELECT VALUE c.id FROM c ORDER BY c.x",
                    NO_PARAMS,
                    QueryOptions {
                        max_item_count: Some(40),
                        continuation: continuation.take(),
                        ..Default::default()
                    },
                )
                .await
                .unwrap();
            continuation = page.continuation;
            let changes = c.change_feed(&feed).await.unwrap();
            feed.start = engine::ChangeFeedStart::Continuation(changes.continuation);
            for i in 0..40 {
                write(300 + round * 40 + i).await;
            }
            if continuation.is_none() {
                break;
            }
        }
        assert!(c.feed_ranges().unwrap().len() > 2, "the container split");
        // The splits moved the term counters with their entries: filters answer, `check` agrees.
        let rows = c
            .query_items::<Value>("SELECT VALUE c.id FROM c WHERE c.x >= 100 AND c.x < 150", NO_PARAMS, QueryOptions::default())
            .await
            .unwrap();
        assert_eq!(rows.items.len(), 50);
        let reports = t.engine.check().unwrap();
        assert!(reports.iter().all(|r| r.problems.is_empty()), "{reports:?}");
    });
}
