use engine::{Engine, EngineOptions};
use serde_json::{json, Value};
use webstore::{WebStore, WebStoreOptions};

async fn etag_of_first_product(store: &WebStore) -> String {
    let p = &webstore::seed::catalog::catalog().products[0];
    store
        .containers
        .product
        .read_item::<Value>(&p.id, p.category_id.as_str(), None)
        .await
        .unwrap()
        .etag
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_start_reuses_the_data_and_restores_the_declared_indexing_policy() {
    let dir = tempfile::tempdir().unwrap();
    let options = WebStoreOptions { customers: 12 };
    let (etag, customers_policy) = {
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let store = WebStore::start(&cosmos::Account::embedded(engine.clone()), &options)
            .await
            .unwrap();
        let etag = etag_of_first_product(&store).await;
        let policy = store
            .containers
            .customer
            .embedded_client()
            .unwrap()
            .read_container()
            .unwrap()
            .indexing_policy()
            .clone();
        // Someone changes a policy by hand (the CLI, a test): the next start puts it back.
        engine
            .database("webstore")
            .replace_indexing_policy(
                "customer",
                json!({"indexingMode": "consistent", "includedPaths": [{"path": "/*"}]}),
            )
            .await
            .unwrap();
        store.stop().await;
        (etag, policy)
    };
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    // A different --customers does not reseed: the data says what it holds.
    let store = WebStore::start(
        &cosmos::Account::embedded(engine.clone()),
        &WebStoreOptions { customers: 500 },
    )
    .await
    .unwrap();
    assert_eq!(store.customers, 12);
    assert_eq!(
        etag_of_first_product(&store).await,
        etag,
        "nothing was rewritten"
    );
    assert_eq!(
        store
            .containers
            .customer
            .embedded_client()
            .unwrap()
            .read_container()
            .unwrap()
            .indexing_policy(),
        &customers_policy
    );
    let customers = store
        .containers
        .customer
        .query_all::<Value>(
            "SELECT VALUE COUNT(1) FROM c WHERE c.type = 'customer'",
            engine::NO_PARAMS,
            Default::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        customers.items,
        [json!(14)],
        "12 generated + the demo customer + the admin"
    );
    store.stop().await;
}
