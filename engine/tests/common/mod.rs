//! Shared test setup: a real engine on real LMDB files in a temporary directory.
#![allow(dead_code)]

pub mod damage;

use engine::{ContainerClient, ContainerProperties, Engine, EngineOptions};
use tempfile::TempDir;

/// A two-worker runtime, like the machines the tests run on.
pub fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

pub struct TestEngine {
    pub engine: Engine,
    pub dir: TempDir,
}

pub fn open(opts: EngineOptions) -> TestEngine {
    let dir = tempfile::tempdir().expect("tempdir");
    let engine = Engine::open(dir.path(), opts).expect("open engine");
    TestEngine { engine, dir }
}

pub async fn container(t: &TestEngine, props: ContainerProperties) -> ContainerClient {
    let db = t
        .engine
        .create_database_if_not_exists("test")
        .await
        .expect("database");
    db.create_container(props).await.expect("container")
}

/// The one number a `SELECT VALUE COUNT(...)` query answers, all pages drained.
pub async fn count(c: &ContainerClient, sql: &str) -> u64 {
    let r = c
        .query_all::<serde_json::Value>(sql, engine::NO_PARAMS, Default::default())
        .await
        .unwrap();
    r.items[0].as_u64().unwrap()
}
