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
    gateway: Option<String>,
}

/// Starts the launcher with `extra` flags; returns it with the URLs it printed.
fn start(dir: &std::path::Path, extra: &[&str]) -> (Child, Urls) {
    let (child, urls, _output) = launch(dir, extra, Some("warn"));
    (child, urls)
}

/// As [`start`], with `RUST_LOG` set to `log` (or unset: the launcher's default); the thread
/// returns everything the launcher printed, on stdout and stderr, once it has exited.
fn launch(
    dir: &std::path::Path,
    extra: &[&str],
    log: Option<&str>,
) -> (Child, Urls, std::thread::JoinHandle<String>) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cosmos-lmdb"));
    cmd.args([
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
        "--gateway-addr",
        "127.0.0.1:0",
        "--workers",
        "1",
    ])
    .args(if extra.contains(&"--explorer-addr") {
        &[][..]
    } else {
        &["--explorer-addr", "127.0.0.1:0"][..]
    })
    .args(extra)
    .env_remove("RUST_LOG")
    .env_remove("EXPLORER_TOKEN")
    .env_remove("EXPLORER_HOST")
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    if let Some(log) = log {
        cmd.env("RUST_LOG", log);
    }
    let mut child = cmd.spawn().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut all = String::new();
        let _ = stderr.read_to_string(&mut all);
        all
    });
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut printed = String::new();
    let mut line = String::new();
    let (mut webstore, mut blog, mut explorer, mut gateway) = (None, None, None, None);
    let url = |rest: &str| Some(rest.split_whitespace().next().unwrap().to_owned());
    loop {
        line.clear();
        assert!(
            out.read_line(&mut line).unwrap() > 0,
            "the launcher exited before serving"
        );
        printed.push_str(&line);
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("WebStore") {
            webstore = url(rest);
        } else if let Some(rest) = line.strip_prefix("Blog") {
            blog = url(rest);
        } else if let Some(rest) = line.strip_prefix("Explorer") {
            explorer = url(rest);
        } else if let Some(rest) = line.strip_prefix("Gateway") {
            gateway = url(rest);
        } else if line.starts_with("Ctrl-C stops") {
            break;
        }
    }
    // `--sites X` starts only X: the other is "" here.
    let only = extra.windows(2).find(|w| w[0] == "--sites").map(|w| w[1]);
    let urls = Urls {
        webstore: webstore
            .or_else(|| (only == Some("blog")).then(String::new))
            .expect("WebStore is announced"),
        blog: blog
            .or_else(|| (only == Some("webstore")).then(String::new))
            .expect("the blog is announced"),
        explorer,
        gateway,
    };
    // Keep reading stdout in the background so the child never blocks on a full pipe.
    let output = std::thread::spawn(move || {
        let _ = out.read_to_string(&mut printed);
        printed + &errors.join().unwrap_or_default()
    });
    child.stdout = None;
    (child, urls, output)
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
    fetch(&reqwest::Client::new(), url, None)
}

/// GET `url` with `client` (and a bearer token), following redirects.
fn fetch(client: &reqwest::Client, url: &str, bearer: Option<&str>) -> (u16, String) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut req = client.get(url);
        if let Some(token) = bearer {
            req = req.bearer_auth(token);
        }
        let r = req.send().await.unwrap();
        (r.status().as_u16(), r.text().await.unwrap())
    })
}

/// The explorer's printed URL split into its address and token.
fn explorer_token(url: &str) -> (&str, &str) {
    let (base, token) = url
        .split_once("/?token=")
        .unwrap_or_else(|| panic!("the explorer URL carries its token: {url}"));
    (base, token)
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

    // The explorer sees both sites' containers, and /metrics what they served. Its printed URL
    // carries a fresh token: a browser opening it gets a cookie and the page; nobody else does.
    let explorer = urls.explorer.expect("the explorer is on by default");
    let (base, token) = explorer_token(&explorer);
    assert_eq!(token.len(), 64, "{token}");
    let browser = reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap();
    let (status, body) = fetch(&browser, &explorer, None);
    assert_eq!(status, 200);
    assert!(body.contains("webstore") && body.contains("blog"), "{body}");
    assert!(body.contains("read-only"));
    assert_eq!(fetch(&browser, &format!("{base}/partitions"), None).0, 200);
    let (status, body) = get(base);
    assert_eq!(status, 401);
    assert!(body.contains("launcher printed"), "{body}");
    assert_eq!(get(&format!("{base}/metrics")).0, 401);
    let (status, metrics) = fetch(
        &reqwest::Client::new(),
        &format!("{base}/metrics"),
        Some(token),
    );
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

    // On all interfaces with a token of one's own: the printed URL is the loopback one, with
    // that token, and it is the only token answered.
    let (child, urls) = start(
        dir.path(),
        &[
            "--explorer-addr",
            "0.0.0.0:0",
            "--explorer-token",
            "my-own-token",
            "--explorer-host",
            "box.lan,Other.Lan",
        ],
    );
    let explorer = urls.explorer.expect("the explorer is on");
    let (base, token) = explorer_token(&explorer);
    assert!(base.starts_with("http://127.0.0.1:"), "{base}");
    assert_eq!(token, "my-own-token");
    let client = reqwest::Client::new();
    let metrics = format!("{base}/metrics");
    assert_eq!(fetch(&client, &metrics, Some("my-own-token")).0, 200);
    assert_eq!(fetch(&client, &metrics, Some("another-token")).0, 401);
    // The names given with --explorer-host are answered; others are not.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for (host, status) in [
        ("box.lan:8082", 200),
        ("other.lan", 200),
        ("evil.example:8082", 403),
    ] {
        let r = rt
            .block_on(
                client
                    .get(&metrics)
                    .header("host", host)
                    .bearer_auth("my-own-token")
                    .send(),
            )
            .unwrap();
        assert_eq!(r.status().as_u16(), status, "Host: {host}");
    }
    interrupt_and_wait(child);
}

