//! The remote backend against the gateway, through the official Rust SDK: how fast a call is
//! (no Nagle / delayed-ACK stall per request).

use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use cosmos::{Account, ConnectionSettings, Container, ContainerProperties};
use gateway::testing::TestGateway;
use serde_json::{json, Value};

async fn connect(gw: &TestGateway) -> Account {
    Account::connect(&ConnectionSettings::new(
        gw.endpoint(),
        gateway::EMULATOR_KEY,
    ))
    .await
    .unwrap()
}

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
