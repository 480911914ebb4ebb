//! Unique key policies (issue 23): inside one logical partition, no two items share the values
//! of a unique key — on every write path, under concurrency, across a restart.

mod common;

use engine::{
    ContainerClient, ContainerProperties, EngineOptions, Error, JavaScript, PatchOperation,
    TransactionalBatch,
};
use serde_json::{json, Value};

fn users() -> ContainerProperties {
    ContainerProperties::new("users", "/tenant")
        .with_unique_key(&["/email"])
        .with_unique_key(&["/first", "/last"])
}

async fn create(c: &ContainerClient, doc: Value) -> engine::Result<()> {
    c.create_item(&doc, None, None).await.map(|_| ())
}

fn is_unique_clash(r: engine::Result<()>) -> bool {
    matches!(r, Err(Error::UniqueKey { .. }))
}

#[test]
fn every_write_path_refuses_a_second_item_with_the_same_values() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(&t, users()).await;
        create(&c, json!({"id": "a", "tenant": "t1", "email": "a@x.org", "first": "Ann", "last": "Lee"}))
            .await
            .unwrap();
        // Create: the same email in the same tenant.
        let e = c
            .create_item(&json!({"id": "b", "tenant": "t1", "email": "a@x.org"}), None, None)
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 409);
        assert!(e.to_string().contains("/email"), "{e}");
        // Another logical partition may hold the same values.
        create(&c, json!({"id": "a", "tenant": "t2", "email": "a@x.org", "first": "Ann", "last": "Lee"}))
            .await
            .unwrap();
        // A composite key clashes only when all its paths match.
        create(&c, json!({"id": "c", "tenant": "t1", "email": "c@x.org", "first": "Ann", "last": "Ray"}))
            .await
            .unwrap();
        let e = c
            .create_item(&json!({"id": "d", "tenant": "t1", "email": "d@x.org", "first": "Ann", "last": "Lee"}), None, None)
            .await
            .unwrap_err();
        assert!(e.to_string().contains("/first, /last"), "{e}");
        // Replace, upsert and patch into a held value; replacing an item with its own values is fine.
        let e = c
            .replace_item(&json!({"id": "c", "tenant": "t1", "email": "a@x.org"}), "c", None, None)
            .await;
        assert!(is_unique_clash(e.map(|_| ())));
        c.replace_item(&json!({"id": "c", "tenant": "t1", "email": "c@x.org", "first": "Ann", "last": "Ray", "v": 2}), "c", None, None)
            .await
            .unwrap();
        let e = c
            .upsert_item(&json!({"id": "c", "tenant": "t1", "email": "a@x.org"}), None, None)
            .await;
        assert!(is_unique_clash(e.map(|_| ())));
        let e = c
            .patch_item::<Value>("c", "t1", &[PatchOperation::set("/email", json!("a@x.org"))], None)
            .await;
        assert!(is_unique_clash(e.map(|_| ())));
        // A missing path is a value too: the second item without /email clashes.
        create(&c, json!({"id": "n1", "tenant": "t3"})).await.unwrap();
        assert!(is_unique_clash(create(&c, json!({"id": "n2", "tenant": "t3", "first": "x"})).await));
        // A delete frees the values.
        c.delete_item("a", "t1", None).await.unwrap();
        create(&c, json!({"id": "b", "tenant": "t1", "email": "a@x.org", "first": "Ann", "last": "Lee"}))
            .await
            .unwrap();
        // A batch with a clashing operation fails whole.
        let batch = TransactionalBatch::new("t1")
            .create_item(&json!({"id": "e", "tenant": "t1", "email": "e@x.org"}))
            .create_item(&json!({"id": "f", "tenant": "t1", "email": "a@x.org"}));
        let r = c.execute_batch(batch).await.unwrap();
        assert!(!r.is_success());
        assert!(c.read_item::<Value>("e", "t1", None).await.is_err(), "rolled back");
        // A JavaScript procedure's write too, rethrown as the 409 it is.
        c.scripts()
            .upsert_stored_procedure(
                "add",
                JavaScript::new(
                    "function add(doc) { var c = getContext().getCollection(); c.createDocument(c.getSelfLink(), doc, function (err) { if (err) throw err; }); }",
                )
                .unwrap(),
            )
            .unwrap();
        let e = c
            .scripts()
            .execute_stored_procedure::<Value>("add", "t1", &[json!({"id": "g", "tenant": "t1", "email": "a@x.org"})])
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 409, "{e}");
    });
}

