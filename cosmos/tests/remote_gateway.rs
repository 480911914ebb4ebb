//! The remote backend against the gateway, through the official Rust SDK: how fast a call is
//! (no Nagle / delayed-ACK stall per request) and how queries are paged with the SDK's
//! continuation tokens.

mod common;

use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use cosmos::{Account, Container, ContainerProperties, Error, QueryOptions};
use gateway::testing::TestGateway;
use serde_json::{json, Value};

use common::connect;

async fn posts(account: &Account) -> Container {
    let db = account.create_database_if_not_exists("blog").await.unwrap();
    db.create_container_if_not_exists(ContainerProperties::new("posts", "/postId"))
        .await
        .unwrap()
}

/// The gateway's side of its open connections: the sockets of this process (the test gateway
/// runs in it) bound to `addr` and connected to a peer, each duplicated to read its options.
#[cfg(target_os = "linux")]
fn accepted_sockets(addr: SocketAddr) -> Vec<TcpStream> {
    use std::os::fd::BorrowedFd;
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc/self/fd").unwrap().flatten() {
        let Ok(fd) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let is_socket = std::fs::read_link(entry.path())
            .is_ok_and(|target| target.to_string_lossy().starts_with("socket:"));
        if !is_socket {
            continue;
        }
        // SAFETY: `fd` was open in this process a moment ago; it is only borrowed to duplicate
        // it (a closed or reused descriptor makes the duplicate fail or name another socket,
        // which the address check below leaves out).
        let Ok(owned) = unsafe { BorrowedFd::borrow_raw(fd) }.try_clone_to_owned() else {
            continue;
        };
        let socket = TcpStream::from(owned);
        if socket.local_addr().ok() == Some(addr) && socket.peer_addr().is_ok() {
            found.push(socket);
        }
    }
    found
}

/// The root of the stall the smoke load test showed on the remote backend (a 1 RU page at
/// 42 ms p50 against 0.6 ms embedded): without TCP_NODELAY, actix's last small HTTP/2 frame
/// of a response (END_STREAM) waits for the client's delayed ACK. Checked on the sockets
/// themselves, since whether a given call stalls depends on the kernel's ACK heuristics.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_sets_tcp_nodelay_on_the_sdks_connections() {
    let gw = TestGateway::start();
    let account = connect(&gw).await;
    let c = posts(&account).await;
    c.upsert_item(&json!({"id": "p1", "postId": "p1"}), None, None)
        .await
        .unwrap();
    c.read_item::<Value>("p1", "p1", None).await.unwrap();
    let sockets = accepted_sockets(gw.addr);
    assert!(!sockets.is_empty(), "the SDK's connection is open");
    for s in &sockets {
        assert!(
            s.nodelay().unwrap(),
            "TCP_NODELAY on the gateway's end of {:?}",
            s.peer_addr()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn point_reads_through_the_sdk_do_not_stall_per_request() {
    let gw = TestGateway::start();
    let account = connect(&gw).await;
    let c = posts(&account).await;
    c.create_item(&json!({"id": "p1", "postId": "p1", "n": 1}), None, None)
        .await
        .unwrap();
    // A first read warms the connection (and the SDK's caches).
    c.read_item::<Value>("p1", "p1", None).await.unwrap();
    let n = 50;
    let pause = Duration::from_millis(5);
    let mut took = Duration::ZERO;
    for _ in 0..n {
        // Apart, as a site's pages call: back-to-back calls keep the peer's ACKs immediate.
        tokio::time::sleep(pause).await;
        let started = Instant::now();
        let r = c.read_item::<Value>("p1", "p1", None).await.unwrap();
        took += started.elapsed();
        assert_eq!(r.resource.unwrap()["n"], 1);
    }
    eprintln!(
        "{n} point reads through the SDK: {took:?} ({:?} each)",
        took / n
    );
    // A 40 ms Nagle / delayed-ACK stall per request would be 2 s; a read takes about 1 ms.
    assert!(
        took < Duration::from_secs(1),
        "{n} point reads took {took:?}: a stall per request"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ordered_fan_out_is_paged_with_the_sdks_tokens() {
    let gw = TestGateway::start();
    let account = connect(&gw).await;
    let c = posts(&account).await;
    for i in 0..55 {
        let id = format!("post-{i:03}");
        let doc = json!({
            "id": id, "postId": id, "type": "post", "userId": if i % 5 == 0 { "u2" } else { "u1" },
            "creationDate": format!("2024-01-01T00:00:{i:02}Z"),
        });
        c.create_item(&doc, None, None).await.unwrap();
    }
    let sql = "SELECT * FROM p WHERE p.userId = @userId AND p.type = 'post' \
               ORDER BY p.creationDate DESC";
    let mut seen: Vec<String> = Vec::new();
    let mut continuation = None;
    let mut pages = 0;
    loop {
        let r = c
            .query_items::<Value>(
                sql,
                &[("@userId", json!("u1"))],
                QueryOptions {
                    max_item_count: Some(20),
                    continuation: continuation.take(),
                    ..Default::default()
                },
            )
            .await
            .unwrap_or_else(|e| panic!("page {}: {e}", pages + 1));
        pages += 1;
        assert!(r.items.len() <= 20);
        seen.extend(r.items.iter().map(|p| p["id"].as_str().unwrap().to_owned()));
        match r.continuation {
            Some(token) => continuation = Some(token),
            None => break,
        }
    }
    let expected: Vec<String> = (0..55)
        .rev()
        .filter(|i| i % 5 != 0)
        .map(|i| format!("post-{i:03}"))
        .collect();
    assert_eq!(seen, expected, "every post once, newest first");
    assert_eq!(pages, 3);
}

/// A token the SDK cannot resume this query from (here a fan-out's on a single-partition query
/// and the reverse: the SDK's 500/20203) is a stale or foreign page link, the caller's to fix:
/// a 400 on `continuation`, as the engine answers, not a 503 "unavailable".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_of_another_query_shape_is_a_bad_continuation() {
    let gw = TestGateway::start();
    let account = connect(&gw).await;
    let c = posts(&account).await;
    for i in 0..5 {
        let id = format!("post-{i}");
        c.create_item(&json!({"id": id, "postId": "p", "n": i}), None, None)
            .await
            .unwrap();
    }
    let sql = "SELECT * FROM p ORDER BY p.n";
    let page = |partition_key: Option<&str>, continuation: Option<String>| {
        let c = c.clone();
        let options = QueryOptions {
            partition_key: partition_key.map(Into::into),
            max_item_count: Some(2),
            continuation,
            ..Default::default()
        };
        async move {
            c.query_items::<Value>(sql, cosmos::NO_PARAMS, options)
                .await
        }
    };
    let fan_out = page(None, None).await.unwrap().continuation.unwrap();
    let single = page(Some("p"), None).await.unwrap().continuation.unwrap();
    for (partition_key, token) in [(Some("p"), fan_out), (None, single)] {
        match page(partition_key, Some(token)).await {
            Err(Error::BadRequest {
                field: Some(field), ..
            }) => assert_eq!(field, "continuation"),
            other => panic!("{partition_key:?}: {:?}", other.map(|r| r.items)),
        }
    }
}
