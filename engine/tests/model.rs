//! Model-based test: random operation sequences applied to the engine and to a `BTreeMap`,
//! compared after every step (status codes and contents).

mod common;

use std::collections::BTreeMap;

use engine::{ContainerProperties, EngineOptions, ItemOptions, PatchOperation};
use proptest::prelude::*;
use serde_json::{json, Value};

#[derive(Debug, Clone)]
enum Op {
    Create(u8, u8, i64),
    Upsert(u8, u8, i64),
    Replace(u8, u8, i64),
    Delete(u8, u8),
    Increment(u8, u8, i64),
    Read(u8, u8),
    ReplaceIfMatchStale(u8, u8),
}

fn op() -> impl Strategy<Value = Op> {
    let k = || (0u8..4, 0u8..6);
    prop_oneof![
        (k(), any::<i64>()).prop_map(|((p, i), v)| Op::Create(p, i, v % 1000)),
        (k(), any::<i64>()).prop_map(|((p, i), v)| Op::Upsert(p, i, v % 1000)),
        (k(), any::<i64>()).prop_map(|((p, i), v)| Op::Replace(p, i, v % 1000)),
        k().prop_map(|(p, i)| Op::Delete(p, i)),
        (k(), -5i64..5).prop_map(|((p, i), v)| Op::Increment(p, i, v)),
        k().prop_map(|(p, i)| Op::Read(p, i)),
        k().prop_map(|(p, i)| Op::ReplaceIfMatchStale(p, i)),
    ]
}

fn doc(p: u8, i: u8, v: i64) -> Value {
    json!({"id": format!("i{i}"), "pk": format!("p{p}"), "v": v})
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn engine_matches_a_map(ops in proptest::collection::vec(op(), 1..60)) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let t = common::open(EngineOptions { initial_partitions: 3, ..Default::default() });
            let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
            let mut model: BTreeMap<(u8, u8), i64> = BTreeMap::new();
            for op in ops {
                let status = |r: Result<u16, engine::Error>| r.unwrap_or_else(|e| e.status_code());
                match op {
                    Op::Create(p, i, v) => {
                        let got = status(c.create_item(&doc(p, i, v), None, None).await.map(|r| r.status_code));
                        let want = if let std::collections::btree_map::Entry::Vacant(e) = model.entry((p, i)) { e.insert(v); 201 } else { 409 };
                        assert_eq!(got, want, "create {p}/{i}");
                    }
                    Op::Upsert(p, i, v) => {
                        let got = status(c.upsert_item(&doc(p, i, v), None, None).await.map(|r| r.status_code));
                        let want = if model.insert((p, i), v).is_some() { 200 } else { 201 };
                        assert_eq!(got, want, "upsert {p}/{i}");
                    }
                    Op::Replace(p, i, v) => {
                        let got = status(c.replace_item(&doc(p, i, v), &format!("i{i}"), None, None).await.map(|r| r.status_code));
                        let want = if let std::collections::btree_map::Entry::Occupied(mut e) = model.entry((p, i)) { e.insert(v); 200 } else { 404 };
                        assert_eq!(got, want, "replace {p}/{i}");
                    }
                    Op::Delete(p, i) => {
                        let got = status(c.delete_item(&format!("i{i}"), format!("p{p}"), None).await.map(|r| r.status_code));
                        let want = if model.remove(&(p, i)).is_some() { 204 } else { 404 };
                        assert_eq!(got, want, "delete {p}/{i}");
                    }
                    Op::Increment(p, i, by) => {
                        let got = status(c.patch_item::<Value>(&format!("i{i}"), format!("p{p}"), &[PatchOperation::increment("/v", by)], None).await.map(|r| r.status_code));
                        let want = match model.get_mut(&(p, i)) { Some(v) => { *v += by; 200 } None => 404 };
                        assert_eq!(got, want, "incr {p}/{i}");
                    }
                    Op::Read(p, i) => {
                        let got = c.read_item::<Value>(&format!("i{i}"), format!("p{p}"), None).await;
                        match model.get(&(p, i)) {
                            Some(v) => assert_eq!(got.unwrap().resource.unwrap()["v"], json!(v)),
                            None => assert_eq!(got.unwrap_err().status_code(), 404),
                        }
                    }
                    Op::ReplaceIfMatchStale(p, i) => {
                        let stale = "\"00000000-0000-0000-ffffffffffffffff\"";
                        let got = status(c.replace_item(&doc(p, i, 0), &format!("i{i}"), None, Some(ItemOptions::if_match(stale))).await.map(|r| r.status_code));
                        let want = if model.contains_key(&(p, i)) { 412 } else { 404 };
                        assert_eq!(got, want, "stale replace {p}/{i}");
                    }
                }
            }
            // Every logical partition read returns exactly the model's items.
            for p in 0..4u8 {
                let items = c.read_all_items_in_partition::<Value>(format!("p{p}")).await.unwrap().items;
                let want: Vec<i64> = model.range((p, 0)..=(p, u8::MAX)).map(|(_, v)| *v).collect();
                let mut got: Vec<(String, i64)> = items.iter().map(|d| (d["id"].as_str().unwrap().to_owned(), d["v"].as_i64().unwrap())).collect();
                got.sort();
                assert_eq!(got.into_iter().map(|g| g.1).collect::<Vec<_>>(), want);
            }
            assert_eq!(c.stats(10).await.unwrap().items, model.len() as u64);
        });
    }
}
