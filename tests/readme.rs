//! The README's `engine` CLI lines work as pasted: every line of README.md that starts with
//! `target/release/engine` runs (with this build's `engine` binary) in a directory holding a
//! freshly seeded demo `data/`, in order, and must exit 0.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const PREFIX: &str = "target/release/engine ";

/// Seeds `dir/data` with the demo (small), by starting the launcher and stopping it.
fn seed_demo(dir: &Path) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cosmos-lmdb"))
        .current_dir(dir)
        .args([
            "--customers",
            "20",
            "--users",
            "3",
            "--no-explorer",
            "--no-gateway",
        ])
        .args([
            "--webstore-addr",
            "127.0.0.1:0",
            "--blog-addr",
            "127.0.0.1:0",
        ])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while out.read_line(&mut line).unwrap() > 0 && !line.starts_with("Ctrl-C stops") {
        line.clear();
    }
    // Keep reading: the launcher prints on its way out, and a closed pipe would kill it.
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    for _ in 0..100 {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "the demo stopped with {status}");
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    panic!("the demo did not stop");
}

/// This build's `engine` binary (the workspace builds it for the CLI's own tests; built here
/// when this test runs alone).
fn engine_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().unwrap().parent().unwrap();
    let bin = profile_dir.join("engine");
    if !bin.exists() {
        let status = Command::new(env!("CARGO"))
            .args(["build", "-p", "engine-cli", "--bin", "engine"])
            .status()
            .unwrap();
        assert!(status.success(), "building the engine CLI");
    }
    bin
}

/// Splits a shell line into words: single and double quotes, `>` redirection, `#` comments.
fn words(line: &str) -> (Vec<String>, Option<String>) {
    let line = match line.find("  #") {
        Some(i) => &line[..i],
        None => line,
    };
    let (mut words, mut word, mut quote, mut any) = (Vec::new(), String::new(), None, false);
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            (None, c) => word.push(c),
        }
    }
    if any || !word.is_empty() {
        words.push(word);
    }
    match words.iter().position(|w| w == ">") {
        Some(i) => {
            let out = words.get(i + 1).cloned();
            words.truncate(i);
            (words, out)
        }
        None => (words, None),
    }
}

#[test]
fn every_engine_line_of_the_readme_runs() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let lines: Vec<&str> = readme.lines().filter(|l| l.starts_with(PREFIX)).collect();
    assert!(lines.len() >= 5, "the README shows the CLI: {lines:?}");
    let dir = tempfile::tempdir().unwrap();
    seed_demo(dir.path());
    let engine = engine_binary();
    for line in lines {
        let (args, out) = words(&line[PREFIX.len()..]);
        let mut cmd = Command::new(&engine);
        cmd.current_dir(dir.path()).args(&args);
        if let Some(out) = out {
            cmd.stdout(std::fs::File::create(dir.path().join(out)).unwrap());
        } else {
            cmd.stdout(Stdio::null());
        }
        let result = cmd.stderr(Stdio::piped()).output().unwrap();
        assert!(
            result.status.success(),
            "README line failed ({}): {line}\n{}",
            result.status,
            String::from_utf8_lossy(&result.stderr)
        );
    }
}

#[test]
fn shell_words_are_split_as_a_shell_would() {
    assert_eq!(
        words(r#"--pk '"cust-demo"' x "SELECT c.id FROM c"   # note"#),
        (
            vec![
                "--pk".into(),
                "\"cust-demo\"".into(),
                "x".into(),
                "SELECT c.id FROM c".into()
            ],
            None
        )
    );
    assert_eq!(
        words("export a > out.jsonl").1.as_deref(),
        Some("out.jsonl")
    );
}
