//! Issue 36: long `IN` lists and `OR` chains of equalities on an indexed path are index unions
//! (`sql/run/union.rs`): they answer what a scan answers, and keep the per-value damage checks
//! of issue 34 (an entry or a term counter of a wanted value lost is refused, never a short
//! answer); an `OR` chain is evaluated on each candidate as the `IN` it means only where that
//! cannot change the answer (`plan::evaluated`).

mod common;

use std::path::Path;

use common::damage::{delete_keys, open_copy, says_damaged};
use engine::{ContainerProperties, Engine, EngineOptions, QueryOptions, NO_PARAMS};
use serde_json::{json, Value};

const ITEMS: usize = 3000;

/// 3 000 items in 2 physical partitions, `x` = `i % 50`, `v` of several types.
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
            let v = match i % 3 {
                0 => json!(i),
                1 => json!(format!("s{i}")),
                _ => json!([i]),
            };
            let doc = json!({"id": format!("i{i}"), "pk": format!("p{}", i % 30), "x": i % 50, "v": v, "n": i});
            c.create_item(&doc, None, None).await.unwrap();
        }
    });
    std::fs::read(dir.join("data.mdb")).unwrap()
}

/// Every page of `sql`, the numbers `n` it answered, sorted, and the last page's plan.
async fn answer(e: &Engine, sql: &str) -> Result<(Vec<u64>, String), String> {
    let c = e.database("d").container("c");
    let (mut out, mut continuation) = (Vec::new(), None);
    loop {
        let page = c
            .query_items::<Value>(
                sql,
                NO_PARAMS,
                QueryOptions {
                    max_item_count: Some(70),
                    continuation,
                    ..Default::default()
                },
            )
            .await
            .map_err(|e| e.to_string())?;
        out.extend(page.items.iter().map(|v| v.as_u64().unwrap()));
        match page.continuation {
            Some(next) => continuation = Some(next),
            None => {
                out.sort();
                return Ok((out, page.query_metrics.unwrap().plan));
            }
        }
    }
}

/// `c.x IN (…)` of 100 values (7 among them, the others absent: before, between and after the
/// stored ones).
fn x_in() -> String {
    let mut values: Vec<String> = (0..99).map(|i| format!("{}", 1000 + i * 7)).collect();
    values.extend(["-5".into(), "7".into(), "'7'".into(), "null".into()]);
    format!(
        "SELECT VALUE c.n FROM c WHERE c.x IN ({})",
        values.join(", ")
    )
}

/// The path hash of `/x` as the index keys it (`index::path_hash`).
fn x_hash() -> [u8; 8] {
    xxhash_rust::xxh3::xxh3_64(b"/x").to_be_bytes()
}

/// Whether index key part `at` holds the number `n` (`index::encoding`: tag 04, ordered bits).
fn holds(at: &[u8], n: f64) -> bool {
    at.len() >= 9 && at[0] == 0x04 && at[1..9] == (n.to_bits() | 1 << 63).to_be_bytes()
}

#[test]
fn a_long_in_list_and_an_or_chain_answer_as_a_scan_does() {
    let tmp = tempfile::tempdir().unwrap();
    let e = open_copy(&tmp.path().join("copy"), &store(&tmp.path().join("store")));
    common::rt().block_on(async {
        let (union, plan) = answer(&e, &x_in()).await.unwrap();
        assert!(plan.contains("index /x IN ("), "{plan}");
        let (scan, plan) = answer(&e, &x_in().replace("c.x IN", "(c.x ?? c.x) IN"))
            .await
            .unwrap();
        assert!(plan.contains("scan"), "{plan}");
        assert_eq!(union, scan);
        assert_eq!(union.len(), ITEMS / 50);
        // An OR chain over values of several types, some held only in arrays: as a scan, alone and beside another conjunct; under NOT it is not rewritten (undefined and
        // false differ there) and still answers as a scan.
        let terms: Vec<String> = (0..120)
            .map(|i| match i % 3 {
                0 => format!("c.v = {}", i * 25),
                1 => format!("c.v = 's{}'", i * 25 + 1),
                // The items holding these hold them in an array: no match.
                _ => format!("c.v = {}", i * 25 + 2),
            })
            .collect();
        let chain = terms.join(" OR ");
        for sql in [
            format!("SELECT VALUE c.n FROM c WHERE {chain}"),
            format!("SELECT VALUE c.n FROM c WHERE c.n > 1000 AND ({chain})"),
            format!("SELECT VALUE c.n FROM c WHERE NOT ({chain}) AND c.n < 200"),
        ] {
            let (got, _) = answer(&e, &sql).await.unwrap();
            let (want, plan) = answer(&e, &sql.replace("c.v =", "(c.v ?? c.v) ="))
                .await
                .unwrap();
            assert!(!plan.contains("/v"), "{plan}");
            assert_eq!(got, want, "{sql}");
            // Under NOT, an item whose `v` another type makes undefined is not kept.
            assert!(sql.contains("NOT") || !got.is_empty(), "{sql}");
        }
    });
}

#[test]
fn a_union_refuses_a_lost_entry_or_counter_of_a_value_it_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let clean = store(&tmp.path().join("store"));
    // The first entry of x = 7: the union reads that value.
    let (bytes, lost) = delete_keys(&tmp.path().join("entry"), &clean, "index", |keys| {
        keys.into_iter()
            .filter(|k| k.len() == 49 && k[8..16] == x_hash())
            .filter(|k| holds(&k[16..], 7.0))
            .take(1)
            .collect()
    });
    assert_eq!(lost, 1);
    let e = open_copy(&tmp.path().join("entry-copy"), &bytes);
    let err = common::rt().block_on(answer(&e, &x_in())).unwrap_err();
    assert!(says_damaged(&err) && err.contains("index scan"), "{err}");
    drop(e);
    // The counter of x = 7 in one physical partition (`rid · FFFFFFFE · pp · path hash · value`).
    let (bytes, lost) = delete_keys(&tmp.path().join("counter"), &clean, "index", |keys| {
        keys.into_iter()
            .filter(|k| {
                k.len() > 20
                    && k[4..8] == [0xFF, 0xFF, 0xFF, 0xFE]
                    && k[12..20] == x_hash()
                    && holds(&k[20..], 7.0)
            })
            .take(1)
            .collect()
    });
    assert_eq!(lost, 1);
    let e = open_copy(&tmp.path().join("counter-copy"), &bytes);
    let err = common::rt().block_on(answer(&e, &x_in())).unwrap_err();
    assert!(says_damaged(&err) && err.contains("index scan"), "{err}");
    drop(e);
    // An entry of a value the list does not hold (x = 8) is not read: the answer is exact.
    let (bytes, lost) = delete_keys(&tmp.path().join("other"), &clean, "index", |keys| {
        keys.into_iter()
            .filter(|k| k.len() == 49 && k[8..16] == x_hash() && holds(&k[16..], 8.0))
            .take(1)
            .collect()
    });
    assert_eq!(lost, 1);
    let e = open_copy(&tmp.path().join("other-copy"), &bytes);
    let (got, _) = common::rt().block_on(answer(&e, &x_in())).unwrap();
    assert_eq!(
        got,
        (0..ITEMS as u64)
            .filter(|n| n % 50 == 7)
            .collect::<Vec<_>>()
    );
}
