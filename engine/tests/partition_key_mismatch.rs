//! A partition key that is not the item's: Cosmos DB's `PartitionKeyMismatch` (400, sub-status
//! 1001), which the SDKs test for (azure-cosmos 4.17.1's test_crud_subpartition.py): a value
//! other than the item's, a hierarchical item missing a level the request names as null, and a
//! point read naming only a prefix of a hierarchical key.

mod common;

use engine::{ContainerProperties, Error, PartitionKey};
use serde_json::{json, Value};

fn mismatch(e: &Error) {
    assert!(matches!(e, Error::PartitionKeyMismatch(_)), "{e}");
    assert_eq!((e.status_code(), e.sub_status()), (400, Some(1001)), "{e}");
}

#[tokio::test]
async fn a_key_that_is_not_the_items_is_a_1001() {
    let t = common::open(Default::default());
    let plain = common::container(&t, ContainerProperties::new("plain", "/pk")).await;
    let e = plain
        .create_item(&json!({"id": "a", "pk": "x"}), Some("y".into()), None)
        .await
        .unwrap_err();
    mismatch(&e);

    let levels = ContainerProperties::hierarchical("levels", &["/city", "/zipcode"]);
    let c = common::container(&t, levels).await;
    let doc = json!({"id": "d", "city": "Redmond", "zipcode": "98052"});
    c.create_item(&doc, None, None).await.unwrap();
    // The SDKs send a level the item lacks as null: not the item's key (it has none there).
    let incomplete = json!({"id": "d3", "city": "Vancouver"});
    let named = PartitionKey::from_json_values(&[json!("Vancouver"), Value::Null], "pk").unwrap();
    let e = c
        .create_item(&incomplete, Some(named), None)
        .await
        .unwrap_err();
    mismatch(&e);
    // A point read naming a prefix only.
    let prefix = PartitionKey::from_json_values(&[json!("Redmond")], "pk").unwrap();
    let e = c.read_item::<Value>("d", prefix, None).await.unwrap_err();
    mismatch(&e);
}
