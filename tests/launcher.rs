//! The launcher as a person runs it: `cargo run --release` starts, seeds on first start, serves,
//! stops cleanly on Ctrl-C (SIGINT), and a second start reuses the data.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Starts the launcher; returns it with the WebStore and blog URLs it printed.
fn start(dir: &std::path::Path) -> (Child, (String, String)) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cosmos-lmdb"))
        .args([
            "--data",
            dir.to_str().unwrap(),
            "--customers",
            "8",
            "--users",
            "4",
            "--webstore-addr",
            "127.0.0.1:0",
            "--blog-addr",
            "127.0.0.1:0",
            "--workers",
            "1",
        ])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let mut webstore = None;
    let urls = loop {
        line.clear();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "the launcher exited before serving"
        );
        if let Some(rest) = line.trim().strip_prefix("WebStore") {
            webstore = Some(rest.split_whitespace().next().unwrap().to_owned());
        }
        if let Some(rest) = line.trim().strip_prefix("Blog") {
            break (
                webstore.expect("WebStore is announced first"),
                rest.split_whitespace().next().unwrap().to_owned(),
            );
        }
    };
    // Keep reading stdout in the background so the child never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = out.read_to_string(&mut rest);
    });
    child.stdout = None;
    (child, urls)
}

fn interrupt_and_wait(mut child: Child) {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    for _ in 0..100 {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "the launcher exited with {status}");
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    child.kill().unwrap();
    panic!("the launcher did not stop within 10 s of Ctrl-C");
}

fn get(url: &str) -> (u16, String) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let r = reqwest::get(url).await.unwrap();
        (r.status().as_u16(), r.text().await.unwrap())
    })
}

#[test]
fn starts_seeds_serves_stops_on_ctrl_c_and_restarts_on_the_same_data() {
    let dir = tempfile::tempdir().unwrap();
    let (child, (webstore, blog)) = start(dir.path());
    let (status, body) = get(&webstore);
    assert_eq!(status, 200);
    assert!(body.contains("Bikes, Road Bikes"));
    let (status, body) = get(&blog);
    assert_eq!(status, 200);
    assert!(body.contains("Recent posts"));
    interrupt_and_wait(child);

    // The engine closed cleanly (its lock is released), and the data is reused.
    let (child, (webstore, _)) = start(dir.path());
    let (status, body) = get(&format!("{webstore}/signin"));
    assert_eq!(status, 200);
    assert!(body.contains("Sign in"));
    interrupt_and_wait(child);
}
