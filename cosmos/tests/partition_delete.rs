//! `Container::delete_all_items_by_partition_key` on both backends: the engine's operation
//! embedded, the gateway's `partitionkeydelete` remote (the same operation), with the same
//! outcome and charge.

mod common;

use cosmos::{Account, Container, ContainerProperties, QueryOptions, NO_PARAMS};
use gateway::testing::TestGateway;
use serde_json::{json, Value};

async fn container(account: &Account) -> Container {
    account
        .create_database_if_not_exists("d")
        .await
        .unwrap()
        .create_container_if_not_exists(ContainerProperties::new("c", "/pk"))
        .await
        .unwrap()
}

async fn count(c: &Container, pk: &str) -> Value {
    let options = QueryOptions {
        partition_key: Some(pk.into()),
        ..Default::default()
    };
    c.query_items::<Value>("SELECT VALUE COUNT(1) FROM c", NO_PARAMS, options)
        .await
        .unwrap()
        .items[0]
        .clone()
}

/// (what is left in p and q, the delete's charge).
async fn scenario(c: &Container) -> (Value, Value, f64) {
    for i in 0..120 {
        c.create_item(&json!({"id": format!("p{i}"), "pk": "p"}), None, None)
            .await
            .unwrap();
    }
    for i in 0..2 {
        c.create_item(&json!({"id": format!("q{i}"), "pk": "q"}), None, None)
            .await
            .unwrap();
    }
    let r = c.delete_all_items_by_partition_key("p").await.unwrap();
    assert_eq!(r.status_code, 200);
    (count(c, "p").await, count(c, "q").await, r.request_charge)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partition_is_emptied_alike_on_both_backends() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine::Engine::open(dir.path(), Default::default()).unwrap();
    let embedded = scenario(&container(&Account::embedded(engine)).await).await;
    let gw = TestGateway::start();
    let remote = scenario(&container(&common::connect(&gw).await).await).await;
    assert_eq!((&embedded.0, &embedded.1), (&json!(0), &json!(2)));
    assert!(embedded.2 > 0.0);
    assert_eq!(embedded, remote);
}
