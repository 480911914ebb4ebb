//! `engine serve`: the gateway over a directory, as a person starts it; a signed request is
//! served, Ctrl-C stops it cleanly, and the data it stored is there for the next command.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

fn engine() -> Command {
    Command::new(env!("CARGO_BIN_EXE_engine"))
}

/// A signed request over a plain TCP connection; the status line and the body.
fn request(addr: &str, method: &str, path: &str, (kind, link): (&str, &str), body: &str) -> String {
    let date = httpdate::fmt_http_date(std::time::SystemTime::now());
    let auth = gateway::MasterKey::emulator().authorization(method, kind, link, &date);
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nx-ms-date: {date}\r\nauthorization: {auth}\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    answer
}

#[test]
fn serve_answers_the_cosmos_api_and_stops_on_ctrl_c() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mut child = engine()
        .args([
            "--data",
            data.to_str().unwrap(),
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--host",
            "box.lan",
        ])
        .env_remove("GATEWAY_KEY")
        .env_remove("GATEWAY_HOST")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut addr = None;
    let mut line = String::new();
    while out.read_line(&mut line).unwrap() > 0 {
        if let Some(rest) = line.trim().strip_prefix("AccountEndpoint=http://") {
            addr = Some(rest.split('/').next().unwrap().to_owned());
            assert!(rest.contains(gateway::EMULATOR_KEY), "{line}");
        }
        if line.starts_with("Ctrl-C stops") {
            break;
        }
        line.clear();
    }
    let addr = addr.expect("the endpoint is printed");
    let created = request(&addr, "POST", "/dbs", ("dbs", ""), r#"{"id":"served"}"#);
    assert!(created.starts_with("HTTP/1.1 201"), "{created}");
    let unsigned = |host: &str| {
        let mut s = std::net::TcpStream::connect(&addr).unwrap();
        write!(
            s,
            "GET /dbs HTTP/1.1\r\nHost: {host}\r\nconnection: close\r\n\r\n"
        )
        .unwrap();
        let mut a = String::new();
        s.read_to_string(&mut a).unwrap();
        a
    };
    // Loopback and the names given with --host are answered; any other is refused (issue 33).
    for (host, status) in [
        ("localhost", "401"),
        ("box.lan:8083", "401"),
        ("evil.example", "403"),
    ] {
        let answer = unsigned(host);
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status}")),
            "Host: {host}: {answer}"
        );
    }

    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let mut stopped = None;
    for _ in 0..100 {
        if let Some(s) = child.try_wait().unwrap() {
            stopped = Some(s);
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let stopped = stopped.unwrap_or_else(|| {
        let _ = child.kill();
        panic!("engine serve did not stop on Ctrl-C")
    });
    assert!(stopped.success(), "{stopped}");
    let list = engine()
        .args(["--data", data.to_str().unwrap(), "list"])
        .output()
        .unwrap();
    assert!(list.status.success());
    assert!(String::from_utf8_lossy(&list.stdout).contains("served"));
}

#[test]
fn serve_refuses_the_well_known_key_off_loopback() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let out = engine()
        .args([
            "--data",
            data.to_str().unwrap(),
            "serve",
            "--addr",
            "0.0.0.0:0",
        ])
        .env_remove("GATEWAY_KEY")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a loopback address") && err.contains("--key"),
        "{err}"
    );
    assert!(!data.exists(), "nothing is created");
}

#[test]
fn serve_tls_makes_and_keeps_its_certificate() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mut child = engine()
        .args([
            "--data",
            data.to_str().unwrap(),
            "serve",
            "--addr",
            "127.0.0.1:0",
            "--tls",
        ])
        .env_remove("GATEWAY_KEY")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let (mut endpoint, mut cert) = (None, None);
    let mut line = String::new();
    while out.read_line(&mut line).unwrap() > 0 {
        let l = line.trim().to_owned();
        if l.starts_with("AccountEndpoint=") {
            endpoint = Some(l.clone());
        }
        if let Some(rest) = l.strip_prefix("certificate (self-signed; have clients trust it): ") {
            cert = Some(rest.to_owned());
        }
        if l.starts_with("Ctrl-C stops") {
            break;
        }
        line.clear();
    }
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let _ = child.wait();
    assert!(endpoint.unwrap().starts_with("AccountEndpoint=https://"));
    let cert = cert.expect("the certificate's path is printed");
    let pem = std::fs::read_to_string(&cert).unwrap();
    assert!(pem.starts_with("-----BEGIN CERTIFICATE-----"), "{pem}");
    assert!(data.join("gateway-key.pem").exists());
}
