//! Issue 33: connections that hold on are closed. 2 100 connections that sent nothing took every
//! connection slot (each new request then timed out), and connections that sent nothing, part
//! of a request, or were idle after one stayed open. Now a connection must send its first byte
//! and its request line and headers within the header timeout (5 s), may stay idle 5 s between
//! requests, and one address holds at most `Limits::connections_per_address` (256).
//!
//! Only loopback: the flood comes from 127.0.0.2 (another loopback address of this machine),
//! the new request from 127.0.0.1.

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::TestGateway;
use gateway::Limits;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

const IDLE: usize = 2_000;

/// 2 000 connections need more descriptors than some systems give a process by default.
fn raise_file_limit(want: u64) {
    // SAFETY: getrlimit/setrlimit with a valid pointer to a local struct.
    unsafe {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && lim.rlim_cur < want {
            lim.rlim_cur = want.min(lim.rlim_max);
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}

async fn connect_from(ip: &str, to: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(format!("{ip}:0").parse().unwrap())?;
    socket.connect(to).await
}

/// Whether the gateway has closed `s` (what it sent before, a 408, is read and dropped).
fn closed(s: &TcpStream) -> bool {
    let mut buf = [0u8; 512];
    loop {
        match s.try_read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return false,
            Err(_) => return true,
        }
    }
}

/// A request from `ip` on a new connection: the status line, and how long it took.
async fn request_from(ip: &str, to: SocketAddr) -> (String, Duration) {
    let started = Instant::now();
    let mut s = connect_from(ip, to).await.expect("connects");
    s.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut answer = String::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), s.read_to_string(&mut answer)).await;
    let line = answer.lines().next().unwrap_or_default().to_owned();
    (line, started.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_are_closed_and_leave_room_for_new_requests() {
    raise_file_limit(IDLE as u64 + 1_024);
    let gw = TestGateway::start();
    let limits = Limits::default();
    let addr = gw.addr;

    let started = Instant::now();
    let mut idle = Vec::with_capacity(IDLE);
    for i in 0..IDLE {
        match connect_from("127.0.0.2", addr).await {
            Ok(s) => idle.push(s),
            Err(e) => panic!("connection {i} of {IDLE}: {e} (file limit?)"),
        }
    }
    let opened = started.elapsed();
    // What else holds on: part of a request line, a request line, headers without their end,
    // and a connection idle after its answer (keep-alive).
    let mut partial = Vec::new();
    for sent in [
        &b"G"[..],
        b"GET / HTTP/1.1\r\n",
        b"GET / HTTP/1.1\r\nHost: localhost\r\n",
    ] {
        let mut s = connect_from("127.0.0.3", addr).await.unwrap();
        s.write_all(sent).await.unwrap();
        partial.push(s);
    }
    let mut kept = connect_from("127.0.0.3", addr).await.unwrap();
    kept.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut head = [0u8; 12];
    kept.read_exact(&mut head).await.unwrap();
    assert_eq!(&head, b"HTTP/1.1 401", "an unsigned request is answered");

    // A new client is answered at once, whatever the flood holds.
    let (line, took) = request_from("127.0.0.1", addr).await;
    eprintln!("{IDLE} connections opened in {opened:?}; a new request answered in {took:?}");
    assert!(line.starts_with("HTTP/1.1 401"), "{line:?}");
    assert!(took < Duration::from_secs(1), "{took:?}");

    // The flood's address holds at most its cap: the others were closed at once, and so is one
    // more from it.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let open = idle.iter().filter(|s| !closed(s)).count();
    eprintln!("open from 127.0.0.2 after 0.5 s: {open}");
    assert!(open <= limits.connections_per_address, "{open} still open");
    let (line, _) = request_from("127.0.0.2", addr).await;
    assert_eq!(
        line, "",
        "a connection past the address's cap is closed unanswered"
    );

    // Past the header timeout and the keep-alive (5 s each), everything is closed.
    let deadline = started + limits.header_timeout.max(limits.keep_alive) + Duration::from_secs(4);
    loop {
        let open = idle.iter().filter(|s| !closed(s)).count()
            + partial.iter().filter(|s| !closed(s)).count()
            + usize::from(!closed(&kept));
        if open == 0 {
            eprintln!(
                "all closed {:?} after the first connection",
                started.elapsed()
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{open} connections still open after {:?}",
            started.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    drop(idle);
    // The address is served again.
    let (line, _) = request_from("127.0.0.2", addr).await;
    assert!(line.starts_with("HTTP/1.1 401"), "{line:?}");
}
