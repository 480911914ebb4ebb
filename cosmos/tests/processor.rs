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
    source_and_leases(&db).await
}

/// The watched container (`/pk`) and the lease container (`/processor`) of a database.
async fn source_and_leases(db: &cosmos::Database) -> (Container, Container) {
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

/// A source and lease container on the embedded engine (the directory lives as long as the
/// returned guard).
async fn embedded_containers() -> (Container, Container, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine::Engine::open(dir.path(), Default::default()).unwrap();
    let db = Account::embedded(engine)
        .create_database_if_not_exists("d")
        .await
        .unwrap();
    let (source, leases) = source_and_leases(&db).await;
    (source, leases, dir)
}

/// A processor whose handler refuses any batch holding a `poison` change (as a worker does
/// with a change it cannot handle), and records what it handled.
fn poisoned(source: &Container, leases: &Container, seen: &Seen) -> cosmos::ChangeFeedProcessor {
    let seen = seen.clone();
    source
        .change_feed_processor("picky")
        .lease_container(leases.clone())
        .start_from(StartFrom::Beginning)
        .poll_interval(Duration::from_millis(100))
        .dead_letter_after(3)
        .handler(move |batch: Vec<Value>| {
            let seen = seen.clone();
            async move {
                if let Some(bad) = batch.iter().find(|d| d["poison"] == true) {
                    return Err(format!("cannot handle {}", bad["id"]));
                }
                for doc in batch {
                    *seen
                        .lock()
                        .entry(doc["id"].as_str().unwrap().to_owned())
                        .or_default() += 1;
                }
                Ok(())
            }
        })
        .build()
        .unwrap()
}

async fn dead_letters(leases: &Container, processor: &str) -> Vec<Value> {
    let options = cosmos::QueryOptions {
        partition_key: Some(cosmos::dead_letter::partition(processor).as_str().into()),
        ..Default::default()
    };
    leases
        .query_all::<Value>("SELECT * FROM c", cosmos::NO_PARAMS, options)
        .await
        .unwrap()
        .items
}

async fn a_change_that_keeps_failing_is_set_aside_and_the_rest_go_on(
    source: Container,
    leases: Container,
) {
    let seen: Seen = Default::default();
    let p = poisoned(&source, &leases, &seen);
    p.start().await.unwrap();
    write(&source, 0..3).await;
    source
        .create_item(
            &json!({"id": "bad", "pk": "p0", "poison": true}),
            None,
            None,
        )
        .await
        .unwrap();
    write(&source, 3..6).await;
    until("the good changes of the failing batch", || {
        seen.lock().len() == 6
    })
    .await;
    let dead = dead_letters(&leases, "picky").await;
    assert_eq!(dead.len(), 1, "{dead:?}");
    assert_eq!(dead[0]["change"]["id"], "bad");
    assert_eq!(dead[0]["error"], "cannot handle \"bad\"");
    let (failures, _) = p.failures();
    assert!(failures >= 2, "retried before setting aside: {failures}");
    // The worker goes on with later changes, and nothing was set aside twice.
    write(&source, 6..9).await;
    until("later changes", || seen.lock().len() == 9).await;
    assert_eq!(dead_letters(&leases, "picky").await.len(), 1);
    assert!(!seen.lock().contains_key("bad"));
    p.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_a_change_that_keeps_failing_is_set_aside() {
    let (source, leases, _dir) = embedded_containers().await;
    a_change_that_keeps_failing_is_set_aside_and_the_rest_go_on(source, leases).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_a_change_that_keeps_failing_is_set_aside() {
    let gw = TestGateway::start();
    let (source, leases) = containers(&gw).await;
    a_change_that_keeps_failing_is_set_aside_and_the_rest_go_on(source, leases).await;
}

/// A throttled account is nobody's fault: more 429s than the bound, and nothing is set aside.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transient_errors_are_retried_without_counting() {
    let (source, leases, _dir) = embedded_containers().await;
    let attempts = Arc::new(Mutex::new(0u32));
    let counted = attempts.clone();
    let p = source
        .change_feed_processor("throttled")
        .lease_container(leases.clone())
        .start_from(StartFrom::Beginning)
        .dead_letter_after(2)
        .handler(move |_batch: Vec<Value>| {
            let attempts = counted.clone();
            async move {
                let mut n = attempts.lock();
                *n += 1;
                if *n <= 4 {
                    return Err(cosmos::Error::TooManyRequests {
                        partition: 0,
                        budget_ru_per_s: 400.0,
                        retry_after: Duration::from_millis(10),
                    });
                }
                Ok(())
            }
        })
        .build()
        .unwrap();
    p.start().await.unwrap();
    write(&source, 0..1).await;
    until("handled after the throttling passed", || {
        *attempts.lock() >= 5
    })
    .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(*attempts.lock(), 5);
    assert!(dead_letters(&leases, "throttled").await.is_empty());
    p.stop().await;
}

/// "Has what I changed been handled?" on an account: once the worker has read its lease to the
/// end after the change, the answer costs nothing; before that it is "pending" (the next poll
/// will tell), still free; only `pending()` without a moment reads the change feed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lag_asked_since_a_change_is_free_once_the_worker_read_past_it() {
    let gw = TestGateway::start();
    let (source, leases) = containers(&gw).await;
    let seen: Seen = Default::default();
    let p = processor(&source, &leases, &seen);
    p.start().await.unwrap();
    write(&source, 0..5).await;
    let changed = std::time::SystemTime::now();
    until("5 changes", || seen.lock().len() == 5).await;
    // Two polls (100 ms each) after the change: the lease was read to its end since.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let (n, calls) = cosmos::ledger::measured(p.pending_since(changed)).await;
    assert_eq!(n.unwrap(), 0);
    assert!(calls.calls().is_empty(), "no read: {:?}", calls.calls());
    // A moment the worker has not read past yet: pending, and still no read.
    let later = std::time::SystemTime::now() + Duration::from_secs(3600);
    let (n, calls) = cosmos::ledger::measured(p.pending_since(later)).await;
    assert_eq!(n.unwrap(), 1);
    assert!(calls.calls().is_empty());
    // Without a moment, the estimate reads the feed from the checkpoints (and is recorded).
    let (n, calls) = cosmos::ledger::measured(p.pending()).await;
    assert_eq!(n.unwrap(), 0);
    assert!(!calls.calls().is_empty());
    assert!(calls
        .calls()
        .iter()
        .all(|c| c.operation == cosmos::LAG_ESTIMATE));
    p.stop().await;
}

/// The processor's leases (`copy`), whole.
async fn copy_leases(leases: &Container) -> Vec<Value> {
    leases
        .query_all::<Value>(
            "SELECT * FROM c WHERE c.processor LIKE 'copy.%'",
            cosmos::NO_PARAMS,
            Default::default(),
        )
        .await
        .unwrap()
        .items
}

/// Waits (up to 30 s) for one lease per physical partition of the source, the same for a
/// second in a row; their number. The engine may still divide a partition just after the
/// writes, and its holder divides the lease at its next listing: a count that matches only
/// for a moment (the parent's lease still there, one child missing) is not the end state.
async fn one_lease_per_partition(gw: &TestGateway, leases: &Container) -> usize {
    let partitions = || {
        gw.engine
            .database("d")
            .container("source")
            .partitions()
            .unwrap()
            .len()
    };
    let mut matched = 0;
    for _ in 0..300 {
        matched = if copy_leases(leases).await.len() == partitions() {
            matched + 1
        } else {
            0
        };
        if matched == 10 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let ranges: Vec<Value> = copy_leases(leases)
        .await
        .into_iter()
        .map(|l| l["range"].clone())
        .collect();
    assert_eq!(
        ranges.len(),
        partitions(),
        "one lease per range: {ranges:?}"
    );
    ranges.len()
}

/// Creates items `i{n}` for `range`, spread over 97 partition keys, `pad` bytes each.
async fn write_spread(source: &Container, range: std::ops::Range<u32>, pad: usize) {
    for i in range {
        let doc =
            json!({"id": format!("i{i}"), "pk": format!("p{}", i % 97), "pad": "x".repeat(pad)});
        source.create_item(&doc, None, None).await.unwrap();
    }
}

/// Two owners hold the leases, as evenly as they divide.
async fn shares_are_even(leases: &Container) -> bool {
    let mut counts = std::collections::HashMap::<String, usize>::new();
    for lease in copy_leases(leases).await {
        *counts
            .entry(lease["owner"].as_str().unwrap_or("").to_owned())
            .or_default() += 1;
    }
    let held: Vec<usize> = (counts.iter())
        .filter(|(owner, _)| !owner.is_empty())
        .map(|(_, n)| *n)
        .collect();
    held.len() == 2 && held.iter().max().unwrap() - held.iter().min().unwrap() <= 1
}

/// Every change seen exactly once.
fn assert_once(seen: &Seen) {
    let twice: Vec<_> = seen
        .lock()
        .iter()
        .filter(|(_, n)| **n != 1)
        .map(|(k, n)| (k.clone(), *n))
        .collect();
    assert!(twice.is_empty(), "each change once: {twice:?}");
}

/// A split under a running processor (issue 24): the lease of the divided range becomes one
/// lease per child range, carrying its continuation, and every change is handled once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_split_moves_the_lease_to_the_child_ranges() {
    let gw = TestGateway::splitting_at(48 * 1024);
    let (source, leases) = containers(&gw).await;
    let seen: Seen = Default::default();
    let p = processor(&source, &leases, &seen);
    p.start().await.unwrap();
    write(&source, 0..30).await;
    until("30 changes", || seen.lock().len() == 30).await;
    let mut parent = copy_leases(&leases).await;
    assert_eq!(parent.len(), 1);
    let mut parent = parent.remove(0);
    // Big items split the one partition several times.
    write_spread(&source, 30..300, 400).await;
    until("300 changes", || seen.lock().len() == 300).await;
    let partitions = one_lease_per_partition(&gw, &leases).await;
    assert!(partitions >= 4, "{partitions} partitions");
    // A second process takes its share of the children (taking it from the first, which holds
    // them all and has nothing free): both handle changes.
    let q = processor(&source, &leases, &seen);
    q.start().await.unwrap();
    for _ in 0..100 {
        if shares_are_even(&leases).await {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        shares_are_even(&leases).await,
        "the second process took its share"
    );
    // Each lists the leases again (every 13/60 of the expiry) before the writes: the first
    // no longer delivers from a lease it lost, which would hand a change over twice (delivery
    // is at least once when a lease changes hands mid-batch).
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let before = (p.delivered(), q.delivered());
    write_spread(&source, 300..400, 0).await;
    until("400 changes", || seen.lock().len() == 400).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        p.delivered() > before.0 && q.delivered() > before.1,
        "both processes handle changes"
    );
    assert_once(&seen);
    p.stop().await;
    q.stop().await;

    // A process that died between making the children and deleting the parent leaves both:
    // the next holder splits the parent again, keeping the children, and reads nothing twice.
    let partitions = one_lease_per_partition(&gw, &leases).await;
    parent
        .as_object_mut()
        .unwrap()
        .retain(|k, _| !k.starts_with('_'));
    parent["owner"] = json!("");
    parent["expires"] = json!(0);
    leases.create_item(&parent, None, None).await.unwrap();
    assert_eq!(copy_leases(&leases).await.len(), partitions + 1);
    let r = processor(&source, &leases, &seen);
    r.start().await.unwrap();
    one_lease_per_partition(&gw, &leases).await;
    write_spread(&source, 400..440, 0).await;
    until("440 changes", || seen.lock().len() == 440).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_once(&seen);
    r.stop().await;
}
