//! `engine import` on hostile files (issue 18): file order kept for one id, BOM, array streaming,
//! positions, counts per status, a missing file, a partition key that disagrees.

use std::process::{Command, Output};

use serde_json::Value;

fn engine(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_engine"))
        .arg("--data")
        .arg(dir)
        .args(args)
        .output()
        .expect("run engine")
}

fn import(data: &std::path::Path, file: &std::path::Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "import",
        "--db",
        "d",
        "--container",
        "c",
        "--partition-key",
        "/pk",
    ];
    args.extend_from_slice(extra);
    args.push(file.to_str().unwrap());
    engine(data, &args)
}

fn export(data: &std::path::Path) -> Vec<Value> {
    let o = engine(data, &["export", "--db", "d", "--container", "c"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// 1 000 ids, each written three times on consecutive lines with a growing version, then once
/// more 1 000 lines later: with upsert the last line of each id must win. Before, 5–17 ids kept
/// an earlier line (the writes of one id raced).
#[test]
fn lines_of_one_id_are_applied_in_file_order() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("dupes.jsonl");
    let line = |i: usize, version: usize| {
        format!(
            "{{\"id\":\"i{i}\",\"pk\":\"p{}\",\"version\":{version},\"pad\":\"{}\"}}\n",
            i % 7,
            "x".repeat(version * 300)
        )
    };
    let mut text = String::new();
    for i in 0..1000 {
        for version in 0..3 {
            text.push_str(&line(i, version));
        }
    }
    for i in 0..1000usize {
        if i.is_multiple_of(2) {
            text.push_str(&line(i, 5));
        }
    }
    std::fs::write(&file, text).unwrap();
    let data = tmp.path().join("data");
    let o = import(&data, &file, &["--concurrency", "64"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let items = export(&data);
    assert_eq!(items.len(), 1000);
    for item in items {
        let n: usize = item["id"].as_str().unwrap()[1..].parse().unwrap();
        let want = if n.is_multiple_of(2) { 5 } else { 2 };
        assert_eq!(item["version"], want, "{item}");
    }
}

#[test]
fn a_byte_order_mark_and_a_streamed_array_are_read() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let lines = tmp.path().join("bom.jsonl");
    std::fs::write(
        &lines,
        "\u{feff}{\"id\":\"a\",\"pk\":\"p\"}\n{\"id\":\"b\",\"pk\":\"p\"}\n",
    )
    .unwrap();
    let o = import(&data, &lines, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let array = tmp.path().join("array.json");
    std::fs::write(
        &array,
        "\u{feff}[\n {\"id\":\"c\",\"pk\":\"p\",\"s\":\"a ] , } [ \\\" quote\"},\n {\"id\":\"d\",\"pk\":\"p\",\"n\":[1,[2]]}\n]\n",
    )
    .unwrap();
    let o = import(&data, &array, &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let items = export(&data);
    assert_eq!(items.len(), 4);
    let c = items.iter().find(|i| i["id"] == "c").unwrap();
    assert_eq!(c["s"], "a ] , } [ \" quote");
    // A broken element is reported at its file line.
    let bad = tmp.path().join("bad.json");
    std::fs::write(&bad, "[\n{\"id\":\"e\",\"pk\":\"p\"},\n\n{\"id\": nope}\n]").unwrap();
    let o = import(&data, &bad, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("item 2 (line 4): invalid JSON at line 4 column"),
        "{err}"
    );
}

#[test]
fn json_errors_name_the_file_line_and_column() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("bad.jsonl");
    std::fs::write(
        &file,
        "{\"id\":\"a\",\"pk\":\"p\"}\n\n{\"id\":\"b\",\"pk\":\n",
    )
    .unwrap();
    let o = import(&tmp.path().join("data"), &file, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("line 3: invalid JSON at line 3 column"),
        "{err}"
    );
    assert!(!err.contains("at line 2 column"), "{err}");
}

#[test]
fn the_summary_counts_failures_per_status() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let file = tmp.path().join("f.jsonl");
    std::fs::write(&file, "{\"id\":\"a\",\"pk\":\"p\"}\n{not json\n").unwrap();
    import(&data, &file, &[]);
    let o = import(&data, &file, &["--mode", "create"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("2 of 2 items failed: 1 × 400 bad request, 1 × 409 conflict"),
        "{err}"
    );
    assert!(!err.contains("error (400)"), "{err}");
}

#[test]
fn a_missing_file_creates_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let o = import(&data, &tmp.path().join("nope.jsonl"), &[]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("nope.jsonl"), "{err}");
    assert!(!data.exists(), "no data directory was created");
}

#[test]
fn another_partition_key_for_an_existing_container_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let file = tmp.path().join("f.jsonl");
    std::fs::write(&file, "{\"id\":\"a\",\"pk\":\"p\",\"other\":\"o\"}\n").unwrap();
    assert!(import(&data, &file, &[]).status.success());
    let o = engine(
        &data,
        &[
            "import",
            "--db",
            "d",
            "--container",
            "c",
            "--partition-key",
            "/other",
            file.to_str().unwrap(),
        ],
    );
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("/pk") && err.contains("/other"), "{err}");
}

/// `--unique-key` creates the container with a unique key policy: a second item of one logical
/// partition with the same value is a 409 line, the same value in another partition is not;
/// `list` shows the policy; another policy for the existing container is refused.
#[test]
fn unique_keys_are_created_enforced_listed_and_fixed() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let file = tmp.path().join("f.jsonl");
    std::fs::write(
        &file,
        concat!(
            "{\"id\":\"a\",\"pk\":\"p\",\"email\":\"x@example.com\"}\n",
            "{\"id\":\"b\",\"pk\":\"p\",\"email\":\"x@example.com\"}\n",
            "{\"id\":\"c\",\"pk\":\"q\",\"email\":\"x@example.com\"}\n",
            "{\"id\":\"d\",\"pk\":\"p\",\"email\":\"y@example.com\"}\n",
        ),
    )
    .unwrap();
    let o = import(&data, &file, &["--unique-key", "/email"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("1 of 4 items failed: 1 × 409"), "{err}");
    assert!(err.contains("same value at /email"), "{err}");
    // Lines of different ids run concurrently: a or b, whichever came first, stays.
    let mut ids: Vec<String> = export(&data)
        .iter()
        .map(|d| d["id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    assert!(ids == ["a", "c", "d"] || ids == ["b", "c", "d"], "{ids:?}");
    let list = engine(&data, &["list"]);
    let list: Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(
        list[0]["containers"][0]["uniqueKeys"],
        serde_json::json!([["/email"]])
    );
    let o = import(&data, &file, &["--unique-key", "/email,/pk"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("unique keys") && err.contains("/pk"), "{err}");
}

/// The CLI a person can use (issue 18 §4): a query from a file or stdin, strict JSON
/// parameters, no zero page size, named backup errors, a backup with the source's permissions.
#[test]
fn query_files_strict_params_page_sizes_and_backups() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let file = tmp.path().join("f.jsonl");
    std::fs::write(&file, "{\"id\":\"a\",\"pk\":\"p\",\"n\":1}\n").unwrap();
    assert!(import(&data, &file, &[]).status.success());

    // A query longer than a shell takes: from a file, and from stdin.
    let long = format!(
        "SELECT VALUE c.id FROM c WHERE c.n IN ({})",
        (0..60_000)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    assert!(long.len() > 300_000);
    let sql = tmp.path().join("q.sql");
    std::fs::write(&sql, &long).unwrap();
    let args = ["query", "--db", "d", "--container", "c"];
    let o = engine(&data, &[&args[..], &["-f", sql.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"a\""));
    let mut child = Command::new(env!("CARGO_BIN_EXE_engine"))
        .arg("--data")
        .arg(&data)
        .args(args)
        .args(["-f", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"SELECT VALUE c.n FROM c")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains('1'));

    // A parameter that is not JSON is an error, not silently a string.
    let o = engine(
        &data,
        &[
            &args[..],
            &["--param", "@v={\"a\":1", "SELECT * FROM c WHERE c.x = @v"],
        ]
        .concat(),
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--param-str"));
    let o = engine(
        &data,
        &[
            &args[..],
            &[
                "--param-str",
                "@v=a",
                "SELECT VALUE c.id FROM c WHERE c.id = @v",
            ],
        ]
        .concat(),
    );
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"a\""));
    let o = engine(
        &data,
        &[&args[..], &["--max-item-count", "0", "SELECT * FROM c"]].concat(),
    );
    assert!(!o.status.success());

    // Backups: the source's permissions; an existing path named.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let out = tmp.path().join("backup");
        assert!(engine(&data, &["backup", out.to_str().unwrap()])
            .status
            .success());
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&out.join("data.mdb")), mode(&data.join("data.mdb")));
        // Verified before it took its name: nothing of the staging copy is left.
        assert!(!out.join(".backup-partial").exists());
    }
    let taken = tmp.path().join("a-file");
    std::fs::write(&taken, "x").unwrap();
    let o = engine(&data, &["backup", taken.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("a-file"));
}

#[test]
fn every_argument_has_a_description_in_help() {
    for cmd in ["import", "get", "export", "stats", "query", "backup"] {
        let o = Command::new(env!("CARGO_BIN_EXE_engine"))
            .args([cmd, "--help"])
            .output()
            .unwrap();
        let help = String::from_utf8_lossy(&o.stdout);
        let lines: Vec<&str> = help.lines().collect();
        let indent = |l: &str| l.len() - l.trim_start().len();
        for (i, line) in lines.iter().enumerate() {
            let l = line.trim_start();
            let is_argument = l.starts_with('-') || l.starts_with('<') || l.starts_with('[');
            if !is_argument || indent(line) == 0 {
                continue;
            }
            // Described on the same line (after two spaces), or on the next, indented deeper.
            let same_line = l.trim_end().contains("  ");
            let next_line = lines
                .get(i + 1)
                .is_some_and(|n| !n.trim().is_empty() && indent(n) > indent(line));
            assert!(
                same_line || next_line,
                "{cmd}: '{line}' has no description\n{help}"
            );
        }
    }
}

/// Unmounts the small file system when the test ends, failing or not.
struct Mounted(std::path::PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// An import onto a disk that fills up stops at the first 507 with its summary (how many were
/// committed, where it stopped) instead of sending every later line to fail the same way; what
/// it reported imported is there.
#[test]
fn a_full_disk_stops_the_import_with_its_summary() {
    let tmp = tempfile::tempdir().unwrap();
    let small = tmp.path().join("small");
    std::fs::create_dir_all(&small).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=4m", "tmpfs"])
        .arg(&small)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("cannot mount a small tmpfs here (not root?): the 507 mapping is covered by engine/tests/full_disk.rs's unit twin");
        return;
    }
    let _unmount = Mounted(small.clone());
    let data = small.join("data");
    // 20 000 lines of 2 KB: about 40 MB, ten times what the file system holds.
    let file = tmp.path().join("big.jsonl");
    let body = "x".repeat(2_000);
    let text: String = (0..20_000)
        .map(|i| {
            format!(
                "{{\"id\":\"i{i}\",\"pk\":\"p{}\",\"body\":\"{body}\"}}\n",
                i % 97
            )
        })
        .collect();
    std::fs::write(&file, text).unwrap();
    let o = import(&data, &file, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("insufficient storage"), "{err}");
    assert!(err.contains("stopped at line"), "{err}");
    // It stopped: far fewer than the 20 000 lines were tried, not one 507 per line.
    let failures = err.lines().filter(|l| l.contains("(507)")).count();
    assert!(failures < 200, "{failures} lines failed with 507:\n{err}");
    // What it says it imported is committed (and readable, with the disk still full).
    let summary: Value = err
        .lines()
        .find_map(|l| serde_json::from_str(l).ok())
        .expect("the JSON summary line");
    assert_eq!(
        summary["stoppedAt"]
            .as_str()
            .map(|s| s.contains("insufficient")),
        Some(true)
    );
    let imported = summary["imported"].as_u64().unwrap() as usize;
    let exported = export(&data).len();
    assert!(imported > 0, "{err}");
    assert!(
        exported >= imported,
        "exported {exported}, reported {imported}:\n{err}"
    );
}

/// Issue 34: what the CLI used to ignore silently is an error. `--partitions` with another count
/// than an existing container has (it was ignored); an empty file creating a container (it made
/// one); the rejects file on a full disk (a "400 bad request"); `--pk-none` on a hierarchical
/// container ("give 2 values, got 1"), whose `{}` spelling `--help` now shows.
#[test]
fn silent_ignores_are_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let file = tmp.path().join("items.jsonl");
    std::fs::write(&file, "{\"id\":\"a\",\"pk\":\"p\"}\n{\"id\":\"b\"}\n").unwrap();
    let o = import(&data, &file, &["--partitions", "2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The same count is fine; another one is refused.
    let o = import(&data, &file, &["--partitions", "2", "--mode", "upsert"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = import(&data, &file, &["--partitions", "9", "--mode", "upsert"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{stderr}");
    assert!(
        stderr.contains("exists with 2 physical partitions, not 9"),
        "{stderr}"
    );

    // An empty file creates nothing.
    let empty = tmp.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let o = engine(
        &data,
        &[
            "import",
            "--db",
            "d",
            "--container",
            "new",
            "--partition-key",
            "/pk",
            empty.to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{stderr}");
    assert!(stderr.contains("holds no items"), "{stderr}");
    let o = engine(&data, &["list"]);
    assert!(!String::from_utf8_lossy(&o.stdout).contains("\"new\""));

    // A rejects file that cannot be written for lack of space: the disk's error.
    if std::path::Path::new("/dev/full").exists() {
        let bad = tmp.path().join("bad.jsonl");
        std::fs::write(&bad, "{\"id\": 1}\n").unwrap();
        let o = import(&data, &bad, &["--rejects", "/dev/full"]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{stderr}");
        assert!(
            stderr.contains("507") && stderr.contains("/dev/full"),
            "{stderr}"
        );
        assert!(!stderr.contains("error (400)"), "{stderr}");
    }

    // --pk-none on a hierarchical container reads the item that lacks every path.
    let o = engine(
        &data,
        &[
            "import",
            "--db",
            "d",
            "--container",
            "h",
            "--partition-key",
            "/t,/u",
            file.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = engine(
        &data,
        &["get", "--db", "d", "--container", "h", "--pk-none", "b"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"b\""));
    let o = engine(
        &data,
        &[
            "get",
            "--db",
            "d",
            "--container",
            "h",
            "--pk",
            "[{},{}]",
            "b",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = engine(&data, &["get", "--help"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("'[\"contoso\",{}]'"));
}
