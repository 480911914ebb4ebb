//! Issue 34: a damaged file never answers silently wrong. A seeded, reproducible damage campaign:
//! copies of one store are damaged the ways a bad disk or copy damages a file (leaves whose key
//! count shrank, branch pages and runs of pages overwritten with random bytes or zeros, page
//! headers and bits flipped), and on each copy every command either refuses (a non-zero exit
//! whose message names the damage) or answers exactly what the undamaged store answers: `query`
//! COUNT, SUM and `SELECT VALUE c.id` paged (whole container, one logical partition, a
//! hierarchical key's prefix), filters answered from the index (equality, range, IN, an equality
//! in one logical partition on a value past 1 024 entries, two indexed equalities) and ORDER
//! BY merges (whole, and one logical partition descending), `stats`, `export`, `backup` (whose
//! copy must then pass `check` and export the undamaged items), and, through the engine's client
//! in a child process, a paged read feed as `engine serve` pages it (`read_all_items` with a
//! continuation) and latest-version change feeds (whole, one partition key, an incremental
//! reader resumed halfway).
//!
//! `DAMAGE_COPIES=N` runs N copies (default 4, about 40 s in a debug build; the benchmark-style
//! run in BENCHMARKS.md used 24).
//!
//! A second campaign serves each damaged copy with `engine serve` and reads it through the
//! official Python SDK (`azure-cosmos`, `damage_sdk.py`): a read feed and queries paged by 20-50
//! (cross-partition, one logical partition, a hierarchical key's prefix, filters answered from
//! the index, an equality in one logical partition past 1 024 entries, two indexed equalities);
//! each read is the undamaged answer or a 5xx naming the damage.
//! `DAMAGE_SDK_COPIES=N` (default 3).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

const PAGE: usize = 4096;
const P_BRANCH: u16 = 0x01;
const P_LEAF: u16 = 0x02;

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

