//! Typed rows through `Container::query_items::<T>` / `query_all::<T>`: an app's struct gets the
//! same rows and the same charges as `Value`, page by page, on both backends; embedded, the
//! engine builds them on its storage thread, not on the caller's (issue 36).

mod common;

use std::thread::ThreadId;

use cosmos::{Account, Container, ContainerProperties, QueryOptions, NO_PARAMS};
use gateway::testing::TestGateway;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{json, Value};

/// An item as an app declares it (the system properties are left out).
#[derive(Debug, Serialize, Deserialize)]
struct Order {
    id: String,
    pk: String,
    total: f64,
    lines: Vec<String>,
}

async fn orders(account: &Account) -> Container {
    let c = account
        .create_database_if_not_exists("d")
        .await
        .unwrap()
        .create_container_if_not_exists(ContainerProperties::new("orders", "/pk"))
        .await
        .unwrap();
    for i in 0..30 {
        let order = json!({"id": format!("o{i:02}"), "pk": format!("c{}", i % 2),
                           "total": i as f64 * 1.5 + 0.25, "lines": [format!("l{i}"), "x"]});
        c.create_item(&order, None, None).await.unwrap();
    }
    c
}

/// Every page of `sql` (4 rows a page) as (rows with their `id` and `total`, charge).
async fn pages<T: DeserializeOwned + Send + 'static>(
    c: &Container,
    sql: &str,
    pk: Option<&str>,
    fields: impl Fn(&T) -> (String, f64),
) -> Vec<(Vec<(String, f64)>, f64)> {
    let mut options = QueryOptions {
        partition_key: pk.map(Into::into),
        max_item_count: Some(4),
        ..Default::default()
    };
    let mut out = Vec::new();
    loop {
        let r = c
            .query_items::<T>(sql, NO_PARAMS, options.clone())
            .await
            .unwrap();
        out.push((r.items.iter().map(&fields).collect(), r.request_charge));
        match r.continuation {
            Some(t) => options.continuation = Some(t),
            None => return out,
        }
    }
}

/// Typed and `Value` pages of a routed pass-through, a fan-out ORDER BY, and `query_all`.
async fn scenario(c: &Container) -> Vec<Vec<(Vec<(String, f64)>, f64)>> {
    let of_value = |v: &Value| {
        (
            v["id"].as_str().unwrap().to_owned(),
            v["total"].as_f64().unwrap(),
        )
    };
    let of_order = |o: &Order| (o.id.clone(), o.total);
    let mut seen = Vec::new();
    for (sql, pk) in [
        ("SELECT * FROM c WHERE c.pk = 'c1'", Some("c1")),
        ("SELECT * FROM c ORDER BY c.total DESC", None),
    ] {
        let values = pages::<Value>(c, sql, pk, of_value).await;
        let typed = pages::<Order>(c, sql, pk, of_order).await;
        assert!(values.len() > 1, "{sql}: several pages");
        assert_eq!(typed, values, "{sql}");
        seen.push(typed);
    }
    let sql = "SELECT * FROM c ORDER BY c.id";
    let values = c
        .query_all::<Value>(sql, NO_PARAMS, Default::default())
        .await
        .unwrap();
    let typed = c
        .query_all::<Order>(sql, NO_PARAMS, Default::default())
        .await
        .unwrap();
    assert_eq!(typed.items.len(), 30);
    let all = |items: Vec<(String, f64)>, charge| vec![(items, charge)];
    let values = all(
        values.items.iter().map(of_value).collect(),
        values.request_charge,
    );
    let typed = all(
        typed.items.iter().map(of_order).collect(),
        typed.request_charge,
    );
    assert_eq!(typed, values);
    seen.push(typed);
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_rows_match_value_rows_and_charges_on_both_backends() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine::Engine::open(dir.path(), Default::default()).unwrap();
    let embedded = scenario(&orders(&Account::embedded(engine)).await).await;
    let gw = TestGateway::start();
    let remote = scenario(&orders(&common::connect(&gw).await).await).await;
    assert_eq!(embedded, remote);
}

/// A row with the thread that deserialized it.
struct Built(ThreadId);

impl<'de> Deserialize<'de> for Built {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d)?;
        Ok(Built(std::thread::current().id()))
    }
}

#[tokio::test(flavor = "current_thread")]
async fn embedded_the_rows_are_built_off_the_callers_thread() {
    let dir = tempfile::tempdir().unwrap();
    let engine = engine::Engine::open(dir.path(), Default::default()).unwrap();
    let c = orders(&Account::embedded(engine)).await;
    let caller = std::thread::current().id();
    for sql in ["SELECT * FROM c", "SELECT c.id, c.total FROM c"] {
        let r = c
            .query_all::<Built>(sql, NO_PARAMS, Default::default())
            .await
            .unwrap();
        assert_eq!(r.items.len(), 30);
        assert!(r.items.iter().all(|b| b.0 != caller), "{sql}");
    }
}
