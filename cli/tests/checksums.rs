//! Issue 18 §1: every stored item carries a checksum (LMDB has none), so damage inside an item's
//! bytes is corrupt data naming the item, even when the bytes still parse as JSON; items stored
//! before checksums (format 1) still read, and gain one when next written. And what `check`
//! finds beyond the items: a misplaced item, damaged unique-key entries.

use std::path::Path;
use std::process::{Command, Output};

use engine::{ContainerProperties, Engine, EngineOptions};
use heed::types::Bytes;
use heed::CommitOrAbort;
use serde_json::{json, Value};

fn engine(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_engine"))
        .arg("--data")
        .arg(dir)
        .args(args)
        .output()
        .expect("run engine")
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Items a..e in test/c (partition key /pk), written by the engine.
fn write_items(dir: &Path) {
    let engine = Engine::open(dir, EngineOptions::default()).unwrap();
    rt().block_on(async {
        let db = engine.create_database("test").await.unwrap();
        let c = db
            .create_container(ContainerProperties::new("c", "/pk"))
            .await
            .unwrap();
        for id in ["a", "b", "c", "d", "e"] {
            c.create_item(
                &json!({"id": id, "pk": "p", "note": format!("SWAPME-{id}")}),
                None,
                None,
            )
            .await
            .unwrap();
        }
    });
}

/// Opens the engine, waiting while the previous one of this process is still letting go of the
/// directory (its last clone can be dropped on another thread a moment after its last use).
fn open_when_free(dir: &Path) -> Engine {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        match Engine::open(dir, EngineOptions::default()) {
            Err(engine::Error::Unavailable(_)) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            r => return r.unwrap(),
        }
    }
}

/// A table's rows, keys and values.
type Rows = Vec<(Vec<u8>, Vec<u8>)>;

/// Writes to the store's table `name` straight through LMDB (the engine closed): `f` gets a write
/// transaction (committed after it), the table, and the rows it held before.
fn write_table(
    dir: &Path,
    name: &str,
    f: impl FnOnce(&mut heed::RwTxn, heed::Database<Bytes, Bytes>, Rows),
) {
    // Safety: the only environment open on this directory in the process; no unsafe flags.
    let env = unsafe {
        heed::EnvOpenOptions::new()
            .max_dbs(8)
            .map_size(1 << 30)
            .open(dir)
            .unwrap()
    };
    let wtxn = env.write_txn().unwrap();
    let table = env
        .create_databases_and_commit(wtxn, |dbo, wtxn| -> heed::Result<_> {
            Ok(CommitOrAbort::<_, ()>::Commit(
                dbo.create_database::<Bytes, Bytes>(wtxn, Some(name))?,
            ))
        })
        .unwrap()
        .unwrap_commit();
    let mut wtxn = env.write_txn().unwrap();
    let rows: Rows = table
        .iter(&wtxn)
        .unwrap()
        .map(|e| e.map(|(k, v)| (k.to_vec(), v.to_vec())).unwrap())
        .collect();
    f(&mut wtxn, table, rows);
    wtxn.commit().unwrap();
    drop(env);
}

/// Rewrites every stored item with `f(value)`, straight through LMDB (the engine closed).
fn rewrite_items(dir: &Path, f: impl Fn(&[u8]) -> Vec<u8>) {
    write_table(dir, "docs", |wtxn, docs, all| {
        assert_eq!(all.len(), 5);
        for (k, v) in all {
            docs.put(wtxn, &k, &f(&v)).unwrap();
        }
    });
}

/// A format 2 value as stored before checksums: LSN without the flag, no checksum.
fn to_format_1(v: &[u8]) -> Vec<u8> {
    assert!(v[0] & 0x80 != 0, "the engine writes checksummed items");
    let mut old = v[..24].to_vec();
    old[0] &= 0x7f;
    old.extend_from_slice(&v[32..]);
    old
}

/// A byte of an item's JSON changed, still JSON ('S' of SWAPME becomes 'R').
fn swap(v: &[u8], id: &str) -> Vec<u8> {
    let needle = format!("SWAPME-{id}");
    let mut v = v.to_vec();
    if let Some(at) = v.windows(needle.len()).position(|w| w == needle.as_bytes()) {
        v[at] = b'R';
    }
    v
}