#[test]
fn a_non_loopback_explorer_needs_a_token_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cosmos-lmdb"))
        .args(["--data", dir.path().to_str().unwrap()])
        .args(["--explorer-addr", "0.0.0.0:0"])
        .env_remove("EXPLORER_TOKEN")
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    assert!(!out.status.success(), "it must not start");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--explorer-addr 0.0.0.0:0 is not a loopback address")
            && stderr.contains("--explorer-token"),
        "{stderr}"
    );
    assert_eq!(stderr.trim().lines().count(), 1, "one line: {stderr}");
    // Refused before anything is opened or seeded.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn the_gateway_serves_the_cosmos_api_on_the_sites_engine() {
    let dir = tempfile::tempdir().unwrap();
    let (child, urls) = start(dir.path(), &["--gateway-host", "box.lan"]);
    let base = urls.gateway.expect("the gateway is announced");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let read_dbs = |host: Option<&str>| {
        let date = httpdate::fmt_http_date(std::time::SystemTime::now());
        let auth = gateway::MasterKey::emulator().authorization("GET", "dbs", "", &date);
        let mut req = reqwest::Client::new()
            .get(format!("{base}dbs"))
            .header("x-ms-date", &date)
            .header("authorization", auth);
        if let Some(host) = host {
            req = req.header("host", host);
        }
        rt.block_on(async {
            let r = req.send().await.unwrap();
            (r.status().as_u16(), r.text().await.unwrap())
        })
    };
    // Signed right, under a name it does not answer to (DNS rebinding): refused.
    let (status, body) = read_dbs(Some("evil.example:8083"));
    assert_eq!(status, 403, "{body}");
    assert_eq!(read_dbs(Some("box.lan:8083")).0, 200, "--gateway-host");
    let (status, body) = read_dbs(None);
    assert_eq!(status, 200, "{body}");
    // The sites' databases, seeded on the same engine.
    assert!(
        body.contains("\"Databases\"") && body.contains("blog"),
        "{body}"
    );
    interrupt_and_wait(child);

    // No gateway with --no-gateway.
    let (child, urls) = start(dir.path(), &["--no-gateway"]);
    assert!(urls.gateway.is_none());
    interrupt_and_wait(child);

    // https with --gateway-tls: a self-signed certificate kept in the data directory.
    let (child, urls) = start(dir.path(), &["--gateway-tls"]);
    assert!(urls.gateway.unwrap().starts_with("https://"));
    assert!(dir.path().join("gateway-cert.pem").exists());
    interrupt_and_wait(child);
}

#[test]
fn a_non_loopback_gateway_needs_a_key_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cosmos-lmdb"))
        .args(["--data", dir.path().to_str().unwrap()])
        .args(["--gateway-addr", "0.0.0.0:0"])
        .env_remove("GATEWAY_KEY")
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    assert!(!out.status.success(), "it must not start");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--gateway-addr 0.0.0.0:0 is not a loopback address")
            && stderr.contains("--gateway-key"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn logs_to_a_pipe_carry_no_colour_codes_nor_actix_start_lines() {
    let dir = tempfile::tempdir().unwrap();
    // The default log level (no RUST_LOG), output to pipes: what `> log.txt` or a service gets.
    let (child, urls, output) = launch(dir.path(), &[], None);
    assert_eq!(get(&urls.blog).0, 200);
    interrupt_and_wait(child);
    let printed = output.join().unwrap();
    assert!(printed.contains("Ctrl-C stops"), "{printed}");
    assert!(!printed.contains('\u{1b}'), "ANSI escape codes:\n{printed}");
    // actix's "starting N workers" / "starting service" lines are debug detail.
    assert!(
        !printed.contains("starting service") && !printed.contains("actix_server"),
        "{printed}"
    );
}

#[test]
fn help_names_the_sites_the_explorer_and_the_gateway() {
    let out = Command::new(env!("CARGO_BIN_EXE_cosmos-lmdb"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for name in [
        "WebStore",
        "blog",
        "Data Explorer",
        "gateway",
        "--no-explorer",
        "--no-gateway",
    ] {
        assert!(help.contains(name), "--help names {name}:\n{help}");
    }
}

/// Issue 37: `--sites webstore` starts WebStore alone: no blog server, no blog data seeded.
#[test]
fn sites_webstore_starts_the_shop_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (child, urls, output) = launch(
        dir.path(),
        &["--sites", "webstore", "--no-gateway"],
        Some("warn"),
    );
    assert!(urls.blog.is_empty(), "no blog is announced");
    let (status, body) = get(&format!("{}/", urls.webstore));
    assert_eq!(status, 200);
    assert!(body.contains("RU for this page") || body.contains("RU</strong> for this page"));
    interrupt_and_wait(child);
    let printed = output.join().unwrap();
    assert!(!printed.contains("Blog "), "{printed}");
    let engine = engine::Engine::open(dir.path(), engine::EngineOptions::default()).unwrap();
    let databases: Vec<String> = engine.databases().into_iter().map(|d| d.id).collect();
    assert!(databases.contains(&"webstore".to_owned()), "{databases:?}");
    assert!(
        !databases.iter().any(|d| d.starts_with("blog")),
        "no blog data: {databases:?}"
    );
}
