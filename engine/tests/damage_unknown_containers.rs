//! Issue 34: `check` catches keys of containers that do not exist, in every table keyed by
//! container (items, logical partitions, both change feeds, the index, expiries; unique-key
//! entries have their own test in cli/tests/checksums.rs), and a dropped container leaves none
//! behind (its index entries were left: a store that ever dropped an indexed container grew
//! for ever).

mod common;

use engine::{ContainerProperties, Engine, EngineOptions};
use serde_json::json;

/// Puts `keys` into table `table` of the store in `dir` through LMDB itself.
fn put_keys(dir: &std::path::Path, table: &str, keys: &[Vec<u8>]) {
    let (env, db) = common::damage::raw_table(dir, table);
    let mut wtxn = env.write_txn().unwrap();
    for k in keys {
        db.put(&mut wtxn, k, b"x").unwrap();
    }
    wtxn.commit().unwrap();
}

fn problems(e: &Engine) -> Vec<engine::ContainerReport> {
    e.check()
        .unwrap()
        .into_iter()
        .filter(|r| !r.problems.is_empty())
        .collect()
}

#[test]
fn keys_of_no_container_are_reported_and_a_dropped_container_leaves_none() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    common::rt().block_on(async {
        let e = Engine::open(&dir, EngineOptions::default()).unwrap();
        let db = e.create_database_if_not_exists("d").await.unwrap();
        for name in ["kept", "dropped"] {
            let c = db
                .create_container(ContainerProperties::new(name, "/pk"))
                .await
                .unwrap();
            for i in 0..50 {
                let doc = json!({"id": format!("i{i}"), "pk": format!("p{}", i % 5), "x": i, "ttl": 3600});
                c.create_item(&doc, None, None).await.unwrap();
            }
        }
        db.delete_container("dropped").await.unwrap();
        // Nothing of the dropped container is left for `check` to find.
        assert!(problems(&e).is_empty(), "{:?}", problems(&e));
    });

    // Keys under container id 0x00ABCDEF, which no container has, in two tables (items under
    // one are refused when the store opens).
    let rid = 0x00AB_CDEFu32.to_be_bytes();
    let key = |n: u8| [&rid[..], &[n; 30][..]].concat();
    put_keys(&dir, "expiry", &[key(1), key(2)]);
    put_keys(&dir, "index", &[key(3), key(4), key(5)]);
    let e = Engine::open(&dir, EngineOptions::default()).unwrap();
    let found = problems(&e);
    assert_eq!(found.len(), 1, "{found:?}");
    let report = &found[0];
    assert_eq!(report.container, "(no container)");
    assert_eq!(report.problem_counts.get("keys of no container"), Some(&2));
    let id = u32::from_be_bytes(rid);
    for (n, table) in [(2, "expiry"), (3, "index")] {
        let said = format!("{n} {table} keys are stored under container id {id}");
        assert!(
            report.problems.iter().any(|p| p.contains(&said)),
            "{said}: {:?}",
            report.problems
        );
    }
}
