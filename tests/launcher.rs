//! The launcher as a person runs it: `cargo run --release` starts, seeds on first start, serves
//! both sites and the Data Explorer, stops cleanly on Ctrl-C (SIGINT), and a second start reuses
//! the data.

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The URLs the launcher printed.
struct Urls {
    webstore: String,
    blog: String,
    explorer: Option<String>,
}

/// Starts the launcher with `extra` flags; returns it with the URLs it printed.
fn start(dir: &std::path::Path, extra: &[&str]) -> (Child, Urls) {
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
            "--explorer-addr",
            "127.0.0.1:0",
        ])
        .args(extra)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let (mut webstore, mut blog, mut explorer) = (None, None, None);
    let url = |rest: &str| Some(rest.split_whitespace().next().unwrap().to_owned());
    loop {
        line.clear();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "the launcher exited before serving"
        );
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("WebStore") {
            webstore = url(rest);
        } else if let Some(rest) = line.strip_prefix("Blog") {
            blog = url(rest);
        } else if let Some(rest) = line.strip_prefix("Explorer") {
            explorer = url(rest);
        } else if line.starts_with("Ctrl-C stops") {
            break;
        }
    }
    let urls = Urls {
        webstore: webstore.expect("WebStore is announced"),
        blog: blog.expect("the blog is announced"),
        explorer,
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
    let (child, urls) = start(dir.path(), &[]);
    let (status, body) = get(&urls.webstore);
    assert_eq!(status, 200);
    assert!(body.contains("Bikes, Road Bikes"));
    let (status, body) = get(&urls.blog);
    assert_eq!(status, 200);
    assert!(body.contains("Recent posts"));

    // The explorer sees both sites' containers, and /metrics what they served.
    let explorer = urls.explorer.expect("the explorer is on by default");
    let (status, body) = get(&explorer);
    assert_eq!(status, 200);
    assert!(body.contains("webstore") && body.contains("blog"), "{body}");
    assert!(body.contains("read-only"));
    let (status, metrics) = get(&format!("{explorer}/metrics"));
    assert_eq!(status, 200);
    assert!(metrics.contains("engine_request_units_total{"), "{metrics}");
    assert!(
        metrics.contains("http_request_duration_seconds_bucket{site=\"WebStore\""),
        "{metrics}"
    );
    interrupt_and_wait(child);

    // The engine closed cleanly (its lock is released), and the data is reused.
    let (child, urls) = start(dir.path(), &["--no-explorer"]);
    assert!(urls.explorer.is_none(), "--no-explorer turns it off");
    let (status, body) = get(&format!("{}/signin", urls.webstore));
    assert_eq!(status, 200);
    assert!(body.contains("Sign in"));
    interrupt_and_wait(child);
}
