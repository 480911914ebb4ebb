//! Typed rows (issue 36): `query_items::<T>` builds the caller's `T` on the storage thread — an
//! item a `SELECT *` passes through deserialized straight from its stored JSON, a value the
//! engine computed converted from `Value` — so the caller's async thread does no JSON work.
//! Rows, RU and continuations must be exactly the `Value` path's, page by page: pass-through
//! (routed and fan-out), projections, ORDER BY, aggregates.

mod common;

use std::thread::ThreadId;

use engine::{ContainerClient, ContainerProperties, EngineOptions, PartitionKey, QueryOptions};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{json, Map, Value};

/// An item as an app declares it: its own fields, the system properties in `rest`.
#[derive(Debug, Serialize, Deserialize)]
struct Product {
    id: String,
    cat: String,
    price: f64,
    tags: Vec<String>,
    #[serde(flatten)]
    rest: Map<String, Value>,
}

/// A projection's row.
#[derive(Debug, Serialize, Deserialize)]
struct IdPrice {
    id: String,
    price: f64,
}

/// A row with the thread that deserialized it.
struct Built {
    row: Value,
    on: ThreadId,
}

impl<'de> Deserialize<'de> for Built {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Built {
            row: Value::deserialize(d)?,
            on: std::thread::current().id(),
        })
    }
}

/// One page as compared: rows (as JSON), charge, continuation, items read and rows returned.
type Page = (Vec<Value>, f64, Option<String>, u64, u64);

/// Every page of `sql`, `max` rows a page, with rows read as `T` and turned back into JSON.
async fn pages<T: DeserializeOwned + Send + 'static>(
    c: &ContainerClient,
    sql: &str,
    pk: Option<&str>,
    max: usize,
    json_of: impl Fn(T) -> Value,
) -> Vec<Page> {
    let mut out = Vec::new();
    let mut continuation = None;
    loop {
        let options = QueryOptions {
            partition_key: pk.map(PartitionKey::from),
            max_item_count: Some(max),
            continuation,
            ..Default::default()
        };
        let r = c
            .query_items::<T>(sql, engine::NO_PARAMS, options)
            .await
            .unwrap();
        let m = r.query_metrics.unwrap();
        out.push((
            r.items.into_iter().map(&json_of).collect(),
            r.request_charge,
            r.continuation.clone(),
            m.retrieved_document_count,
            m.output_document_count,
        ));
        match r.continuation {
            Some(next) => continuation = Some(next),
            None => return out,
        }
    }
}

async fn products() -> (common::TestEngine, ContainerClient) {
    let t = common::open(EngineOptions::default());
    let c = common::container(
        &t,
        ContainerProperties::new("products", "/cat").with_initial_partitions(4),
    )
    .await;
    for i in 0..60u32 {
        let item = json!({
            "id": format!("p{i:02}"), "cat": format!("c{}", i % 3),
            // Never whole: `f64` fields serialize back as the stored number.
            "price": (i * 37 % 100) as f64 + 0.25, "tags": [format!("t{}", i % 5), "all"],
            "nested": {"a": [1, {"b": "é😀\n"}], "n": null}
        });
        c.create_item(&item, None, None).await.unwrap();
    }
    (t, c)
}

