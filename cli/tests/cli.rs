//! The `engine` command line, run as a real process on real files.

use std::process::{Command, Output};

use serde_json::{json, Value};

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(f)
}

fn engine(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_engine"))
        .arg("--data")
        .arg(dir)
        .args(args)
        .output()
        .expect("run engine")
}

fn stdout_json(o: &Output) -> Value {
    assert!(
        o.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("stdout is JSON")
}

#[test]
fn import_get_export_stats_and_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let lines: String = (0..300)
        .map(|i| {
            format!(
                "{{\"id\":\"p{i}\",\"categoryId\":\"cat{}\",\"price\":{i}}}\n",
                i % 9
            )
        })
        .collect();
    let jsonl = tmp.path().join("products.jsonl");
    std::fs::write(&jsonl, lines).unwrap();
    let array = tmp.path().join("customers.json");
    std::fs::write(
        &array,
        r#"[{"id":"a","customerId":7},{"id":"b","customerId":"7"},{"id":"c"}]"#,
    )
    .unwrap();

    let o = engine(
        &data,
        &[
            "import",
            "--db",
            "shop",
            "--container",
            "product",
            "--partition-key",
            "/categoryId",
            jsonl.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("\"imported\":300"));
    let o = engine(
        &data,
        &[
            "import",
            "--db",
            "shop",
            "--container",
            "customer",
            "--partition-key",
            "/customerId",
            array.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // --pk is JSON when it parses as JSON: 7 is the number, "7" (quoted) the string.
    let o = engine(
        &data,
        &[
            "get",
            "--db",
            "shop",
            "--container",
            "customer",
            "--pk",
            "7",
            "a",
        ],
    );
    assert_eq!(stdout_json(&o)["id"], "a");
    let stderr: Value = serde_json::from_slice(&o.stderr).unwrap();
    assert_eq!(stderr["requestCharge"], 1.0);
    let o = engine(
        &data,
        &[
            "get",
            "--db",
            "shop",
            "--container",
            "customer",
            "--pk",
            "\"7\"",
            "b",
        ],
    );
    assert_eq!(stdout_json(&o)["id"], "b");
    let o = engine(
        &data,
        &[
            "get",
            "--db",
            "shop",
            "--container",
            "customer",
            "--pk-none",
            "c",
        ],
    );
    assert_eq!(stdout_json(&o)["id"], "c");
    let o = engine(
        &data,
        &[
            "get",
            "--db",
            "shop",
            "--container",
            "customer",
            "--pk",
            "7",
            "b",
        ],
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("404"));

    let o = engine(&data, &["export", "--db", "shop", "--container", "product"]);
    assert!(o.status.success());
    let exported: Vec<Value> = o
        .stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(exported.len(), 300);
    let o = engine(
        &data,
        &[
            "export",
            "--db",
            "shop",
            "--container",
            "product",
            "--pk",
            "cat3",
            "--array",
        ],
    );
    assert_eq!(stdout_json(&o).as_array().unwrap().len(), 33);

    let stats = stdout_json(&engine(
        &data,
        &["stats", "--db", "shop", "--container", "product"],
    ));
    assert_eq!(stats["items"], 300);
    assert_eq!(stats["partitions"].as_array().unwrap().len(), 4);

    // Queries: every page merged, parameters as JSON, syntax errors with their position.
    let o = engine(
        &data,
        &[
            "query",
            "--db",
            "shop",
            "--container",
            "product",
            "--max-item-count",
            "7",
            "--param",
            "@c=\"cat3\"",
            "SELECT VALUE p.price FROM p WHERE p.categoryId = @c ORDER BY p.price DESC",
        ],
    );
    let prices = stdout_json(&o);
    assert_eq!(prices.as_array().unwrap().len(), 33);
    assert_eq!(prices[0], 291);
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .matches("\"page\"")
            .count()
            >= 5,
        "one stderr line per page"
    );
    let o = engine(
        &data,
        &[
            "query",
            "--db",
            "shop",
            "--container",
            "product",
            "--pk",
            "\"cat3\"",
            "SELECT VALUE COUNT(1) FROM p",
        ],
    );
    assert_eq!(stdout_json(&o), json!([33]));
    let o = engine(
        &data,
        &[
            "query",
            "--db",
            "shop",
            "--container",
            "product",
            "SELECT * FROM p WHERE",
        ],
    );
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("line 1, column 22"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    // Errors: a missing container without --partition-key, bad JSON lines, unknown containers.
    let o = engine(
        &data,
        &[
            "import",
            "--db",
            "shop",
            "--container",
            "new",
            jsonl.to_str().unwrap(),
        ],
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--partition-key"));
    let bad = tmp.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"id\":\"x\",\"categoryId\":\"c\"}\n{not json\n").unwrap();
    let o = engine(
        &data,
        &[
            "import",
            "--db",
            "shop",
            "--container",
            "product",
            bad.to_str().unwrap(),
        ],
    );
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("line 2"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = engine(&data, &["stats", "--db", "shop", "--container", "nope"]);
    assert!(!o.status.success());

    // While another process writes the directory, the CLI reads beside it, and refuses to write.
    let held = engine::Engine::open(&data, engine::EngineOptions::default()).unwrap();
    let o = engine(
        &data,
        &[
            "get",
            "--db",
            "shop",
            "--container",
            "customer",
            "--pk",
            "7",
            "a",
        ],
    );
    assert_eq!(stdout_json(&o)["id"], "a");
    let o = engine(
        &data,
        &[
            "import",
            "--db",
            "shop",
            "--container",
            "product",
            jsonl.to_str().unwrap(),
        ],
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("open in another process") && err.contains(&std::process::id().to_string()),
        "{err}"
    );
    // A write through the writing process is visible to the next read.
    let c = held.database("shop").container("customer");
    block_on(c.upsert_item(&json!({"id": "z", "customerId": 9}), None, None)).unwrap();
    let o = engine(
        &data,
        &[
            "get",
            "--db",
            "shop",
            "--container",
            "customer",
            "--pk",
            "9",
            "z",
        ],
    );
    assert_eq!(stdout_json(&o)["id"], "z");
    drop((c, held));
    let o = engine(
        &data,
        &[
            "import",
            "--db",
            "shop",
            "--container",
            "product",
            jsonl.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = engine(&tmp.path().join("nothing-here"), &["list"]);
    assert!(
        !o.status.success(),
        "reading a directory without data is an error"
    );
}

/// Every line of an import is either imported or reported: a malformed line, or one the engine
/// refuses, never stops the good lines after it; the rejects file holds exactly the failed
/// lines; `--stop-on-error` stops at the first failure and says what was committed.
#[test]
fn import_reports_every_bad_line_and_imports_every_good_one() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let file = tmp.path().join("mixed.jsonl");
    let lines = [
        r#"{"id":"a1","pk":"p"}"#,
        r#"{"id":"a2","pk":"p"}"#,
        r#"{not json"#,
        r#"{"pk":"p"}"#,
        r#"{"id":"a/b","pk":"p"}"#,
        r#"{"id":"a6","pk":"p"}"#,
        r#"{"id":"","pk":"p"}"#,
        r#"{"id":"a8","pk":9007199254740993}"#,
        r#"{"id":"a9","pk":"p"}"#,
    ];
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let rejects = tmp.path().join("rejects.jsonl");
    for run in 0..2 {
        let o = engine(
            &data,
            &[
                "import",
                "--db",
                "d",
                "--container",
                "c",
                "--partition-key",
                "/pk",
                "--mode",
                "create",
                "--rejects",
                rejects.to_str().unwrap(),
                file.to_str().unwrap(),
            ],
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success(),
            "failures make the exit status non-zero"
        );
        if run == 0 {
            for n in [3, 4, 5, 7, 8] {
                assert!(
                    err.contains(&format!("line {n}: ")),
                    "line {n} reported: {err}"
                );
            }
            assert!(
                err.contains("\"imported\":4") && err.contains("\"failed\":5"),
                "{err}"
            );
            // Failures are written as they are found (writes finish in any order).
            let rejected = std::fs::read_to_string(&rejects).unwrap();
            let mut got: Vec<&str> = rejected.lines().collect();
            got.sort_unstable();
            let mut expected: Vec<&str> = [2, 3, 4, 6, 7].iter().map(|i| lines[*i]).collect();
            expected.sort_unstable();
            assert_eq!(got, expected);
        } else {
            // Run twice with --mode create: the good lines now conflict (409), reported one by one.
            assert!(
                err.contains("\"imported\":0") && err.contains("\"failed\":9"),
                "{err}"
            );
            assert!(err.contains("(409)"), "{err}");
        }
    }
    let o = engine(&data, &["export", "--db", "d", "--container", "c"]);
    let ids: std::collections::BTreeSet<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        ids,
        ["a1", "a2", "a6", "a9"]
            .map(String::from)
            .into_iter()
            .collect()
    );

    // --stop-on-error: stops at line 3, everything before it is committed and said so.
    let o = engine(
        &data,
        &[
            "import",
            "--db",
            "d2",
            "--container",
            "c",
            "--partition-key",
            "/pk",
            "--stop-on-error",
            file.to_str().unwrap(),
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("stopped at line 3") && err.contains("\"imported\":2"),
        "{err}"
    );
    let o = engine(&data, &["export", "--db", "d2", "--container", "c"]);
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 2);
}

/// Damaged or missing data is refused with a message naming it (never a crash), and a backup
/// taken while another process writes restores to the same items.
#[test]
fn backup_restore_and_damaged_data() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let file = tmp.path().join("items.jsonl");
    let lines: Vec<String> = (0..2000)
        .map(|i| {
            json!({"id": format!("i{i}"), "pk": format!("p{}", i % 40), "body": "x".repeat(400)})
                .to_string()
        })
        .collect();
    std::fs::write(&file, lines.join("\n")).unwrap();
    let o = engine(
        &data,
        &[
            "import",
            "--db",
            "d",
            "--container",
            "c",
            "--partition-key",
            "/pk",
            file.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // A backup while another process holds the directory for writing (and writes).
    let held = engine::Engine::open(&data, engine::EngineOptions::default()).unwrap();
    let c = held.database("d").container("c");
    block_on(c.upsert_item(&json!({"id": "late", "pk": "p1"}), None, None)).unwrap();
    let backup = tmp.path().join("backup");
    let o = engine(&data, &["backup", backup.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Backing up over an existing backup is refused.
    assert!(!engine(&data, &["backup", backup.to_str().unwrap()])
        .status
        .success());
    drop((c, held));
    let export = |dir: &std::path::Path| {
        let o = engine(dir, &["export", "--db", "d", "--container", "c"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let mut ids: Vec<String> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["id"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        ids.sort();
        ids
    };
    let original = export(&data);
    assert_eq!(original.len(), 2001);
    assert_eq!(
        export(&backup),
        original,
        "the backup holds every committed item"
    );
    let o = engine(&backup, &["check"]);
    assert!(
        o.status.success(),
        "the backup checks clean: {}",
        String::from_utf8_lossy(&o.stdout)
    );

    // A missing directory: said plainly, exit non-zero.
    let o = engine(&tmp.path().join("nowhere"), &["list"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no such directory"));

    // A data file cut to half its size (a disk-full copy): refused, naming the file, no SIGBUS;
    // the backup restores it.
    let mdb = data.join("data.mdb");
    let len = std::fs::metadata(&mdb).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&mdb)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    for args in [
        &["list"][..],
        &["export", "--db", "d", "--container", "c"][..],
    ] {
        let o = engine(&data, args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(
            o.status.code(),
            Some(1),
            "an error exit, not a signal: {err}"
        );
        assert!(
            err.contains("is truncated") && err.contains("data.mdb"),
            "{err}"
        );
    }
    let o = engine(
        &data,
        &[
            "import",
            "--db",
            "d",
            "--container",
            "c",
            file.to_str().unwrap(),
        ],
    );
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("is truncated"),
        "writers refuse it too"
    );
    std::fs::copy(backup.join("data.mdb"), &mdb).unwrap();
    assert_eq!(export(&data), original, "restored from the backup");
}

/// `engine check` passes on healthy data and reports damage: an item whose bytes were flipped so
/// it no longer parses, and one whose indexed value changed (still JSON): both by their checksum.
#[test]
fn check_reports_bit_flipped_items() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let file = tmp.path().join("items.jsonl");
    let mut lines: Vec<String> = (0..500)
        .map(|i| json!({"id": format!("i{i}"), "pk": format!("p{}", i % 7), "n": i}).to_string())
        .collect();
    lines.push(json!({"id": "broken", "pk": "p1", "body": "FLIPMEFLIPME"}).to_string());
    lines.push(json!({"id": "changed", "pk": "p2", "body": "SWAPMESWAPME"}).to_string());
    std::fs::write(&file, lines.join("\n")).unwrap();
    let o = engine(
        &data,
        &[
            "import",
            "--db",
            "d",
            "--container",
            "c",
            "--partition-key",
            "/pk",
            file.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = engine(&data, &["check"]);
    assert!(
        o.status.success(),
        "healthy data passes: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    let report: Value =
        serde_json::from_slice(o.stdout.split(|b| *b == b'\n').next().unwrap()).unwrap();
    assert_eq!(report["items"], 502);

    // Flip bytes in the data file, where the two items' values are stored.
    let mdb = data.join("data.mdb");
    let mut bytes = std::fs::read(&mdb).unwrap();
    // Every copy: LMDB's copy-on-write leaves stale copies in free pages, and which copy is
    // live depends on the order the writes were committed in.
    let find_all = |bytes: &[u8], needle: &[u8]| -> Vec<usize> {
        let found: Vec<usize> = bytes
            .windows(needle.len())
            .enumerate()
            .filter(|(_, w)| *w == needle)
            .map(|(i, _)| i)
            .collect();
        assert!(!found.is_empty());
        found
    };
    // (Quoted: the stored JSON, not the index keys, which hold the values unquoted.)
    for at in find_all(&bytes, b"\"FLIPMEFLIPME\"") {
        bytes[at] ^= 0x20; // the opening quote becomes a byte no JSON allows there
    }
    for at in find_all(&bytes, b"\"SWAPMESWAPME\"") {
        bytes[at + 1] ^= 0x01; // 'S' becomes 'R': still JSON, no longer what the index holds
    }
    std::fs::write(&mdb, &bytes).unwrap();
    let o = engine(&data, &["check"]);
    assert!(!o.status.success());
    let stdout = String::from_utf8_lossy(&o.stdout);
    // Both fail their checksum, the one that is still JSON included, each named by its id.
    for id in ["broken", "changed"] {
        assert!(
            stdout.contains(&format!("item '{id}'"))
                && stdout.contains("do not match their checksum"),
            "{stdout}"
        );
    }
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("check found"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A hierarchical key from the command line: `--partition-key /a,/b` creates a MultiHash
/// container, `--pk` takes the values as a JSON array (all for `get`, a prefix for `query`), and
/// a prefix where a full key is needed is a clear 400.
#[test]
fn hierarchical_keys_from_the_command_line() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let lines: String = (0..60)
        .map(|i| {
            format!(
                "{{\"id\":\"o{i}\",\"tenantId\":\"t{}\",\"customerId\":\"c{}\"}}\n",
                i % 3,
                i % 5
            )
        })
        .collect();
    let file = tmp.path().join("orders.jsonl");
    std::fs::write(&file, lines).unwrap();
    let target = ["--db", "shop", "--container", "orders"];
    let run = |args: &[&str]| {
        let mut all = vec![args[0]];
        all.extend(target);
        all.extend(&args[1..]);
        engine(&data, &all)
    };
    let o = run(&[
        "import",
        "--partition-key",
        "/tenantId,/customerId",
        file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // o7: tenant t1, customer c2.
    let o = run(&["get", "--pk", r#"["t1","c2"]"#, "o7"]);
    assert_eq!(stdout_json(&o)["id"], "o7");
    let o = run(&["get", "--pk", r#"["t1"]"#, "o7"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("/tenantId, /customerId"), "{err}");
    // A prefix query: the tenant's 20 orders.
    let o = run(&["query", "--pk", r#"["t1"]"#, "SELECT VALUE c.id FROM c"]);
    assert_eq!(stdout_json(&o).as_array().unwrap().len(), 20);
    let o = run(&[
        "query",
        "--pk",
        r#"["t1","c2"]"#,
        "SELECT VALUE c.id FROM c",
    ]);
    assert_eq!(stdout_json(&o).as_array().unwrap().len(), 4);
    // Importing again names the same key (spaces or not); another key is refused.
    let f = file.to_str().unwrap();
    let o = run(&["import", "--partition-key", "/tenantId, /customerId", f]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["import", "--partition-key", "/customerId,/tenantId", f]);
    assert!(!o.status.success());
}
