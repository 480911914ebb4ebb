//! Crash tests: the test binary re-runs one of its own tests as a child process that works under
//! load and prints a line for every acknowledged write; the parent kills it with SIGKILL once
//! enough have arrived, with more writes in flight.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs this binary's test `child` with `env` set to `dir`, collects what follows `prefix` on each
/// line it prints, and kills it (SIGKILL) after `wanted` such lines. Panics if it stops first.
pub fn kill_after_acks(
    child: &str,
    env: &str,
    dir: &Path,
    prefix: &str,
    wanted: usize,
) -> Vec<String> {
    let mut process = Command::new(std::env::current_exe().expect("the test binary"))
        .args([child, "--exact", "--nocapture", "--test-threads=1"])
        .env(env, dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the child starts");
    let mut acked = Vec::new();
    let out = BufReader::new(process.stdout.take().expect("piped stdout"));
    for line in out.lines() {
        let line = line.expect("the child's output");
        if let Some(rest) = line.strip_prefix(prefix) {
            acked.push(rest.to_owned());
            if acked.len() >= wanted {
                break;
            }
        }
    }
    process.kill().expect("SIGKILL");
    process.wait().expect("the child ends");
    assert!(
        acked.len() >= wanted,
        "the child stopped after {} acknowledgements",
        acked.len()
    );
    acked
}
