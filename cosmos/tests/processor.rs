//! The change-feed processor on a remote account (the gateway, through the SDK): leases shared
//! by two processes, every change handled once, and a dead process's leases taken over.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use cosmos::{Account, ConnectionSettings, Container, ContainerProperties, StartFrom};
use gateway::testing::TestGateway;
use parking_lot::Mutex;
use serde_json::{json, Value};

type Seen = Arc<Mutex<HashMap<String, u32>>>;

async fn containers(gw: &TestGateway) -> (Container, Container) {
    let account = Account::connect(&ConnectionSettings::new(
        gw.endpoint(),
        gateway::EMULATOR_KEY,
    ))
    .await
    .unwrap();
    let db = account.create_database_if_not_exists("d").await.unwrap();
    let source = db
        .create_container_if_not_exists(ContainerProperties::new("source", "/pk"))
        .await
        .unwrap();
    let leases = db
        .create_container_if_not_exists(ContainerProperties::new("leases", "/processor"))
        .await
        .unwrap();
    (source, leases)
}

fn processor(source: &Container, leases: &Container, seen: &Seen) -> cosmos::ChangeFeedProcessor {
    let seen = seen.clone();
    source
        .change_feed_processor("copy")
        .lease_container(leases.clone())
        .start_from(StartFrom::Beginning)
        .poll_interval(Duration::from_millis(100))
        .lease_expiry(Duration::from_secs(2))
        .handler(move |batch: Vec<Value>| {
            let seen = seen.clone();
            async move {
                let mut seen = seen.lock();
                for doc in batch {
                    *seen
                        .entry(doc["id"].as_str().unwrap().to_owned())
                        .or_default() += 1;
                }
                Ok::<(), String>(())
            }
        })
        .build()
        .unwrap()
}

async fn write(source: &Container, range: std::ops::Range<u32>) {
    for i in range {
        source
            .create_item(
                &json!({"id": format!("i{i}"), "pk": format!("p{}", i % 7)}),
                None,
                None,
            )
            .await
            .unwrap();
    }
}

async fn until(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..200 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("timed out waiting for {what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_share_the_leases_and_each_change_is_handled_once() {
    let gw = TestGateway::start();
    let (source, leases) = containers(&gw).await;
    let seen: Seen = Default::default();
    let (a, b) = (
        processor(&source, &leases, &seen),
        processor(&source, &leases, &seen),
    );
    a.start().await.unwrap();
    b.start().await.unwrap();
    write(&source, 0..40).await;
    until("40 changes", || seen.lock().len() == 40).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        seen.lock().values().all(|n| *n == 1),
        "each change once: {:?}",
        seen.lock()
    );
    assert_eq!(a.delivered() + b.delivered(), 40);
    assert_eq!(a.pending().await.unwrap(), 0);
    a.stop().await;
    b.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_process_leases_are_taken_over_after_they_expire() {
    let gw = TestGateway::start();
    let (source, leases) = containers(&gw).await;
    let seen: Seen = Default::default();
    // Process A runs on a runtime of its own; dropping that runtime kills it mid-flight,
    // without giving its leases back (as kill -9 would).
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let a = {
        let (source, leases, seen) = (source.clone(), leases.clone(), seen.clone());
        rt.spawn(async move {
            let a = processor(&source, &leases, &seen);
            a.start().await.unwrap();
            a
        })
        .await
        .unwrap()
    };
    write(&source, 0..10).await;
    until("A handles the first changes", || seen.lock().len() == 10).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    std::thread::spawn(move || drop(rt)).join().unwrap();
    drop(a);

    let b = processor(&source, &leases, &seen);
    b.start().await.unwrap();
    write(&source, 10..30).await;
    // B waits for A's leases to expire (2 s), then carries on from A's checkpoint.
    until("B takes over", || seen.lock().len() == 30).await;
    assert!(b.delivered() >= 20);
    assert!(
        seen.lock()
            .iter()
            .all(|(id, n)| *n == 1 || id.as_str() < "i10"),
        "nothing B owned came twice: {:?}",
        seen.lock()
    );
    b.stop().await;
}
