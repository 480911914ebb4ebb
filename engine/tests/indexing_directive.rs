//! Cosmos DB's indexing directive `Exclude` (`ItemOptions::exclude_from_index`): the item is
//! stored, read by id, and left out of the index — through later writes, a policy rebuild and a
//! split — and `Engine::check` expects no entries for it.

mod common;

use engine::{ContainerProperties, EngineOptions, ItemOptions};
use serde_json::{json, Value};

fn excluded() -> Option<ItemOptions> {
    Some(ItemOptions {
        exclude_from_index: true,
        ..Default::default()
    })
}

async fn entries(c: &engine::ContainerClient) -> u64 {
    let stats = c.stats(0).await.unwrap();
    stats.partitions.iter().map(|p| p.index_entries).sum()
}

async fn reds(c: &engine::ContainerClient) -> Vec<String> {
    let mut ids: Vec<String> = c
        .query_all::<Value>(
            "SELECT VALUE c.id FROM c WHERE c.color = 'red'",
            &[] as &[(&str, Value)],
            engine::QueryOptions::default(),
        )
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

fn check_clean(t: &common::TestEngine) {
    for r in t.engine.check().unwrap() {
        assert!(r.problems.is_empty(), "{:?}", r.problems);
    }
}

#[test]
fn an_excluded_item_is_stored_but_not_indexed() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions {
            split_threshold_bytes: 16 * 1024,
            ..Default::default()
        });
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        let shown = c
            .create_item(&json!({"id": "shown", "pk": "p", "color": "red"}), None, None)
            .await
            .unwrap();
        let before = entries(&c).await;
        let hidden = c
            .create_item(&json!({"id": "hidden", "pk": "p", "color": "red"}), None, excluded())
            .await
            .unwrap();
        assert_eq!(entries(&c).await, before, "no entry for the excluded item");
        assert!(hidden.request_charge < shown.request_charge);
        assert_eq!(reds(&c).await, ["shown"]);
        let read = c.read_item::<Value>("hidden", "p", None).await.unwrap();
        assert_eq!(read.resource.unwrap()["color"], "red");
        check_clean(&t);

        // A replace without the directive indexes it; with it, takes it out again; a patch keeps
        // what the last write chose; a delete of an excluded item removes no entry it lacks.
        c.replace_item(&json!({"id": "hidden", "pk": "p", "color": "red"}), "hidden", None, None)
            .await
            .unwrap();
        assert_eq!(reds(&c).await, ["hidden", "shown"]);
        c.replace_item(&json!({"id": "shown", "pk": "p", "color": "red"}), "shown", None, excluded())
            .await
            .unwrap();
        c.patch_item::<Value>("shown", "p", &serde_json::from_value::<Vec<engine::PatchOperation>>(json!([{"op": "set", "path": "/n", "value": 1}])).unwrap(), None)
            .await
            .unwrap();
        assert_eq!(reds(&c).await, ["hidden"]);
        check_clean(&t);

        // Many excluded items through a policy rebuild and splits stay out of the index.
        for i in 0..300 {
            let doc = json!({"id": format!("x{i}"), "pk": format!("k{}", i % 29), "color": "red", "pad": "y".repeat(100)});
            c.create_item(&doc, None, excluded()).await.unwrap();
        }
        assert!(c.partitions().unwrap().len() > 1, "split");
        t.engine
            .database("test")
            .replace_indexing_policy("c", json!({"includedPaths": [{"path": "/*"}], "excludedPaths": [{"path": "/pad/?"}]}))
            .await
            .unwrap();
        for _ in 0..500 {
            if c.read_container().unwrap().index_rebuild_progress().is_none() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert!(c.read_container().unwrap().index_rebuild_progress().is_none());
        assert_eq!(reds(&c).await, ["hidden"]);
        check_clean(&t);
        c.delete_item("shown", "p", None).await.unwrap();
        for i in 0..300 {
            c.delete_item(&format!("x{i}"), format!("k{}", i % 29), None).await.unwrap();
        }
        check_clean(&t);
        assert_eq!(reds(&c).await, ["hidden"]);
    });
}
