//! Containers made with `partitionKey.version: 1` place items by Cosmos DB's hash v1
//! (`partition::v1`), as the service: each physical partition is a range of the V1 EPKs an SDK
//! computes for it (azure-cosmos's `PartitionKey(..., version=1)`), before and after splits,
//! and every item stays reachable by point read, query, EPK range and change feed.

mod common;

use std::collections::HashSet;

use engine::{
    ChangeFeedOptions, ChangeFeedStart, ContainerClient, ContainerProperties, EngineOptions,
    EpkRange, PartitionKey, QueryOptions,
};
use serde_json::{json, Value};

fn key(i: usize) -> PartitionKey {
    if i.is_multiple_of(3) {
        PartitionKey::Number(i as f64)
    } else {
        PartitionKey::from(format!("key-{i}"))
    }
}

fn cosmos_epk(c: &ContainerClient, k: &PartitionKey) -> String {
    c.read_container().unwrap().partition_key().cosmos_epk(k)
}

async fn query_all(c: &ContainerClient, sql: &str, opts: QueryOptions) -> Vec<Value> {
    let mut out = Vec::new();
    let mut opts = opts;
    loop {
        let page = c
            .query_items::<Value>(sql, &[] as &[(&str, Value)], opts.clone())
            .await
            .unwrap();
        out.extend(page.items);
        match page.continuation {
            Some(next) => opts.continuation = Some(next),
            None => return out,
        }
    }
}

#[test]
fn a_v1_container_places_items_by_hash_v1_and_keeps_them_reachable_across_splits() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions {
            split_threshold_bytes: 48 * 1024,
            ..Default::default()
        });
        let c = common::container(
            &t,
            ContainerProperties::new("c", "/pk")
                .with_partition_key_version(1)
                .with_initial_partitions(3),
        )
        .await;
        let def = c.read_container().unwrap();
        assert_eq!(def.partition_key().version, 1);
        // The Python SDK's V1 EPK of "p3" (`partition::v1`'s vectors).
        assert_eq!(
            cosmos_epk(&c, &PartitionKey::from("p3")),
            "05C1E9194991DE08713400"
        );

        let n = 240;
        for i in 0..n {
            let pk = key(i).to_json().unwrap();
            c.create_item(
                &json!({"id": format!("{i}"), "pk": pk, "pad": "z".repeat(400)}),
                None,
                None,
            )
            .await
            .unwrap();
        }
        let parts = c.partitions().unwrap();
        assert!(parts.len() > 3, "the test needs splits: {}", parts.len());
        let ranges: Vec<EpkRange> = parts
            .iter()
            .map(|p| p.cosmos_range.clone().expect("placed by Cosmos's hash"))
            .collect();
        assert_eq!(ranges[0].start, "");
        assert_eq!(ranges.last().unwrap().end, "FF");
        for w in ranges.windows(2) {
            assert_eq!(w[0].end, w[1].start);
            assert!(w[0].start < w[0].end, "{w:?}");
        }

        for i in 0..n {
            let k = key(i);
            // The one range that holds the key's V1 EPK is the partition that stores it.
            let epk = cosmos_epk(&c, &k);
            let holders: Vec<u32> = parts
                .iter()
                .zip(&ranges)
                .filter(|(_, r)| r.contains(&epk))
                .map(|(p, _)| p.id)
                .collect();
            assert_eq!(holders, c.partitions_of(&k).unwrap(), "{k} at {epk}");
            c.read_item::<Value>(&format!("{i}"), k.clone(), None)
                .await
                .unwrap();
            // An EPK point (an SDK's feed range of one key) finds the item.
            let found = query_all(
                &c,
                "SELECT c.id FROM c",
                QueryOptions {
                    epk_range: Some(EpkRange::new(&epk, &epk)),
                    ..Default::default()
                },
            )
            .await;
            assert_eq!(found, [json!({"id": format!("{i}")})], "{k}");
        }

        // Each partition's range holds exactly its items; together every item once.
        let mut seen = HashSet::new();
        for r in &ranges {
            let found = query_all(
                &c,
                "SELECT VALUE c.id FROM c",
                QueryOptions {
                    epk_range: Some(r.clone()),
                    ..Default::default()
                },
            )
            .await;
            for id in found {
                assert!(seen.insert(id.as_str().unwrap().to_owned()), "{id} twice");
            }
        }
        assert_eq!(seen.len(), n);
        let count = query_all(&c, "SELECT VALUE COUNT(1) FROM c", QueryOptions::default()).await;
        assert_eq!(count, [json!(n)]);
        let one = query_all(
            &c,
            "SELECT VALUE c.id FROM c WHERE c.pk = 'key-7'",
            QueryOptions::default(),
        )
        .await;
        assert_eq!(one, [json!("7")]);

        // The change feed lists every item once.
        let mut opts = ChangeFeedOptions {
            start: ChangeFeedStart::Beginning,
            max_item_count: 50,
            ..Default::default()
        };
        let mut fed = HashSet::new();
        loop {
            let p = c.change_feed(&opts).await.unwrap();
            let done = p.not_modified();
            for d in p.items {
                assert!(fed.insert(d["id"].as_str().unwrap().to_owned()));
            }
            opts.start = ChangeFeedStart::Continuation(p.continuation);
            if done {
                break;
            }
        }
        assert_eq!(fed.len(), n);

        let reports = t.engine.check().unwrap();
        assert!(engine::check_failed(&reports).is_none(), "{reports:?}");
    });
}

#[test]
fn versions_are_checked_and_v2_stays_the_default() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let db = t.engine.create_database_if_not_exists("d").await.unwrap();
        let v2 = db
            .create_container(ContainerProperties::new("v2", "/pk"))
            .await
            .unwrap();
        let def = v2.read_container().unwrap();
        assert_eq!(def.partition_key().version, 2);
        assert_eq!(
            def.partition_key().cosmos_epk(&PartitionKey::from("p3")),
            "271119C968E6C80FA31EC9F0033A0CBB"
        );
        for (props, why) in [
            (
                ContainerProperties::new("bad", "/pk").with_partition_key_version(3),
                "not 1 or 2",
            ),
            (
                ContainerProperties::hierarchical("h", &["/a", "/b"]).with_partition_key_version(1),
                "needs version 2",
            ),
        ] {
            let e = db.create_container(props).await.unwrap_err().to_string();
            assert!(e.contains(why), "{e}");
        }
    });
}