#[test]
fn damage_that_still_parses_is_found_by_the_checksum() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    write_items(&dir);
    rewrite_items(&dir, |v| swap(v, "b"));

    let o = engine(
        &dir,
        &["get", "--db", "test", "--container", "c", "--pk", "p", "b"],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error (500): corrupt data: item 'b' in container 'test/c'"),
        "{err}"
    );
    let o = engine(
        &dir,
        &["get", "--db", "test", "--container", "c", "--pk", "p", "a"],
    );
    assert!(o.status.success(), "the others read");

    let o = engine(&dir, &["export", "--db", "test", "--container", "c"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1));
    assert!(err.contains("item 'b' in container 'test/c'"), "{err}");
    let o = engine(
        &dir,
        &["export", "--db", "test", "--container", "c", "--pk", "p"],
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("item 'b'"));
    let o = engine(
        &dir,
        &[
            "query",
            "--db",
            "test",
            "--container",
            "c",
            "SELECT * FROM c",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("corrupt data: item 'b' in container 'test/c'"),
        "a query names the damaged item: {err}"
    );

    let o = engine(&dir, &["check"]);
    assert!(!o.status.success());
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("item 'b'") && stdout.contains("do not match their checksum"),
        "{stdout}"
    );

    // A write does not carry the damaged bytes into a new version.
    let engine = open_when_free(&dir);
    let c = engine.database("test").container("c");
    let e = rt()
        .block_on(c.patch_item::<Value>(
            "b",
            "p",
            &[engine::PatchOperation::set("/n", json!(1))],
            None,
        ))
        .unwrap_err();
    assert_eq!(e.status_code(), 500, "{e}");
    assert!(e.to_string().contains("item 'b'"), "{e}");
}

#[test]
fn items_stored_before_checksums_still_read_and_gain_one_when_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    write_items(&dir);
    rewrite_items(&dir, |v| {
        let old = to_format_1(v);
        // One old item whose JSON was damaged: no checksum to tell, but it does not parse.
        if old.windows(8).any(|w| w == b"SWAPME-e") {
            let mut bad = old.clone();
            bad[24] = b'#';
            return bad;
        }
        old
    });

    let engine = open_when_free(&dir);
    let c = engine.database("test").container("c");
    rt().block_on(async {
        let r = c.read_item::<Value>("a", "p", None).await.unwrap();
        assert_eq!(r.resource.unwrap()["note"], "SWAPME-a");
        // Before, a 400 "bad request".
        let e = c.read_item::<Value>("e", "p", None).await.unwrap_err();
        assert_eq!(e.status_code(), 500, "{e}");
        assert!(
            e.to_string()
                .contains("corrupt data: item 'e' in container 'test/c'"),
            "{e}"
        );
        c.upsert_item(&json!({"id": "a", "pk": "p", "note": "new"}), None, None)
            .await
            .unwrap();
        c.delete_item("e", "p", None).await.unwrap_err();
    });
    let reports = engine.check().unwrap();
    assert_eq!(reports[0].items, 5);
    // Item e (and the index entries it can no longer account for); nothing about the others.
    assert!(
        reports[0].problems[0].contains("item 'e'"),
        "{:?}",
        reports[0].problems
    );
    assert!(!reports[0].problems.iter().any(|p| p.contains("item 'a'")));
    drop((c, engine));

    // The rewritten item has a checksum again; the untouched old ones still have none.
    rewrite_items(&dir, |v| {
        let checksummed = v[0] & 0x80 != 0;
        let rewritten = v.windows(5).any(|w| w == b"\"new\"");
        assert_eq!(checksummed, rewritten, "{}", String::from_utf8_lossy(v));
        v.to_vec()
    });
}

