//! Items a `SELECT *` passes through are built into `Value`s by the engine on its storage thread
//! (`sql/run`, `PageRequest::decode`, issue 36), no longer on the caller's: for every item shape
//! the result must be the very `Value` serde_json builds from the same stored JSON —
//! numbers (big integers, floats, -0.0), escapes, unicode, deep nesting, key order.

mod common;

use engine::{ContainerProperties, EngineOptions, PartitionKey, QueryOptions};
use serde_json::{json, Value};

/// A `Value` under another type: serde_json's own parse of the stored JSON through a
/// transparent wrapper (the reference path).
#[derive(serde::Deserialize)]
#[serde(transparent)]
struct ParsedBySerdeJson(Value);

/// Items of every shape, each with the partition key `pk` = "shapes".
fn shapes() -> Vec<Value> {
    let mut deep = json!("bottom");
    for i in 0..60u32 {
        deep = if i.is_multiple_of(2) {
            json!([deep])
        } else {
            json!({ "d": deep })
        };
    }
    let many_keys: serde_json::Map<String, Value> = (0..300)
        .rev()
        .map(|i| (format!("k{i}"), json!(i)))
        .collect();
    vec![
        json!({"n": 0, "neg": -1, "u64max": u64::MAX, "i64min": i64::MIN, "i64max": i64::MAX,
               "past_i64": 9_223_372_036_854_775_808u64}),
        json!({"f": 0.1, "g": 0.30000000000000004, "big": 1.7976931348623157e308,
               "tiny": 5e-324, "normal_min": 2.2250738585072014e-308, "minus_zero": -0.0,
               "whole": 1.0, "neg": -12.5e-7, "exp": 1e21, "int_float": 9007199254740993.0}),
        json!({"quote": "a\"b", "backslash": "c\\d", "slash": "e/f", "controls": "\u{0}\u{1}\u{8}\u{c}\n\r\t\u{1f}",
               "del": "\u{7f}", "line_sep": "\u{2028}\u{2029}", "accents": "é à ü ß",
               "cjk": "中文字符", "emoji": "😀👍🏽", "mixed": "x\"\\\u{1}é😀\n", "empty": ""}),
        json!({"t": true, "f": false, "z": null, "e_obj": {}, "e_arr": [], "arr": [1, "2", 3.5, null, [], {}],
               "nested": {"a": {"b": {"c": [{"d": [1, {"e": "f"}]}]}}}}),
        json!({"deep": deep}),
        Value::Object(many_keys),
        json!({"long": "x".repeat(100_000), "long_escaped": "\"\n".repeat(10_000)}),
        json!({"zeta": 1, "alpha": 2, "mid": {"z": 1, "a": 2}, "é": 3, "": 4}),
    ]
}

#[test]
fn a_select_star_returns_every_item_shape_as_serde_json_parses_it() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, ContainerProperties::new("shapes", "/pk")).await;
        let items = shapes();
        for (i, item) in items.iter().enumerate() {
            let mut item = item.clone();
            item["id"] = json!(format!("s{i}"));
            item["pk"] = json!("shapes");
            c.create_item(&item, None, None).await.unwrap();
        }
        let sql = "SELECT * FROM c WHERE c.pk = 'shapes'";
        let options = QueryOptions {
            partition_key: Some(PartitionKey::from("shapes")),
            ..Default::default()
        };
        let built = c
            .query_items::<Value>(sql, engine::NO_PARAMS, options.clone())
            .await
            .unwrap();
        let plan = &built.query_metrics.as_ref().unwrap().plan;
        assert!(
            plan.contains("exact"),
            "the stored JSON is passed through: {plan}"
        );
        let reference = c
            .query_items::<ParsedBySerdeJson>(sql, engine::NO_PARAMS, options)
            .await
            .unwrap();
        assert_eq!(built.items.len(), items.len());
        assert_eq!(reference.items.len(), items.len());
        for (ours, theirs) in built.items.iter().zip(&reference.items) {
            assert_eq!(ours, &theirs.0);
            assert_eq!(ours.to_string(), theirs.0.to_string());
        }
        // And each is the item written, field for field, in its order, system properties added.
        for ours in &built.items {
            let i: usize = ours["id"].as_str().unwrap()[1..].parse().unwrap();
            let written = items[i].as_object().unwrap();
            let read = ours.as_object().unwrap();
            let read_order: Vec<&String> =
                read.keys().filter(|k| written.contains_key(*k)).collect();
            assert_eq!(read_order, written.keys().collect::<Vec<_>>(), "item {i}");
            for (k, v) in written {
                assert_eq!(&read[k], v, "item {i}, {k}");
                assert_eq!(read[k].to_string(), v.to_string(), "item {i}, {k}");
            }
            for system in ["_rid", "_self", "_etag", "_ts"] {
                assert!(read.contains_key(system), "item {i} has {system}");
            }
        }
    });
}
