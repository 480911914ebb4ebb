//! The memory map grows on demand, and a full store is a clear 507 that loses nothing.

mod common;

use engine::{ContainerProperties, EngineOptions, StorageOptions};
use serde_json::{json, Value};

#[test]
fn the_map_grows_on_demand() {
    common::rt().block_on(async {
        let storage = StorageOptions {
            initial_map_size: 1 << 20,
            ..Default::default()
        };
        let t = common::open(EngineOptions {
            storage,
            ..Default::default()
        });
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        let before = t.engine.map_size();
        let blob = "x".repeat(10_000);
        let mut tasks = tokio::task::JoinSet::new();
        for i in 0..3000 {
            let c = c.clone();
            let blob = blob.clone();
            tasks.spawn(async move {
                c.create_item(
                    &json!({"id": format!("{i}"), "pk": format!("p{}", i % 50), "b": blob}),
                    None,
                    None,
                )
                .await
                .map(|_| ())
            });
        }
        while let Some(r) = tasks.join_next().await {
            r.unwrap().expect("writes succeed while the map grows");
        }
        assert!(
            t.engine.map_size() >= 30 << 20,
            "map grew from {before} to {}",
            t.engine.map_size()
        );
        for i in (0..3000).step_by(97) {
            c.read_item::<Value>(&format!("{i}"), format!("p{}", i % 50), None)
                .await
                .unwrap();
        }
    });
}

#[test]
fn a_full_store_answers_507_and_keeps_what_it_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let storage = StorageOptions {
        initial_map_size: 1 << 20,
        max_map_size: 8 << 20,
        ..Default::default()
    };
    let acknowledged = common::rt().block_on(async {
        let engine = engine::Engine::open(
            dir.path(),
            EngineOptions {
                storage: storage.clone(),
                ..Default::default()
            },
        )
        .unwrap();
        let db = engine.create_database("d").await.unwrap();
        let c = db
            .create_container(ContainerProperties::new("c", "/pk"))
            .await
            .unwrap();
        let blob = "y".repeat(20_000);
        let mut ok = Vec::new();
        let err = loop {
            let id = format!("{}", ok.len());
            match c
                .create_item(&json!({"id": id, "pk": "p", "b": blob}), None, None)
                .await
            {
                Ok(_) => ok.push(id),
                Err(e) => break e,
            }
            assert!(ok.len() < 10_000, "the store never filled");
        };
        assert_eq!(err.status_code(), 507, "{err}");
        assert!(ok.len() > 100, "{} writes before full", ok.len());
        // Reads go on; the store stays usable for reads.
        for id in &ok {
            c.read_item::<Value>(id, "p", None).await.unwrap();
        }
        ok
    });
    common::rt().block_on(async {
        let engine = engine::Engine::open(
            dir.path(),
            EngineOptions {
                storage,
                ..Default::default()
            },
        )
        .unwrap();
        let c = engine.database("d").container("c");
        for id in &acknowledged {
            c.read_item::<Value>(id, "p", None).await.unwrap();
        }
        assert_eq!(c.stats(1).await.unwrap().items, acknowledged.len() as u64);
    });
}
