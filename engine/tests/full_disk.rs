//! Issue 18 §1: a write that fails because the disk is full is always 507 "insufficient storage"
//! naming the directory (before, some were 503), and every acknowledged write survives.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use engine::{ContainerProperties, Engine, EngineOptions};
use serde_json::{json, Value};

/// Unmounts the small file system when the test ends, failing or not.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

fn mount_small_tmpfs(at: &Path) -> Option<Mounted> {
    std::fs::create_dir_all(at).unwrap();
    let ok = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=3m", "tmpfs"])
        .arg(at)
        .status()
        .is_ok_and(|s| s.success());
    ok.then(|| Mounted(at.to_path_buf()))
}

#[test]
fn a_full_disk_is_507_naming_the_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let small = tmp.path().join("small");
    let Some(_mounted) = mount_small_tmpfs(&small) else {
        eprintln!("cannot mount a small tmpfs here (not root?): the mapping is covered by the storage unit test a_full_disk_is_always_507");
        return;
    };
    let dir = small.join("data");
    let body = "x".repeat(40_000);
    let rt = common::rt();
    let writer = Engine::open(&dir, EngineOptions::default()).unwrap();
    let (acknowledged, errors) = rt.block_on(async {
        let db = writer.create_database("d").await.unwrap();
        let c = db
            .create_container(ContainerProperties::new("c", "/pk"))
            .await
            .unwrap();
        let mut acknowledged = Vec::new();
        let mut errors = Vec::new();
        for round in 0..40 {
            let mut set = tokio::task::JoinSet::new();
            for k in 0..8 {
                let (c, body) = (c.clone(), body.clone());
                let id = format!("i{round}-{k}");
                set.spawn(async move {
                    let r = c
                        .create_item(&json!({"id": id, "pk": id, "body": body}), None, None)
                        .await;
                    (id, r)
                });
            }
            while let Some(r) = set.join_next().await {
                match r.unwrap() {
                    (id, Ok(_)) => acknowledged.push(id),
                    (_, Err(e)) => errors.push(e),
                }
            }
            if errors.len() >= 16 {
                break;
            }
        }
        (acknowledged, errors)
    });
    assert!(!errors.is_empty(), "3 MB filled up");
    assert!(!acknowledged.is_empty());
    for e in &errors {
        eprintln!("{e}");
        assert_eq!(e.status_code(), 507, "{e}");
        assert!(e.to_string().contains(&dir.display().to_string()), "{e}");
    }
    // Space freed (the file system grown): the same engine writes again, no restart.
    let grown = Command::new("mount")
        .args(["-o", "remount,size=64m"])
        .arg(&small)
        .status()
        .unwrap();
    assert!(grown.success());
    let c = writer.database("d").container("c");
    rt.block_on(c.create_item(&json!({"id": "after", "pk": "after"}), None, None))
        .unwrap();
    let mut acknowledged = acknowledged;
    acknowledged.push("after".into());
    drop((c, writer));
    // Every acknowledged write is there after a reopen.
    let engine = Engine::open(
        &dir,
        EngineOptions {
            storage: engine::StorageOptions {
                read_only: true,
                ..Default::default()
            },
            ..Default::default()
        },
    )
    .unwrap();
    let c = engine.database("d").container("c");
    rt.block_on(async {
        for id in &acknowledged {
            let r = c.read_item::<Value>(id, id.as_str(), None).await.unwrap();
            assert_eq!(r.resource.unwrap()["id"], id.as_str());
        }
    });
}
