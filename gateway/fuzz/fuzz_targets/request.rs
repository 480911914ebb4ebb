//! Arbitrary requests, signed so they get past authorization, written as raw HTTP/1.1 to a
//! gateway over a real engine: every one is answered (no panic, no hang), never with a 5xx but
//! 501. `tests/fuzz.rs` checks the same promise (and that a refused request stores nothing)
//! under proptest in `cargo test`; this is the coverage-guided run of it.
#![no_main]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use gateway::testing::TestGateway;
use gateway::MasterKey;
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

const METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/// What the SDKs send; the fuzzer picks among them and writes the values.
const HEADERS: [&str; 20] = [
    "x-ms-documentdb-partitionkey",
    "x-ms-max-item-count",
    "x-ms-continuation",
    "x-ms-documentdb-isquery",
    "x-ms-documentdb-query-enablecrosspartition",
    "x-ms-documentdb-is-upsert",
    "x-ms-cosmos-is-batch-request",
    "x-ms-cosmos-batch-atomic",
    "x-ms-cosmos-is-query-plan-request",
    "x-ms-documentdb-partitionkeyrangeid",
    "x-ms-start-epk",
    "x-ms-end-epk",
    "x-ms-read-key-type",
    "if-match",
    "if-none-match",
    "if-modified-since",
    "a-im",
    "content-type",
    "x-ms-offer-throughput",
    "x-ms-documentdb-pre-trigger-include",
];

/// `(path, resource type, resource link)` a request names; `{id}` is the fuzzed id.
const TARGETS: [(&str, &str, &str); 10] = [
    ("/", "", ""),
    ("/dbs", "dbs", ""),
    ("/dbs/d", "dbs", "dbs/d"),
    ("/dbs/d/colls", "colls", "dbs/d"),
    ("/dbs/d/colls/c", "colls", "dbs/d/colls/c"),
    ("/dbs/d/colls/c/docs", "docs", "dbs/d/colls/c"),
    (
        "/dbs/d/colls/c/docs/{id}",
        "docs",
        "dbs/d/colls/c/docs/{id}",
    ),
    ("/dbs/d/colls/c/pkranges", "pkranges", "dbs/d/colls/c"),
    (
        "/dbs/d/colls/c/sprocs/{id}",
        "sprocs",
        "dbs/d/colls/c/sprocs/{id}",
    ),
    ("/offers", "offers", ""),
];

#[derive(Arbitrary, Debug)]
struct Fuzzed {
    method: u8,
    target: u8,
    id: String,
    headers: Vec<(u8, String)>,
    body: Vec<u8>,
}

struct Fixture {
    gw: TestGateway,
    key: MasterKey,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let f = Fixture {
            gw: TestGateway::start(),
            key: MasterKey::emulator(),
        };
        let setup = [
            ("/dbs", "dbs", "", r#"{"id":"d"}"#),
            (
                "/dbs/d/colls",
                "colls",
                "dbs/d",
                r#"{"id":"c","partitionKey":{"paths":["/pk"],"kind":"Hash","version":2}}"#,
            ),
            (
                "/dbs/d/colls/c/docs",
                "docs",
                "dbs/d/colls/c",
                r#"{"id":"a","pk":"p","n":1}"#,
            ),
        ];
        for (path, kind, link, body) in setup {
            let pk = [(
                "x-ms-documentdb-partitionkey".to_owned(),
                r#"["p"]"#.to_owned(),
            )];
            let status = send(&f, "POST", path, kind, link, &pk, body.as_bytes());
            assert_eq!(status, Some(201), "set-up {path}");
        }
        f
    })
}

/// Writes one request and reads the whole answer; the status, or `None` if the connection
/// could not be made.
fn send(
    f: &Fixture,
    method: &str,
    path: &str,
    kind: &str,
    link: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> Option<u16> {
    let addr: SocketAddr = f.gw.addr;
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(20))).ok()?;
    let date = httpdate::fmt_http_date(SystemTime::now());
    let auth = f.key.authorization(method, kind, link, &date);
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nhost: {addr}\r\nx-ms-date: {date}\r\nauthorization: {auth}\r\nx-ms-version: 2020-07-15\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).ok()?;
    let _ = s.write_all(body);
    let mut out = Vec::new();
    if let Err(e) = s.read_to_end(&mut out) {
        assert!(
            e.kind() != std::io::ErrorKind::WouldBlock && e.kind() != std::io::ErrorKind::TimedOut,
            "no answer within 20 s to {method} {path}"
        );
    }
    let line = out.split(|b| *b == b'\r').next().unwrap_or_default();
    // A request the HTTP layer could not frame may be closed without an answer.
    std::str::from_utf8(line)
        .ok()?
        .split(' ')
        .nth(1)?
        .parse()
        .ok()
}

fuzz_target!(|input: Fuzzed| {
    // An id the URL would not keep as one segment: the client would sign another path.
    if input.id.is_empty()
        || input.id.chars().all(|c| c == '.')
        || input.id.contains(['/', '\r', '\n'])
    {
        return;
    }
    let f = fixture();
    let method = METHODS[input.method as usize % METHODS.len()];
    let (path, kind, link) = TARGETS[input.target as usize % TARGETS.len()];
    let enc = percent_encoding::utf8_percent_encode(&input.id, percent_encoding::NON_ALPHANUMERIC);
    let path = path.replace("{id}", &enc.to_string());
    let link = link.replace("{id}", &input.id);
    let headers: Vec<(String, String)> = input
        .headers
        .iter()
        .take(8)
        // Values stay inside their header line (a line break would make them other headers).
        .filter(|(_, v)| !v.contains(['\r', '\n']))
        .map(|(i, v)| (HEADERS[*i as usize % HEADERS.len()].to_owned(), v.clone()))
        .collect();
    if let Some(status) = send(f, method, &path, kind, &link, &headers, &input.body) {
        assert!(
            status < 500 || status == 501,
            "{method} {path} {headers:?} answered {status}"
        );
    }
});