fn import(data: &Path, file: &Path, container: &str, pk: &str, partitions: &str) {
    let o = engine(
        data,
        &[
            "import",
            "--db",
            "d",
            "--container",
            container,
            "--partition-key",
            pk,
            "--partitions",
            partitions,
            "--concurrency",
            "1",
            file.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

/// 4 000 items in d/c (/pk, 40 logical partitions in 2 physical partitions) and 2 000 in d/h
/// (/t,/u: 10 tenants of 20 users, 4 physical partitions), each with a number to sum and a body
/// that fills pages. Every item of d/c has `kind = 'a'` (~2 000 entries of one value per physical
/// partition: past the 1 024 below which a routed equality once read the value's whole range)
/// and `m`, one of 10 values (a second equality).
fn store(root: &Path) -> PathBuf {
    let data = root.join("data");
    let plain = root.join("c.jsonl");
    let lines: Vec<String> = (0..4000)
        .map(|i| {
            json!({"id": format!("i{i}"), "pk": format!("p{}", i % 40), "v": i, "kind": "a", "m": i % 10, "body": "x".repeat(300)})
                .to_string()
        })
        .collect();
    std::fs::write(&plain, lines.join("\n")).unwrap();
    import(&data, &plain, "c", "/pk", "2");
    let hier = root.join("h.jsonl");
    let lines: Vec<String> = (0..2000)
        .map(|i| {
            json!({"id": format!("h{i}"), "t": format!("t{}", i % 10), "u": format!("u{}", i % 20), "body": "y".repeat(300)})
                .to_string()
        })
        .collect();
    std::fs::write(&hier, lines.join("\n")).unwrap();
    import(&data, &hier, "h", "/t,/u", "4");
    data
}

/// One command of the campaign: its arguments (`{out}` stands for a fresh backup directory).
struct Probe {
    name: &'static str,
    args: Vec<String>,
}

fn probes() -> Vec<Probe> {
    let q = |name, container: &str, pk: Option<&str>, page: Option<&str>, sql: &str| {
        let mut args: Vec<String> = ["query", "--db", "d", "--container", container]
            .iter()
            .map(|s| s.to_string())
            .collect();
        if let Some(pk) = pk {
            args.extend(["--pk".into(), pk.into()]);
        }
        if let Some(n) = page {
            args.extend(["--max-item-count".into(), n.into()]);
        }
        args.push(sql.into());
        Probe { name, args }
    };
    let plain = |name, args: &[&str]| Probe {
        name,
        args: args.iter().map(|s| s.to_string()).collect(),
    };
    vec![
        q("count", "c", None, None, "SELECT VALUE COUNT(1) FROM c"),
        q(
            "count filtered",
            "c",
            None,
            None,
            "SELECT VALUE COUNT(1) FROM c WHERE c.v >= 0",
        ),
        q("sum", "c", None, None, "SELECT VALUE SUM(c.v) FROM c"),
        q(
            "ids paged",
            "c",
            None,
            Some("700"),
            "SELECT VALUE c.id FROM c",
        ),
        q(
            "eq ids",
            "c",
            None,
            None,
            "SELECT VALUE c.id FROM c WHERE c.v = 1234",
        ),
        q(
            "range ids paged",
            "c",
            None,
            Some("300"),
            "SELECT VALUE c.id FROM c WHERE c.v > 2500",
        ),
        q(
            "in count",
            "c",
            None,
            None,
            "SELECT VALUE COUNT(1) FROM c WHERE c.v IN (1, 500, 1500, 3999)",
        ),
        q(
            "startswith ids paged",
            "c",
            None,
            Some("100"),
            "SELECT VALUE c.id FROM c WHERE STARTSWITH(c.id, 'i12')",
        ),
        q(
            "eq ids of p7",
            "c",
            Some("p7"),
            None,
            "SELECT VALUE c.id FROM c WHERE c.v = 1247",
        ),
        q(
            "eq past 1024 of p7 paged",
            "c",
            Some("p7"),
            Some("30"),
            "SELECT VALUE c.id FROM c WHERE c.kind = 'a'",
        ),
        q(
            "two equalities paged",
            "c",
            None,
            Some("50"),
            "SELECT VALUE c.id FROM c WHERE c.kind = 'a' AND c.m = 3",
        ),
        q(
            "two equalities of p7",
            "c",
            Some("p7"),
            None,
            "SELECT VALUE COUNT(1) FROM c WHERE c.kind = 'a' AND c.m = 7",
        ),
        q(
            "order by paged",
            "c",
            None,
            Some("500"),
            "SELECT VALUE c.id FROM c ORDER BY c.v",
        ),
        q(
            "order by desc of p7 paged",
            "c",
            Some("p7"),
            Some("40"),
            "SELECT VALUE c.id FROM c ORDER BY c.v DESC",
        ),
        q(
            "ids of p7 paged",
            "c",
            Some("p7"),
            Some("40"),
            "SELECT VALUE c.id FROM c",
        ),
        q(
            "prefix count",
            "h",
            Some(r#"["t1"]"#),
            None,
            "SELECT VALUE COUNT(1) FROM c",
        ),
        q(
            "full key count",
            "h",
            Some(r#"["t1","u1"]"#),
            None,
            "SELECT VALUE COUNT(1) FROM c",
        ),
        q(
            "prefix ids paged",
            "h",
            Some(r#"["t3"]"#),
            Some("50"),
            "SELECT VALUE c.id FROM c",
        ),
        q(
            "prefix filtered paged",
            "h",
            Some(r#"["t1"]"#),
            Some("20"),
            "SELECT VALUE c.id FROM c WHERE STARTSWITH(c.id, 'h1')",
        ),
        plain("stats c", &["stats", "--db", "d", "--container", "c"]),
        plain("stats h", &["stats", "--db", "d", "--container", "h"]),
        plain("export c", &["export", "--db", "d", "--container", "c"]),
        plain("backup", &["backup", "{out}"]),
    ]
}

/// What a command answered: its output when it succeeded, or why it refused.
enum Answer {
    Output(String),
    Refused(String),
}

/// Copy `seed` of `clean`, damaged, in a directory of its own, and what was done to it.
fn damaged_copy(tmp: &Path, clean: &[u8], seed: u64) -> (std::path::PathBuf, String) {
    let (bytes, what) = damage(clean, seed);
    let dir = tmp.join(format!("copy{seed}"));
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("data.mdb"), &bytes).unwrap();
    (dir, format!("copy {seed} ({what})"))
}

/// An answer as a command prints it, cut for a message.
fn short(text: &str) -> String {
    text[..text.len().min(200)].to_owned()
}

/// A JSON array answer as its length (the SDK's reads).
fn items(text: &str) -> String {
    let n = serde_json::from_str::<Vec<Value>>(text).map_or(0, |v| v.len());
    format!("{n} items")
}

/// A campaign's count: refusals (each must name the damage), exact answers, and silent wrong
/// answers, the one outcome that fails it.
#[derive(Default)]
struct Tally {
    refused: usize,
    answered: usize,
    silent: Vec<String>,
}

impl Tally {
    fn judge(
        &mut self,
        copy: &str,
        line: &mut String,
        name: &str,
        answer: Answer,
        truth: &str,
        show: fn(&str) -> String,
    ) {
        match answer {
            Answer::Output(o) if o == truth => {
                self.answered += 1;
                line.push_str(&format!(" {name}=same"));
            }
            Answer::Output(o) => self.silent.push(format!(
                "{copy}: {name} answered {} where the undamaged store answers {}",
                show(&o),
                show(truth)
            )),
            Answer::Refused(err) => {
                self.refused += 1;
                assert!(
                    names_the_damage(&err),
                    "{copy}: {name} refused without naming the damage: {err}"
                );
                line.push_str(&format!(" {name}=refused"));
            }
        }
    }

    fn finish(self, campaign: &str, reached: &str) {
        eprintln!(
            "{campaign}: {} refusals, {} exact answers, {} silent wrong answers",
            self.refused,
            self.answered,
            self.silent.len()
        );
        assert!(
            self.silent.is_empty(),
            "silent wrong answers:\n{}",
            self.silent.join("\n")
        );
        assert!(self.refused > 0, "the damage reached {reached}");
    }
}

fn run(dir: &Path, probe: &Probe, out: &Path) -> Answer {
    let args: Vec<String> = probe
        .args
        .iter()
        .map(|a| a.replace("{out}", out.to_str().unwrap()))
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = engine(dir, &args);
    let err = stderr(&o);
    let code = o.status.code();
    assert!(
        code.is_some(),
        "{} on {} died by a signal: {err}",
        probe.name,
        dir.display()
    );
    if code != Some(0) {
        return Answer::Refused(err);
    }
    if probe.name == "backup" {
        // A backup that succeeded must hold the undamaged store: it checks, and exports it.
        let o = engine(out, &["check"]);
        assert!(
            o.status.success(),
            "backup of {} exited 0 but its copy fails check: {}",
            dir.display(),
            stderr(&o)
        );
        let o = engine(out, &["export", "--db", "d", "--container", "c"]);
        assert!(o.status.success(), "{}", stderr(&o));
        return Answer::Output(String::from_utf8_lossy(&o.stdout).into_owned());
    }
    Answer::Output(String::from_utf8_lossy(&o.stdout).into_owned())
}

/// The last 3 000 bytes of a log (at a character boundary).
fn tail(log: &str) -> &str {
    let cut = log.len().saturating_sub(3000);
    let at = (cut..log.len()).find(|&i| log.is_char_boundary(i));
    &log[at.unwrap_or(log.len())..]
}

/// Where a served refusal's text ends and the server's log begins.
const LOG: &str = "\n--- the server's log:\n";

/// A refusal must say the file is damaged.
fn names_the_damage(err: &str) -> bool {
    let err = err.split(LOG).next().unwrap_or_default();
    err.contains("damaged")
        || err.contains("corrupt data")
        || err.contains("engine check")
        || err.contains("check found")
}

/// LMDB page header (64-bit): pgno(8) pad(2) flags(2) lower(2) upper(2).
fn flags(page: &[u8]) -> u16 {
    u16::from_le_bytes([page[10], page[11]])
}

fn pages_where(bytes: &[u8], keep: impl Fn(&[u8]) -> bool) -> Vec<usize> {
    (2..bytes.len() / PAGE)
        .filter(|&n| keep(&bytes[n * PAGE..(n + 1) * PAGE]))
        .collect()
}

fn item_leaves(bytes: &[u8]) -> Vec<usize> {
    pages_where(bytes, |page| {
        let upper = usize::from(u16::from_le_bytes([page[14], page[15]])).min(PAGE);
        flags(page) & P_LEAF != 0 && page[upper..].windows(6).any(|w| w == b"\"body\"")
    })
}

/// The nodes of a leaf page: (key size, data size).
fn nodes(page: &[u8]) -> Vec<(usize, usize)> {
    let u16_at = |at: usize| usize::from(u16::from_le_bytes([page[at], page[at + 1]]));
    let lower = u16_at(12).min(PAGE);
    (16..lower)
        .step_by(2)
        .map(|p| {
            let at = u16_at(p).min(PAGE - 8);
            (u16_at(at + 6), u16_at(at) | u16_at(at + 2) << 16)
        })
        .collect()
}

/// Leaves of the query index (keys `rid · pp · path · value · epk · id hash` of 41 bytes or
/// more, an id as data) or of the latest-version change feed (16-byte keys, `epk · id` data).
fn table_leaves(bytes: &[u8], feed: bool) -> Vec<usize> {
    pages_where(bytes, |page| {
        let nodes = nodes(page);
        flags(page) & P_LEAF != 0
            && !nodes.is_empty()
            && nodes.iter().all(|&(k, d)| {
                if feed {
                    k == 16 && (17..=40).contains(&d)
                } else {
                    k >= 41 && d <= 24
                }
            })
    })
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| (self.next() >> 32) as u8).collect()
    }
}

/// Damages a copy of `clean` the way `seed` says; returns what was done.
fn damage(clean: &[u8], seed: u64) -> (Vec<u8>, String) {
    let mut b = clean.to_vec();
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let pages = b.len() / PAGE;
    let leaves = item_leaves(&b);
    let what = match seed % 8 {
        0 | 6 | 7 => {
            // Key counts lowered on a few item, index or change-feed leaves (lower = 16 + 2 ×
            // keys).
            let (leaves, kind) = match seed % 8 {
                0 => (leaves, "item"),
                6 => (table_leaves(&b, false), "index"),
                _ => (table_leaves(&b, true), "change feed"),
            };
            let k = 1 + rng.below(4);
            for _ in 0..k {
                let n = leaves[rng.below(leaves.len())];
                let at = n * PAGE + 12;
                let lower = u16::from_le_bytes([b[at], b[at + 1]]);
                let cut = 2 * (1 + rng.below(3)) as u16;
                if lower > 16 + cut {
                    b[at..at + 2].copy_from_slice(&(lower - cut).to_le_bytes());
                }
            }
            format!("key counts lowered on {k} {kind} leaves")
        }
        1 => {
            // A branch page randomised (below its header, which stays a branch's).
            let branches = pages_where(&b, |p| flags(p) & P_BRANCH != 0);
            let n = branches[rng.below(branches.len())];
            let body = rng.bytes(PAGE - 16);
            b[n * PAGE + 16..(n + 1) * PAGE].copy_from_slice(&body);
            format!("branch page {n} randomised")
        }
        2 => {
            // Bits flipped in item leaves.
            for _ in 0..8 {
                let n = leaves[rng.below(leaves.len())];
                let at = n * PAGE + 16 + rng.below(PAGE - 16);
                b[at] ^= 1 << rng.below(8);
            }
            "8 bits flipped in item leaves".into()
        }
        3 => {
            // 32 KB of random bytes from a random page on.
            let n = 2 + rng.below(pages - 2);
            let len = (32 * 1024).min(b.len() - n * PAGE);
            let noise = rng.bytes(len);
            b[n * PAGE..n * PAGE + len].copy_from_slice(&noise);
            format!("32 KB of random bytes from page {n}")
        }
        4 => {
            // 8 KB of zeros from a random item leaf on.
            let n = leaves[rng.below(leaves.len())];
            let len = (8 * 1024).min(b.len() - n * PAGE);
            b[n * PAGE..n * PAGE + len].fill(0);
            format!("8 KB of zeros from page {n}")
        }
        _ => {
            // Four page headers' lower/upper bytes flipped (any page).
            for _ in 0..4 {
                let n = 2 + rng.below(pages - 2);
                let at = n * PAGE + 12 + rng.below(4);
                b[at] ^= 1 << rng.below(8);
            }
            "four page headers flipped".into()
        }
    };
    (b, what)
}

/// The paged read feed of d/c through the engine's client, as `engine serve` pages it for an
/// SDK (`read_all_items`, 100 a page, the continuation handed back): run in a child process
/// (a damaged file may stop LMDB by a signal), which prints the ids or the error.
fn read_feed(dir: &Path, kind: &str) -> Answer {
    let o = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "read_feed_child",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("CAMPAIGN_READ_FEED_DIR", dir)
        .env("CAMPAIGN_FEED", kind)
        .output()
        .expect("run the child");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    // The harness may print "test read_feed_child ... " on the same line first.
    let after = |l: &str, tag: &str| l.find(tag).map(|at| l[at + tag.len()..].to_owned());
    if let Some(ids) = out.lines().find_map(|l| after(l, "IDS:")) {
        return Answer::Output(ids.to_owned());
    }
    let err = out
        .lines()
        .find_map(|l| after(l, "ERR:"))
        .unwrap_or_else(|| format!("the child stopped ({:?}): damaged {}", o.status, stderr(&o)));
    Answer::Refused(err)
}

#[test]
fn read_feed_child() {
    let Some(dir) = std::env::var_os("CAMPAIGN_READ_FEED_DIR") else {
        return;
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let result: Result<Vec<String>, engine::Error> = rt.block_on(async {
        let e = engine::Engine::open(
            &dir,
            engine::EngineOptions {
                storage: engine::StorageOptions {
                    read_only: true,
                    no_lock: true,
                    ..Default::default()
                },
                ..Default::default()
            },
        )?;
        let c = e.database("d").container("c");
        let kind = std::env::var("CAMPAIGN_FEED").unwrap_or_default();
        if kind != "read" {
            return changes(&c, &kind).await;
        }
        let mut ids = Vec::new();
        let mut continuation: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        loop {
            let page = c
                .read_all_items::<Value>(100, continuation.as_deref())
                .await?;
            ids.extend(
                page.items
                    .iter()
                    .map(|i| i["id"].as_str().unwrap_or_default().to_owned()),
            );
            match page.continuation {
                // The SDK would loop for ever; the CLI and this harness stop.
                Some(next) if !seen.insert(next.clone()) => {
                    return Err(engine::Error::Corrupt("pages repeat: damaged".into()))
                }
                Some(next) => continuation = Some(next),
                None => break,
            }
        }
        Ok(ids)
    });
    match result {
        Ok(ids) => println!("IDS:{}", serde_json::to_string(&ids).unwrap()),
        Err(e) => {
            println!("ERR:{e}");
            std::process::exit(1);
        }
    }
}

/// The change feeds of the campaign (latest version, pages of 100, from the beginning): the
/// whole container, one partition key, and an incremental reader (a continuation without the
/// count a walk from the beginning carries, as a reader that started at "now" holds) resumed
/// after the first 2 000 changes. The ids read, in order.
async fn changes(c: &engine::ContainerClient, kind: &str) -> Result<Vec<String>, engine::Error> {
    let mut opts = engine::ChangeFeedOptions {
        partition_key: (kind == "changes of p7").then(|| "p7".into()),
        ..Default::default()
    };
    let mut ids = Vec::new();
    for _ in 0..1000 {
        let page = c.change_feed(&opts).await?;
        if page.not_modified() {
            return Ok(ids);
        }
        ids.extend(
            page.items
                .iter()
                .map(|i| i["id"].as_str().unwrap_or_default().to_owned()),
        );
        let mut next = page.continuation;
        if kind == "incremental changes" && ids.len() >= 2000 && ids.len() < 2100 {
            next = without_counts(&next);
        }
        opts.start = engine::ChangeFeedStart::Continuation(next);
    }
    Err(engine::Error::Corrupt(
        "the change feed never ends: damaged".into(),
    ))
}

/// A change-feed continuation (base64url JSON) with its cursors' counts removed.
fn without_counts(token: &str) -> String {
    const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut bits = 0u32;
    let (mut n, mut raw) = (0, Vec::new());
    for b in token.bytes() {
        let v = ABC.iter().position(|a| *a == b).unwrap() as u32;
        bits = bits << 6 | v;
        n += 6;
        if n >= 8 {
            n -= 8;
            raw.push((bits >> n) as u8);
        }
    }
    let mut t: Value = serde_json::from_slice(&raw).unwrap();
    for c in t["cursors"].as_array_mut().unwrap() {
        c.as_object_mut().unwrap().remove("count");
    }
    let raw = serde_json::to_vec(&t).unwrap();
    let mut out = String::new();
    for chunk in raw.chunks(3) {
        let v = chunk.iter().fold(0u32, |v, b| v << 8 | u32::from(*b)) << (8 * (3 - chunk.len()));
        for i in 0..=chunk.len() {
            out.push(ABC[(v >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// The feeds each copy is read by (in a child process each).
const FEEDS: &[&str] = &["read", "changes", "changes of p7", "incremental changes"];

#[test]
fn damaged_copies_never_answer_silently_wrong() {
    let copies: u64 = std::env::var("DAMAGE_COPIES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(4);
    let tmp = tempfile::tempdir().unwrap();
    let data = store(tmp.path());
    let clean = std::fs::read(data.join("data.mdb")).unwrap();
    let probes = probes();
    let truth: Vec<String> = probes
        .iter()
        .enumerate()
        .map(
            |(i, p)| match run(&data, p, &tmp.path().join(format!("truth{i}"))) {
                Answer::Output(o) => o,
                Answer::Refused(e) => panic!("{} on the undamaged store: {e}", p.name),
            },
        )
        .collect();
    let feed_truth: Vec<String> = FEEDS
        .iter()
        .map(|kind| match read_feed(&data, kind) {
            Answer::Output(o) => o,
            Answer::Refused(e) => panic!("{kind} on the undamaged store: {e}"),
        })
        .collect();
    let lens: Vec<usize> = feed_truth
        .iter()
        .map(|t| serde_json::from_str::<Vec<String>>(t).unwrap().len())
        .collect();
    assert_eq!(lens, [4000, 4000, 100, 4000]);

    let mut tally = Tally::default();
    for seed in 1..=copies {
        let (dir, copy) = damaged_copy(tmp.path(), &clean, seed);
        let mut line = format!("{copy}:");
        for (i, p) in probes.iter().enumerate() {
            let out = tmp.path().join(format!("backup{seed}"));
            let answer = run(&dir, p, &out);
            tally.judge(&copy, &mut line, p.name, answer, &truth[i], short);
        }
        for (kind, truth) in FEEDS.iter().zip(&feed_truth) {
            tally.judge(&copy, &mut line, kind, read_feed(&dir, kind), truth, short);
        }
        eprintln!("{line}");
        let _ = std::fs::remove_dir_all(&dir);
    }
    tally.finish(&format!("{copies} copies"), "the commands");
}

/// The reads of `damage_sdk.py` on a store served by `engine serve`: (name, answer) in order.
/// The server is started on a free port and stopped (by its pid) when the reads are done; a
/// server that does not start, or dies, answers every read with its own words.
fn sdk_reads(dir: &Path) -> Vec<(String, Answer)> {
    const NAMES: [&str; 9] = [
        "sdk read feed",
        "sdk query ids",
        "sdk query range",
        "sdk query eq",
        "sdk query p7",
        "sdk prefix ids",
        "sdk prefix filtered",
        "sdk eq past 1024 of p7",
        "sdk two equalities",
    ];
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let log = dir.with_extension("serve.log");
    let mut server = Command::new(env!("CARGO_BIN_EXE_engine"))
        .arg("--data")
        .arg(dir)
        .args(["serve", "--addr", &addr])
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("start engine serve");
    let started = std::time::Instant::now();
    let up = loop {
        if std::net::TcpStream::connect(&addr).is_ok() {
            break true;
        }
        if server.try_wait().unwrap().is_some() || started.elapsed().as_secs() > 60 {
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let mut lines = Vec::new();
    if up {
        let mut py = Command::new(std::env::var("PYTHON").unwrap_or("python3".into()))
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/damage_sdk.py"))
            .arg(format!("http://{addr}/"))
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("run python3");
        // A read that hangs is as wrong as a short one: the reads get 5 minutes.
        let out = py.stdout.take().unwrap();
        let reader = std::thread::spawn(move || std::io::read_to_string(out).unwrap_or_default());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
        while py.try_wait().unwrap().is_none() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        if py.try_wait().unwrap().is_none() {
            let _ = py.kill();
            let _ = py.wait();
        }
        let text = reader.join().unwrap();
        lines = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .collect();
    }
    let _ = server.kill();
    let _ = server.wait();
    let said = std::fs::read_to_string(&log).unwrap_or_default();
    NAMES
        .iter()
        .map(|name| {
            let line = lines.iter().find(|l| l["name"] == *name);
            let answer = match line {
                Some(l) if l.get("ok").is_some() => Answer::Output(l["ok"].to_string()),
                // The server's log follows, to show what a refusal that names nothing hid (a
                // panic's place); only the answer itself counts as naming the damage.
                Some(l) if l["status"].as_u64().is_some_and(|s| s >= 500) => {
                    Answer::Refused(format!(
                        "{}{LOG}{}",
                        l["error"].as_str().unwrap_or_default(),
                        tail(&said)
                    ))
                }
                // Not served: the server's own words say why (it stopped on the damage).
                Some(l) if l["status"] == 0 => Answer::Refused(format!(
                    "{} (the server said: {said}) {}",
                    l["error"].as_str().unwrap_or_default(),
                    l["trace"].as_str().unwrap_or_default()
                )),
                Some(l) => Answer::Refused(format!("not a 5xx: {l}")),
                None if !up => Answer::Refused(format!("engine serve did not start: {said}")),
                None => {
                    Answer::Refused(format!("no answer in 5 minutes (the server said: {said})"))
                }
            };
            (name.to_string(), answer)
        })
        .collect()
}

#[test]
fn damaged_copies_through_serve_and_the_python_sdk() {
    let ok = Command::new(std::env::var("PYTHON").unwrap_or("python3".into()))
        .args(["-c", "import azure.cosmos"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "pip install azure-cosmos (CI installs it)"
        );
        eprintln!("SKIPPED: the Python SDK is not installed (pip install azure-cosmos)");
        return;
    }
    let copies: u64 = std::env::var("DAMAGE_SDK_COPIES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    let tmp = tempfile::tempdir().unwrap();
    let data = store(tmp.path());
    let clean = std::fs::read(data.join("data.mdb")).unwrap();
    let truth: Vec<(String, String)> = sdk_reads(&data)
        .into_iter()
        .map(|(name, a)| match a {
            Answer::Output(o) => (name, o),
            Answer::Refused(e) => panic!("{name} on the undamaged store: {e}"),
        })
        .collect();
    let lens: Vec<usize> = truth
        .iter()
        .map(|(_, t)| serde_json::from_str::<Vec<Value>>(t).unwrap().len())
        .collect();
    assert_eq!(lens, [4000, 4000, 1499, 1, 100, 200, 112, 100, 400]);

    let mut tally = Tally::default();
    for seed in 1..=copies {
        let (dir, copy) = damaged_copy(tmp.path(), &clean, seed);
        let mut line = format!("{copy}:");
        for ((name, answer), (_, truth)) in sdk_reads(&dir).into_iter().zip(&truth) {
            tally.judge(&copy, &mut line, &name, answer, truth, items);
        }
        eprintln!("{line}");
        let _ = std::fs::remove_dir_all(&dir);
    }
    tally.finish(&format!("serve + Python SDK, {copies} copies"), "the reads");
}
