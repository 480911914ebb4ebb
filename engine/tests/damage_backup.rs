//! Issue 34: `backup` verifies what it copies. LMDB's compacting copy walks the B-trees as they
//! are, so damage on sound pages (an index entry, a unique-key entry or a counter lost) copies
//! into a sound file: the backup must fail naming the source, and leave no copy behind.

mod common;

use std::path::Path;

use common::damage::{delete_keys, open_copy};
use engine::{ContainerProperties, Engine, EngineOptions};
use serde_json::json;

fn store(dir: &Path) -> Vec<u8> {
    common::rt().block_on(async {
        let e = Engine::open(dir, EngineOptions::default()).unwrap();
        let db = e.create_database_if_not_exists("d").await.unwrap();
        let c = db
            .create_container(ContainerProperties::new("c", "/pk").with_unique_key(&["/email"]))
            .await
            .unwrap();
        for i in 0..300 {
            let doc = json!({"id": format!("i{i}"), "pk": format!("p{}", i % 7), "email": format!("u{i}@x"), "x": i % 9});
            c.create_item(&doc, None, None).await.unwrap();
        }
    });
    std::fs::read(dir.join("data.mdb")).unwrap()
}

/// What is lost, from which table, and which of its keys (the sixth picked).
type Loss = (&'static str, &'static str, fn(&[u8]) -> bool);

/// Backs up a read-only copy of `bytes` into `out`.
fn backup(dir: &Path, bytes: &[u8], out: &Path) -> Result<u64, String> {
    let e = open_copy(dir, bytes);
    e.backup(out).map_err(|e| e.to_string())
}

#[test]
fn a_backup_that_copied_damage_on_sound_pages_fails_and_leaves_no_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let clean = store(&tmp.path().join("store"));
    let out = tmp.path().join("out-clean");
    assert!(backup(&tmp.path().join("clean"), &clean, &out).unwrap() > 0);
    assert!(out.join("data.mdb").exists());

    // Each loss alone, deleted through LMDB itself: one index entry, one unique-key entry, and
    // one term counter of a logical partition.
    let losses: [Loss; 3] = [
        ("index entry", "index", |k| {
            k.len() >= 41 && k[4..8] == [0, 0, 0, 0]
        }),
        ("unique entry", "unique", |_| true),
        ("logical partition term counter", "index", |k| {
            k.len() > 24 && k[4..8] == [0xFF, 0xFF, 0xFF, 0xFD]
        }),
    ];
    for (what, table, pick) in losses {
        let dir = tmp.path().join(what.replace(' ', "-"));
        let (bytes, n) = delete_keys(&dir.join("lost"), &clean, table, |keys| {
            keys.into_iter()
                .filter(|k| pick(k))
                .skip(5)
                .take(1)
                .collect()
        });
        assert_eq!(n, 1, "{what}");
        let out = dir.join("out");
        let err = backup(&dir.join("copy"), &bytes, &out).unwrap_err();
        assert!(
            err.contains("the backup copied damage") && err.contains("engine check"),
            "{what}: {err}"
        );
        assert!(err.contains("data.mdb"), "{what}: names the source: {err}");
        assert!(!out.join("data.mdb").exists(), "{what}: no copy left");
        assert!(
            !Engine::backup_staging(&out).join("data.mdb").exists(),
            "{what}: no partial copy left"
        );
    }
}
