//! A query confined to one partition key range (an SDK's per-range request of a cross-partition
//! query, `QueryOptions::epk_range`) pays one query base, as on Azure Cosmos DB where a range is
//! one physical partition: the sliver of the next partition it also reads (a partition starts
//! at an EPK inside a coordinate) is not a request of its own. So the SDK-driven fan-out costs
//! what the engine's own whole query costs (issue 35, `sdk-suite/fanout_ru.py`).

mod common;

use engine::{ContainerProperties, EngineOptions, EpkRange, QueryOptions};
use serde_json::{json, Value};

#[test]
fn each_range_of_a_fan_out_pays_one_base() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let props = ContainerProperties::new("items", "/pk").with_initial_partitions(7);
        let c = common::container(&t, props).await;
        for i in 0..700 {
            let doc = json!({"id": format!("i{i}"), "pk": format!("k{}", i % 70), "n": i});
            c.create_item(&doc, None, None).await.unwrap();
        }
        let sql = "SELECT * FROM c WHERE c.n >= 0";
        let all = |epk_range| QueryOptions {
            epk_range,
            max_item_count: Some(10_000),
            ..Default::default()
        };
        let whole = c
            .query_items::<Value>(sql, &Vec::<(String, Value)>::new(), all(None))
            .await
            .unwrap();
        assert_eq!(whole.items.len(), 700);
        // The ranges the gateway lists for 7 partitions made at creation (PartitionMap::new).
        let step = ((1u128 << 126) - 1) / 7;
        let bound = |i: u128| match i {
            0 => String::new(),
            7 => "FF".to_owned(),
            i => format!("{:032X}", step * i),
        };
        let (mut items, mut ru) = (0, 0.0);
        for i in 0..7 {
            let range = EpkRange::new(&bound(i), &bound(i + 1));
            let page = c
                .query_items::<Value>(sql, &Vec::<(String, Value)>::new(), all(Some(range)))
                .await
                .unwrap();
            let m = page.query_metrics.as_ref().unwrap();
            let shares: f64 = m.partitions.iter().map(|p| p.request_charge).sum();
            assert!(
                (shares - page.request_charge).abs() < 0.05,
                "range {i}: shares {shares} vs {}",
                page.request_charge
            );
            items += page.items.len();
            ru += page.request_charge;
        }
        assert_eq!(items, 700, "the ranges tile the items");
        // The SDKs' per-range count is counted from the keys (no item loaded), range by range.
        let sdk_count = r#"SELECT VALUE [{"item": COUNT(1)}] FROM c"#;
        let mut counted = 0;
        for i in 0..7 {
            let range = EpkRange::new(&bound(i), &bound(i + 1));
            let page = c
                .query_items::<Value>(sdk_count, &Vec::<(String, Value)>::new(), all(Some(range)))
                .await
                .unwrap();
            let m = page.query_metrics.as_ref().unwrap();
            assert!(m.plan.starts_with("count"), "range {i}: {}", m.plan);
            assert_eq!(m.retrieved_document_count, 0, "range {i}: no item loaded");
            counted += page.items[0][0]["item"].as_u64().unwrap();
        }
        assert_eq!(counted, 700, "each key counted in its own range");
        // Before: each range but the last paid a second base for its sliver (+30 RU of ~70).
        assert!(
            (ru - whole.request_charge).abs() <= whole.request_charge * 0.02,
            "ranges {ru} RU vs whole {} RU",
            whole.request_charge
        );
    });
}
