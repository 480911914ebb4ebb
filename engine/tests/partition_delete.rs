//! `delete_all_items_by_partition_key`: every item of one logical partition, across several
//! batches, and nothing of another; its charge is the reads and deletes it did.

mod common;

use engine::{ContainerProperties, EngineOptions, QueryOptions, NO_PARAMS};
use serde_json::{json, Value};

#[test]
fn every_item_of_the_partition_goes_and_no_other() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        for i in 0..250 {
            c.create_item(&json!({"id": format!("p{i}"), "pk": "p"}), None, None)
                .await
                .unwrap();
        }
        for i in 0..3 {
            c.create_item(&json!({"id": format!("q{i}"), "pk": "q"}), None, None)
                .await
                .unwrap();
        }
        let one_delete = {
            c.create_item(&json!({"id": "z", "pk": "z"}), None, None)
                .await
                .unwrap();
            c.delete_item("z", "z", None).await.unwrap().request_charge
        };

        let r = c.delete_all_items_by_partition_key("p").await.unwrap();
        assert_eq!(r.status_code, 200);
        assert_eq!(r.diagnostics.items_written, 250);
        assert!(
            r.request_charge >= 250.0 * one_delete,
            "{} RU for 250 deletes of {one_delete} RU each, and the reads of their ids",
            r.request_charge
        );

        let count = |pk: &'static str| {
            let c = c.clone();
            async move {
                let options = QueryOptions {
                    partition_key: Some(pk.into()),
                    ..Default::default()
                };
                c.query_all::<Value>("SELECT VALUE COUNT(1) FROM c", NO_PARAMS, options)
                    .await
                    .unwrap()
                    .items[0]
                    .clone()
            }
        };
        assert_eq!(count("p").await, 0);
        assert_eq!(count("q").await, 3);

        // An empty partition: nothing to delete, the read of its ids charged.
        let r = c.delete_all_items_by_partition_key("p").await.unwrap();
        assert_eq!(r.diagnostics.items_written, 0);
        assert!(r.request_charge > 0.0);
    });
}