/// An item whose partition key does not give the EPK it is stored under (an old item, without
/// a checksum, whose key value was changed in place) is one no routed request finds: `check`
/// names it.
#[test]
fn an_item_stored_under_another_partition_key_is_reported_misplaced() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    write_items(&dir);
    let o = engine(&dir, &["check"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    rewrite_items(&dir, |v| {
        let mut old = to_format_1(v);
        if old.windows(8).any(|w| w == b"SWAPME-c") {
            let at = old
                .windows(9)
                .position(|w| w == b"\"pk\":\"p\"")
                .or_else(|| old.windows(8).position(|w| w == b"\"pk\":\"p\""))
                .expect("the partition key in the JSON");
            old[at + 6] = b'q';
        }
        old
    });
    let o = engine(&dir, &["check"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(!o.status.success(), "{stdout}");
    assert!(
        stdout.contains("item 'c' (key") && stdout.contains("is stored under another EPK"),
        "{stdout}"
    );
    assert!(!stdout.contains("item 'a'"), "{stdout}");
}

/// A unique key's entries, damaged in the two ways that matter: one removed (a second item with
/// that value would be accepted) and one pointed at another live item (that item's writes of the
/// value would be refused). `check` passes before and names both after.
#[test]
fn damaged_unique_key_entries_are_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    {
        let engine = Engine::open(&dir, EngineOptions::default()).unwrap();
        rt().block_on(async {
            let db = engine.create_database("test").await.unwrap();
            let c = db
                .create_container(ContainerProperties::new("u", "/pk").with_unique_key(&["/email"]))
                .await
                .unwrap();
            for (id, email) in [
                ("a", "x@example.com"),
                ("b", "y@example.com"),
                ("c", "z@example.com"),
            ] {
                c.create_item(&json!({"id": id, "pk": "p", "email": email}), None, None)
                    .await
                    .unwrap();
            }
        });
    }
    let o = engine(&dir, &["check"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    write_table(&dir, "unique", |wtxn, table, entries| {
        assert_eq!(entries.len(), 3);
        for (k, holder) in entries {
            match holder.as_slice() {
                b"a" => assert!(table.delete(wtxn, &k).unwrap()),
                b"b" => table.put(wtxn, &k, b"c").unwrap(),
                _ => {}
            }
        }
    });
    let o = engine(&dir, &["check"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(!o.status.success(), "{stdout}");
    assert!(
        stdout.contains("item 'a' has no unique-key entry for its value at /email"),
        "{stdout}"
    );
    assert!(
        stdout.contains("names item 'c', which does not hold"),
        "{stdout}"
    );
    assert!(
        stdout.contains("item 'b' has no unique-key entry"),
        "{stdout}"
    );
    assert!(!stdout.contains("item 'c' has no"), "{stdout}");
}

/// Creates test/`props` holding `docs` (the engine closed after).
fn create_items(dir: &Path, props: ContainerProperties, docs: &[Value]) {
    let engine = Engine::open(dir, EngineOptions::default()).unwrap();
    rt().block_on(async {
        let db = engine.create_database_if_not_exists("test").await.unwrap();
        let c = db.create_container(props).await.unwrap();
        for d in docs {
            c.create_item(d, None, None).await.unwrap();
        }
    });
}

fn users(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| json!({"id": format!("u{i}"), "pk": "p", "email": format!("{i}@example.com")}))
        .collect()
}

/// Issue 34: unique-key entries under a container id no container has are reported; with the
/// `unique` table dropped, `check` says so (it used to read the index in its place and report
/// its entries as "cut short").
#[test]
fn unique_entries_of_no_container_and_a_missing_unique_table_are_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    create_items(
        &dir,
        ContainerProperties::new("u", "/pk").with_unique_key(&["/email"]),
        &users(3),
    );
    let o = engine(&dir, &["check"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    write_table(&dir, "unique", |wtxn, table, _| {
        let mut k = vec![0, 0, 0x77, 0x77];
        k.extend_from_slice(&[7; 16]);
        k.push(0);
        k.extend_from_slice(&[9; 16]);
        table.put(wtxn, &k, b"ghost").unwrap();
    });
    let o = engine(&dir, &["check"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(!o.status.success(), "{stdout}");
    assert!(
        stdout.contains(
            "1 unique-key entries are stored under container id 30583, which no container has"
        ),
        "{stdout}"
    );
    assert!(
        stderr.contains(
            "check found 1 problem in 1 report: 1 unique-key entries of an unknown container"
        ),
        "{stderr}"
    );
    write_table(&dir, "unique", |wtxn, table, _| {
        // Safety: the table's handle is not used after.
        unsafe { table.remove(wtxn).unwrap() };
    });
    let o = engine(&dir, &["check"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(!o.status.success(), "{stdout}");
    assert!(
        stdout.contains("the data file has no `unique` table"),
        "{stdout}"
    );
    assert!(!stdout.contains("cut short"), "{stdout}");
    assert!(!stdout.contains("names item"), "{stdout}");
}

/// Issue 34: with more problems of a kind than are listed, the summary and each report give the
/// true totals per kind first (it said "check found 22 problems" for 5 000 missing entries).
#[test]
fn the_summary_gives_the_true_totals_per_kind() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    create_items(
        &dir,
        ContainerProperties::new("u", "/pk").with_unique_key(&["/email"]),
        &users(30),
    );
    write_table(&dir, "unique", |wtxn, table, entries| {
        assert_eq!(entries.len(), 30);
        for (k, _) in entries.iter().take(25) {
            assert!(table.delete(wtxn, k).unwrap());
        }
    });
    let o = engine(&dir, &["check"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(!o.status.success(), "{stdout}");
    assert!(
        stderr.contains("check found 25 problems in 1 report: 25 missing unique-key entry"),
        "{stderr}"
    );
    let report: Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(
        report["problem_counts"]["missing unique-key entry"], 25,
        "{report}"
    );
    // The counts come before the list.
    let line = stdout.lines().next().unwrap();
    assert!(
        line.find("problem_counts") < line.find("\"problems\""),
        "{line}"
    );
}

/// Issue 34: a damaged item with a long id is named readably: its id cut and escaped, its key's
/// hex cut (a 250-byte id made a line of ~850 bytes: the id, then the whole key in hex; a
/// damaged key of 511 bytes, 1.3 KB).
#[test]
fn a_damaged_item_is_named_in_a_readable_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let long = format!("{}\u{7}", "x".repeat(249));
    create_items(
        &dir,
        ContainerProperties::new("c", "/pk"),
        &[json!({"id": long, "pk": "p", "note": "SWAPME-a"})],
    );
    write_table(&dir, "docs", |wtxn, docs, all| {
        for (k, v) in all {
            docs.put(wtxn, &k, &swap(&v, "a")).unwrap();
        }
    });
    let o = engine(&dir, &["check"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(!o.status.success(), "{stdout}");
    let report: Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    let problem = report["problems"][0].as_str().unwrap();
    assert!(problem.contains("do not match their checksum"), "{problem}");
    assert!(problem.contains("… (250 bytes)"), "{problem}");
    assert!(!problem.contains('\u{7}'), "{problem}");
    assert!(problem.len() < 250, "{} bytes: {problem}", problem.len());
}