#[test]
fn typed_rows_are_the_value_rows_with_the_same_charges_and_continuations() {
    common::rt().block_on(async {
        let (_t, c) = products().await;
        let to_json = |p: Product| serde_json::to_value(p).unwrap();
        // (query, routed to a partition key, page size, whether storage passes items through)
        let cases: &[(&str, Option<&str>, usize, bool)] = &[
            ("SELECT * FROM c WHERE c.cat = 'c1'", Some("c1"), 6, true),
            ("SELECT * FROM c", None, 7, true),
            ("SELECT * FROM c WHERE CONTAINS(c.id, '1')", None, 4, false),
            ("SELECT * FROM c ORDER BY c.price DESC", None, 8, true),
            (
                "SELECT * FROM c WHERE c.cat = 'c2' ORDER BY c.id",
                Some("c2"),
                4,
                true,
            ),
        ];
        for &(sql, pk, max, passed_through) in cases {
            let values = pages::<Value>(&c, sql, pk, max, |v| v).await;
            let typed = pages::<Product>(&c, sql, pk, max, to_json).await;
            assert!(values.len() > 1, "{sql}: several pages");
            assert_eq!(typed, values, "{sql}");
            let plan = c
                .query_items::<Value>(sql, engine::NO_PARAMS, QueryOptions::default())
                .await
                .unwrap()
                .query_metrics
                .unwrap()
                .plan;
            assert_eq!(plan.contains("exact"), passed_through, "{sql}: {plan}");
        }
        // Rows the engine computes: `Value` → `T`.
        let sql = "SELECT c.id, c.price FROM c WHERE c.cat = 'c0' ORDER BY c.price";
        let values = pages::<Value>(&c, sql, Some("c0"), 3, |v| v).await;
        let typed =
            pages::<IdPrice>(&c, sql, Some("c0"), 3, |r| serde_json::to_value(r).unwrap()).await;
        assert!(values.len() > 1);
        assert_eq!(typed, values, "{sql}");
        let sql = "SELECT VALUE c.price FROM c ORDER BY c.price DESC";
        let values = pages::<Value>(&c, sql, None, 11, |v| v).await;
        let typed = pages::<f64>(&c, sql, None, 11, |p| json!(p)).await;
        assert_eq!(typed, values, "{sql}");
        let sql = "SELECT VALUE COUNT(1) FROM c WHERE c.price > 20";
        let values = pages::<Value>(&c, sql, None, 10, |v| v).await;
        let typed = pages::<u64>(&c, sql, None, 10, |n| json!(n)).await;
        assert_eq!(typed, values, "{sql}");
        assert_eq!(values.last().unwrap().0, vec![json!(48)]);
        // And `query_all`, which pages the same way.
        let sql = "SELECT * FROM c ORDER BY c.price";
        let all_values = c
            .query_all::<Value>(sql, engine::NO_PARAMS, QueryOptions::default())
            .await
            .unwrap();
        let all_typed = c
            .query_all::<Product>(sql, engine::NO_PARAMS, QueryOptions::default())
            .await
            .unwrap();
        assert_eq!(all_typed.items.len(), 60);
        assert_eq!(all_typed.request_charge, all_values.request_charge);
        let typed: Vec<Value> = all_typed.items.into_iter().map(to_json).collect();
        assert_eq!(typed, all_values.items);
    });
}

#[test]
fn rows_are_built_on_the_storage_thread_not_the_callers() {
    common::rt().block_on(async {
        let (_t, c) = products().await;
        let caller = std::thread::current().id();
        for (sql, pk) in [
            ("SELECT * FROM c WHERE c.cat = 'c1'", Some("c1")),
            ("SELECT * FROM c", None),
            ("SELECT c.id, c.tags FROM c WHERE c.cat = 'c2'", Some("c2")),
            ("SELECT VALUE COUNT(1) FROM c", None),
        ] {
            let options = QueryOptions {
                partition_key: pk.map(PartitionKey::from),
                ..Default::default()
            };
            let r = c
                .query_all::<Built>(sql, engine::NO_PARAMS, options)
                .await
                .unwrap();
            assert!(!r.items.is_empty(), "{sql}");
            for b in &r.items {
                assert_ne!(b.on, caller, "{sql}: {} built by the caller", b.row);
            }
        }
    });
}

#[test]
fn a_narrower_type_takes_its_fields_and_a_type_that_does_not_fit_is_the_callers_error() {
    common::rt().block_on(async {
        let (_t, c) = products().await;
        let options = QueryOptions {
            partition_key: Some(PartitionKey::from("c0")),
            ..Default::default()
        };
        let sql = "SELECT * FROM c WHERE c.cat = 'c0'";
        let values = c
            .query_items::<Value>(sql, engine::NO_PARAMS, options.clone())
            .await
            .unwrap();
        let narrow = c
            .query_items::<IdPrice>(sql, engine::NO_PARAMS, options.clone())
            .await
            .unwrap();
        assert_eq!(narrow.items.len(), 20);
        assert_eq!(narrow.request_charge, values.request_charge);
        for (n, v) in narrow.items.iter().zip(&values.items) {
            assert_eq!(
                (json!(n.id), json!(n.price)),
                (v["id"].clone(), v["price"].clone())
            );
        }
        let e = c
            .query_items::<u64>(sql, engine::NO_PARAMS, options)
            .await
            .map(|_| ())
            .unwrap_err();
        assert_eq!(e.status_code(), 400, "{e}");
        assert!(
            e.to_string().contains("does not fit the requested type"),
            "{e}"
        );
    });
}