#[test]
fn fifty_concurrent_creates_of_one_value_make_one_item_and_it_survives_a_restart() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(&t, users()).await;
        let mut set = tokio::task::JoinSet::new();
        for i in 0..50 {
            let c = c.clone();
            set.spawn(async move {
                create(&c, json!({"id": format!("u{i}"), "tenant": "t", "email": "same@x.org", "first": i})).await
            });
        }
        let mut ok = 0;
        while let Some(r) = set.join_next().await {
            match r.unwrap() {
                Ok(()) => ok += 1,
                Err(Error::UniqueKey { .. }) => {}
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(ok, 1);
    });
    // Reopened: the policy and its entries are in the data files.
    let dir = t.dir;
    drop(t.engine);
    let engine = engine::Engine::open(dir.path(), EngineOptions::default()).unwrap();
    rt.block_on(async {
        let c = engine.database("test").container("users");
        let e = create(
            &c,
            json!({"id": "late", "tenant": "t", "email": "same@x.org"}),
        )
        .await;
        assert!(is_unique_clash(e));
        let n = c
            .query_all::<Value>(
                "SELECT VALUE COUNT(1) FROM c",
                engine::NO_PARAMS,
                Default::default(),
            )
            .await
            .unwrap();
        assert_eq!(n.items, vec![json!(1)]);
    });
}

#[test]
fn a_policy_with_a_bad_path_is_refused() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let db = t
            .engine
            .create_database_if_not_exists("test")
            .await
            .unwrap();
        let e = db
            .create_container(ContainerProperties::new("c", "/pk").with_unique_key(&["email"]))
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 400, "{e}");
    });
}

const CHILD_ENV: &str = "ENGINE_UNIQUE_CRASH_DIR";

/// The child of the crash test: 16 writers create items whose emails clash often, printing each
/// acknowledged create, until killed.
#[test]
fn unique_crash_child() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return;
    };
    let rt = common::rt();
    rt.block_on(async move {
        let engine = engine::Engine::open(&dir, EngineOptions::default()).unwrap();
        let db = engine.create_database_if_not_exists("test").await.unwrap();
        let c = db.create_container_if_not_exists(users()).await.unwrap();
        let run = std::process::id();
        let mut tasks = Vec::new();
        for w in 0..16u64 {
            let c = c.clone();
            tasks.push(tokio::spawn(async move {
                for i in 0u64.. {
                    let (id, tenant) = (format!("{run}-{w}-{i}"), format!("t{}", i % 4));
                    let email = format!("e{}@x.org", (i * 7 + w) % 60);
                    let doc = json!({"id": id, "tenant": tenant, "email": email, "first": id});
                    match c.create_item(&doc, None, None).await {
                        Ok(_) => println!("ack {tenant} {email} {id}"),
                        Err(Error::UniqueKey { .. }) => {}
                        Err(e) => panic!("{e}"),
                    }
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
    });
}

extern "C" {
    fn kill(pid: i32, sig: i32) -> i32;
}

#[test]
fn unique_values_hold_when_the_process_is_killed_under_load() {
    if std::env::var(CHILD_ENV).is_ok() {
        return;
    }
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let mut acked = Vec::new();
    for wanted in [5usize, 120, 40] {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "unique_crash_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, dir.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut seen = 0;
        while seen < wanted {
            let Some(Ok(line)) = lines.next() else { break };
            if let Some(rest) = line.strip_prefix("ack ") {
                acked.push(rest.to_owned());
                seen += 1;
            }
        }
        // SIGKILL: no destructor, no flush, no chance to finish a commit.
        unsafe { kill(child.id() as i32, 9) };
        acked.extend(
            lines
                .map_while(Result::ok)
                .filter_map(|l| l.strip_prefix("ack ").map(str::to_owned)),
        );
        let _ = child.wait();
    }
    assert!(acked.len() >= 100, "{} acknowledged", acked.len());
    let engine = engine::Engine::open(dir.path(), EngineOptions::default()).unwrap();
    common::rt().block_on(async {
        let c = engine.database("test").container("users");
        let all = c
            .query_all::<Value>(
                "SELECT c.id, c.tenant, c.email FROM c",
                engine::NO_PARAMS,
                Default::default(),
            )
            .await
            .unwrap()
            .items;
        // One item per (tenant, email), and every acknowledged create is one of them.
        let mut seen = std::collections::HashSet::new();
        for d in &all {
            let key = (d["tenant"].to_string(), d["email"].to_string());
            assert!(seen.insert(key.clone()), "two items hold {key:?}");
        }
        let ids: std::collections::HashSet<String> = all
            .iter()
            .map(|d| d["id"].as_str().unwrap().to_owned())
            .collect();
        for a in &acked {
            let id = a.rsplit(' ').next().unwrap();
            assert!(ids.contains(id), "acknowledged {a} is missing");
        }
        // After the restart the entries still refuse a clash.
        let (tenant, email) = (
            all[0]["tenant"].as_str().unwrap(),
            all[0]["email"].as_str().unwrap(),
        );
        let e = create(&c, json!({"id": "late", "tenant": tenant, "email": email})).await;
        assert!(is_unique_clash(e));
    });
}
