//! Checkout under kill -9: a child process (this test binary, re-executed) serves WebStore and
//! places orders through the real HTTP checkout, printing each one the server acknowledged; the
//! parent kills it with SIGKILL mid-load, several times, then checks that the demo customer's
//! `salesOrderCount` equals the orders stored, and that no acknowledged order was lost.

use engine::{Engine, EngineOptions};
use serde_json::Value;
use sitekit::testing::crash::kill_after_acks;
use sitekit::testing::TestApp;
use webstore::{WebStore, WebStoreOptions};

const CHILD_ENV: &str = "WEBSTORE_CRASH_CHILD_DIR";

#[test]
fn checkout_child() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let engine = Engine::open(&dir, EngineOptions::default()).unwrap();
        let store = WebStore::start(
            &cosmos::Account::embedded(engine.clone()),
            &WebStoreOptions { customers: 5 },
        )
        .await
        .unwrap();
        let app = TestApp::serve(webstore::SITE, store.configure(), 2);
        let p = &webstore::seed::catalog::catalog().products[1];
        let mut shoppers = Vec::new();
        for _ in 0..4 {
            let v = app.visitor();
            let r = v
                .submit(
                    "/signin",
                    "/signin",
                    &[
                        ("email", webstore::seed::DEMO_EMAIL),
                        ("password", webstore::seed::DEMO_PASSWORD),
                    ],
                )
                .await;
            assert_eq!(r.status, 303);
            let (category, id) = (p.category_id.clone(), p.id.clone());
            shoppers.push(tokio::spawn(async move {
                loop {
                    let r = v
                        .submit(
                            "/cart",
                            "/cart/add",
                            &[("category_id", &category), ("product_id", &id)],
                        )
                        .await;
                    assert_eq!(r.status, 303);
                    let r = v.submit("/cart", "/checkout", &[]).await;
                    assert_eq!(r.status, 303, "{}", r.body);
                    println!("ack {}", r.location().trim_start_matches("/orders/"));
                }
            }));
        }
        for s in shoppers {
            s.await.unwrap();
        }
    });
}

#[test]
fn orders_and_counts_agree_after_kill_9_mid_checkout() {
    if std::env::var(CHILD_ENV).is_ok() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut acknowledged = Vec::new();
    for wanted in [3usize, 40, 15] {
        // SIGKILL with checkouts in flight.
        acknowledged.extend(kill_after_acks(
            "checkout_child",
            CHILD_ENV,
            dir.path(),
            "ack ",
            wanted,
        ));
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let c = engine.database("webstore").container("customer");
        let docs = c
            .read_all_items_in_partition::<Value>("cust-demo")
            .await
            .unwrap()
            .items;
        let count = docs.iter().find(|d| d["type"] == "customer").unwrap()["salesOrderCount"]
            .as_u64()
            .unwrap();
        let orders: Vec<&str> = docs
            .iter()
            .filter(|d| d["type"] == "salesOrder")
            .map(|d| d["id"].as_str().unwrap())
            .collect();
        assert_eq!(
            count as usize,
            orders.len(),
            "salesOrderCount equals the orders stored"
        );
        for id in &acknowledged {
            assert!(
                orders.contains(&id.as_str()),
                "acknowledged order {id} was lost"
            );
        }
    });
}
