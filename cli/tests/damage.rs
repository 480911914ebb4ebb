//! Issue 18 §1: damaged data never passes as good data, and never crashes a command. Every
//! damaged copy is made here, by writing over the data file the way a bad disk or copy would.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

const PAGE: usize = 4096;

fn engine(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_engine"))
        .arg("--data")
        .arg(dir)
        .args(args)
        .output()
        .expect("run engine")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A store of `n` items in d/c (partition key /pk, 40 logical partitions), made by `import`.
fn store(root: &Path, n: usize) -> PathBuf {
    let data = root.join("data");
    let file = root.join("items.jsonl");
    let lines: Vec<String> = (0..n)
        .map(|i| {
            json!({"id": format!("i{i}"), "pk": format!("p{}", i % 40), "body": "x".repeat(300)})
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
            // One write at a time: the same pages on every run.
            "--concurrency",
            "1",
            file.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    data
}

/// LMDB page header (64-bit): pgno(8) pad(2) flags(2) lower(2) upper(2).
fn flags(page: &[u8]) -> u16 {
    u16::from_le_bytes([page[10], page[11]])
}

const P_LEAF: u16 = 0x02;

/// The numbers of the leaf pages holding items (stale copies in free pages included).
fn item_leaves(bytes: &[u8]) -> Vec<usize> {
    (2..bytes.len() / PAGE)
        .filter(|&n| {
            let page = &bytes[n * PAGE..(n + 1) * PAGE];
            // Nodes live from `upper` to the end; the gap before it holds stale bytes.
            let upper = usize::from(u16::from_le_bytes([page[14], page[15]])).min(PAGE);
            flags(page) & P_LEAF != 0 && page[upper..].windows(8).any(|w| w == b"\"body\":\"")
        })
        .collect()
}

fn export_lines(o: &Output) -> usize {
    String::from_utf8_lossy(&o.stdout).lines().count()
}

/// Items hidden by damage (a leaf whose key count shrank: LMDB walks it without an error) make
/// `export` fail, saying how many are missing, instead of exiting 0 with fewer items.
#[test]
fn export_fails_on_a_shortfall_against_the_counters() {
    let tmp = tempfile::tempdir().unwrap();
    let data = store(tmp.path(), 2000);
    let o = engine(&data, &["export", "--db", "d", "--container", "c"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(export_lines(&o), 2000);

    let mdb = data.join("data.mdb");
    let mut bytes = std::fs::read(&mdb).unwrap();
    let leaves = item_leaves(&bytes);
    assert!(!leaves.is_empty());
    for n in leaves {
        // lower = 16 + 2 × keys: one key fewer.
        let at = n * PAGE + 12;
        let lower = u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        if lower > 16 + 2 {
            bytes[at..at + 2].copy_from_slice(&(lower - 2).to_le_bytes());
        }
    }
    std::fs::write(&mdb, &bytes).unwrap();

    let o = engine(&data, &["export", "--db", "d", "--container", "c"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "an error exit: {err}");
    assert!(export_lines(&o) < 2000);
    // The read feed's cross-check of each partition against its counter stops it at the first
    // partition that comes up short (issue 34); `export`'s own count is the last line of defence.
    assert!(
        (err.contains("items missing") || err.contains("where its counter records"))
            && err.contains("engine check"),
        "{err}"
    );
    // Every logical partition that lost an item says so too.
    let failed = (0..40)
        .filter(|p| {
            let pk = format!("p{p}");
            let o = engine(
                &data,
                &["export", "--db", "d", "--container", "c", "--pk", &pk],
            );
            let err = stderr(&o);
            !o.status.success()
                && (err.contains("items missing") || err.contains("where its counter records"))
        })
        .count();
    assert!(failed > 0);
    let o = engine(&data, &["check"]);
    assert!(!o.status.success());
    let report: Value =
        serde_json::from_slice(o.stdout.split(|b| *b == b'\n').next().unwrap()).unwrap();
    assert!(
        report["problems"].to_string().contains("counts"),
        "{report}"
    );
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A 0-byte and a 100-byte `data.mdb`: one line naming the file, an error exit, and nothing
/// created (before, a reader failed with "Bad file descriptor" and `import` started a new store).
#[test]
fn an_empty_or_tiny_data_file_is_named_and_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in.jsonl");
    std::fs::write(&input, "{\"id\": \"a\", \"pk\": \"a\"}\n").unwrap();
    for size in [0usize, 100, 3 * PAGE] {
        let data = tmp.path().join(format!("data{size}"));
        std::fs::create_dir(&data).unwrap();
        let mdb = data.join("data.mdb");
        std::fs::write(&mdb, vec![0x5a; size]).unwrap();
        for args in [
            &["list"][..],
            &["export", "--db", "d", "--container", "c"][..],
            &["check"][..],
            &[
                "import",
                "--db",
                "d",
                "--container",
                "c",
                "--partition-key",
                "/pk",
                input.to_str().unwrap(),
            ][..],
        ] {
            let o = engine(&data, args);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
            assert!(
                err.contains(&mdb.display().to_string()) && err.contains("not an engine data file"),
                "{args:?}: {err}"
            );
            assert_eq!(names(&data), ["data.mdb"], "{args:?}: nothing created");
            assert_eq!(std::fs::metadata(&mdb).unwrap().len() as usize, size);
        }
    }
    // LMDB's magic with nothing valid after it: LMDB's own MDB_INVALID, with the file named.
    let data = tmp.path().join("magic");
    std::fs::create_dir(&data).unwrap();
    let mut bytes = vec![0u8; 2 * PAGE];
    for page in 0..2 {
        bytes[page * PAGE + 16..page * PAGE + 20].copy_from_slice(&0xBEEF_C0DEu32.to_ne_bytes());
    }
    std::fs::write(data.join("data.mdb"), bytes).unwrap();
    let o = engine(&data, &["list"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&data.join("data.mdb").display().to_string()) && err.contains("MDB_INVALID"),
        "{err}"
    );
}

/// Removes the immutable attribute again, even when the test fails (or the directory could not
/// be cleaned up).
struct Immutable(PathBuf);

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
    }
}

/// Every reading command on a store whose files this process may read but not write.
fn reads_work(data: &Path) -> Vec<String> {
    let reads: [&[&str]; 6] = [
        &["list"],
        &["get", "--db", "d", "--container", "c", "--pk", "p1", "i1"],
        &[
            "query",
            "--db",
            "d",
            "--container",
            "c",
            "SELECT VALUE COUNT(1) FROM c",
        ],
        &["export", "--db", "d", "--container", "c"],
        &["check"],
        &["stats", "--db", "d", "--container", "c"],
    ];
    reads
        .iter()
        .map(|args| {
            let o = engine(data, args);
            assert!(o.status.success(), "{args:?}: {}", stderr(&o));
            stderr(&o)
        })
        .collect()
}

/// A reader that may not write `lock.mdb` reads without LMDB's lock and says so; writes are
/// refused with a message naming the file. As root, permission bits refuse nothing: the lock file
/// is made immutable (`chattr +i`), which refuses root too; `--no-lock` is the same path asked for.
#[test]
fn a_directory_that_cannot_be_written_is_read_without_the_lock() {
    let tmp = tempfile::tempdir().unwrap();
    let data = store(tmp.path(), 200);
    let input = tmp.path().join("more.jsonl");
    std::fs::write(&input, "{\"id\": \"new\", \"pk\": \"p1\"}\n").unwrap();
    let import = |extra: &[&str]| {
        let mut args = vec!["import", "--db", "d", "--container", "c"];
        args.extend_from_slice(extra);
        args.push(input.to_str().unwrap());
        engine(&data, &args)
    };

    // Asked for: a copy without lock.mdb is read and stays without one.
    let copy = tmp.path().join("copy");
    std::fs::create_dir(&copy).unwrap();
    std::fs::copy(data.join("data.mdb"), copy.join("data.mdb")).unwrap();
    let o = engine(
        &copy,
        &["--no-lock", "export", "--db", "d", "--container", "c"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(export_lines(&o), 200);
    assert!(stderr(&o).contains("without LMDB's lock"), "{}", stderr(&o));
    assert_eq!(names(&copy), ["data.mdb"]);
    let o = import(&["--no-lock"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("--no-lock is for reading"),
        "{}",
        stderr(&o)
    );

    // Taken by itself when lock.mdb cannot be opened for writing.
    let lock = data.join("lock.mdb");
    assert!(lock.exists());
    let chattr = Command::new("chattr").arg("+i").arg(&lock).status();
    if !chattr.is_ok_and(|s| s.success()) {
        eprintln!("chattr +i is not available here: the automatic fallback is covered by the storage unit test only");
        return;
    }
    let _guard = Immutable(lock.clone());
    if std::fs::OpenOptions::new().write(true).open(&lock).is_ok() {
        eprintln!(
            "an immutable file is still writable here: fallback covered by the unit test only"
        );
        return;
    }
    for err in reads_work(&data) {
        assert!(
            err.contains("without LMDB's lock") && err.contains("lock.mdb cannot be written"),
            "{err}"
        );
    }
    let o = import(&[]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("lock.mdb cannot be written") && err.contains("read"),
        "{err}"
    );
}

/// The root page of a named LMDB database, read from the newest meta page and the main DB.
fn root_of(bytes: &[u8], name: &[u8]) -> usize {
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
    let u16_at = |at: usize| usize::from(u16::from_le_bytes([bytes[at], bytes[at + 1]]));
    // Meta: header(16) magic(4) version(4) address(8) mapsize(8) dbs[2](48 each) last_pg txnid.
    let meta = if u64_at(PAGE + 144) > u64_at(144) {
        PAGE
    } else {
        0
    };
    let main_root = u64_at(meta + 88 + 40);
    let page = main_root * PAGE;
    assert!(
        flags(&bytes[page..]) & P_LEAF != 0,
        "the main DB fits one leaf"
    );
    let keys = (u16_at(page + 12) - 16) / 2;
    for i in 0..keys {
        let node = page + u16_at(page + 16 + 2 * i);
        let ksize = u16_at(node + 6);
        if &bytes[node + 8..node + 8 + ksize] == name {
            return u64_at(node + 8 + ksize + 40);
        }
    }
    panic!("no database {}", String::from_utf8_lossy(name));
}

/// Bytes that look random and are the same on every run.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// No command dies by a signal on a damaged file: the items' root page and the pages after it
/// (32 KB), or six pages anywhere, overwritten with random bytes. The first made `stats` and `check` stop on LMDB's assertions
/// (SIGABRT) and `backup` crash in LMDB's compacting copy (SIGSEGV). Now each exits with a code,
/// says the file is damaged, and a failed backup leaves nothing behind.
#[test]
fn no_command_dies_by_a_signal_on_a_damaged_file() {
    let tmp = tempfile::tempdir().unwrap();
    let data = store(tmp.path(), 3000);
    let clean = std::fs::read(data.join("data.mdb")).unwrap();
    let root = root_of(&clean, b"docs");
    let pages = clean.len() / PAGE;
    let mut stopped = 0;
    for seed in 1..=14u64 {
        let mut bytes = clean.clone();
        if seed <= 8 {
            let at = root * PAGE;
            let n = (bytes.len() - at).min(32 * 1024);
            bytes[at..at + n].copy_from_slice(&noise(seed, n));
        } else {
            // Six pages anywhere but the two meta pages.
            let picks = noise(seed, 12);
            for pair in picks.chunks(2) {
                let page = 2 + usize::from(u16::from_le_bytes([pair[0], pair[1]])) % (pages - 2);
                bytes[page * PAGE..(page + 1) * PAGE]
                    .copy_from_slice(&noise(seed + page as u64, PAGE));
            }
        }
        let dir = tmp.path().join(format!("d{seed}"));
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("data.mdb"), &bytes).unwrap();
        let out = tmp.path().join(format!("b{seed}"));
        for args in [
            &["stats", "--db", "d", "--container", "c"][..],
            &["export", "--db", "d", "--container", "c"][..],
            &["check"][..],
            // A damaged B-tree can lead a paged scan back over itself: the query engine refuses
            // a key that does not advance (before, `query` could page on for ever here).
            &["query", "--db", "d", "--container", "c", "SELECT * FROM c"][..],
            &[
                "query",
                "--db",
                "d",
                "--container",
                "c",
                "SELECT c.id FROM c ORDER BY c.id",
            ][..],
            &["list"][..],
            &["backup", out.to_str().unwrap()][..],
        ] {
            let o = engine(&dir, args);
            let err = stderr(&o);
            let code = o.status.code();
            assert!(
                code.is_some(),
                "seed {seed} {args:?} died by a signal: {err}"
            );
            eprintln!(
                "seed {seed} {}: exit {code:?} {}",
                args[0],
                err.lines().last().unwrap_or_default()
            );
            if code == Some(3) {
                stopped += 1;
            }
            if code != Some(0) {
                let reported = err.contains("damaged")
                    || err.contains("corrupt data")
                    || (args[0] == "check" && err.contains("check found"));
                assert!(reported, "seed {seed} {args:?}: {err}");
            }
            if args[0] == "backup" {
                assert!(
                    !out.join(".backup-partial").join("data.mdb").exists(),
                    "seed {seed}: no partial"
                );
                if code != Some(0) {
                    assert!(!out.join("data.mdb").exists());
                }
            }
        }
    }
    assert!(stopped > 0, "some damage reached LMDB's own failure paths");
}
