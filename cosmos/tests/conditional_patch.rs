//! `Container::patch_item_if` (Cosmos DB's `filterPredicate`) on both backends: the engine's
//! conditional patch embedded, the gateway's (the same operation) remote, with the same answers
//! and charges; and in an embedded batch.

mod common;

use cosmos::{Account, Container, ContainerProperties, Error, PatchOperation, TransactionalBatch};
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

/// (n after the matching patch, its charge, the refusal's status).
async fn scenario(c: &Container) -> (Value, f64, u16) {
    c.create_item(&json!({"id": "a", "pk": "p", "n": 1}), None, None)
        .await
        .unwrap();
    let ops = [PatchOperation::increment("/n", 1)];
    let r = c
        .patch_item_if::<Value>("a", "p", &ops, "FROM c WHERE c.n = 1", None)
        .await
        .unwrap();
    let e = c
        .patch_item_if::<Value>("a", "p", &ops, "FROM c WHERE c.n = 1", None)
        .await
        .unwrap_err();
    assert!(matches!(e, Error::PreconditionFailed { .. }), "{e}");
    let now = c.read_item::<Value>("a", "p", None).await.unwrap();
    assert_eq!(now.resource.unwrap()["n"], 2, "the refusal changed nothing");
    (
        r.resource.unwrap()["n"].clone(),
        r.request_charge,
        e.status_code(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conditional_patch_answers_and_charges_alike_on_both_backends() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine::Engine::open(dir.path(), Default::default()).unwrap();
    let embedded = scenario(&container(&Account::embedded(engine)).await).await;
    let gw = TestGateway::start();
    let remote = scenario(&container(&common::connect(&gw).await).await).await;
    assert_eq!(embedded, (json!(2), embedded.1, 412));
    assert_eq!(embedded, remote);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conditional_patch_in_an_embedded_batch() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine::Engine::open(dir.path(), Default::default()).unwrap();
    let c = container(&Account::embedded(engine)).await;
    c.create_item(&json!({"id": "a", "pk": "p", "n": 1}), None, None)
        .await
        .unwrap();
    let ops = vec![PatchOperation::increment("/n", 1)];
    let batch = |new: &str, condition: &str| {
        TransactionalBatch::new("p")
            .create_item(&json!({"id": new, "pk": "p"}))
            .patch_item_if("a", ops.clone(), condition, None)
    };
    let r = c
        .execute_batch(batch("x1", "FROM c WHERE c.n = 1"))
        .await
        .unwrap();
    assert!(r.is_success(), "{:?}", r.error_message);
    let r = c
        .execute_batch(batch("x2", "FROM c WHERE c.n = 1"))
        .await
        .unwrap();
    assert!(!r.is_success());
    assert_eq!(r.results[1].status_code, 412);
    let x2 = c.read_item::<Value>("x2", "p", None).await.unwrap_err();
    assert_eq!(x2.status_code(), 404, "all or nothing");
    let now = c.read_item::<Value>("a", "p", None).await.unwrap();
    assert_eq!(now.resource.unwrap()["n"], 2);
}
