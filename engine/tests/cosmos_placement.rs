//! Items are placed by Cosmos DB's own hash (issues 21 and 23): every physical partition is a
//! range of the EPKs an SDK computes, before and after splits, for plain and hierarchical keys.
//! Checked against `PartitionKey::cosmos_epk`, which matches the Python SDK's vectors.

mod common;

use std::collections::HashSet;

use engine::{
    ContainerClient, ContainerProperties, EngineOptions, PartitionKey, PhysicalPartitionInfo,
};
use serde_json::{json, Value};

fn hierarchical(values: &[&str]) -> PartitionKey {
    let values: Vec<Value> = values.iter().map(|v| json!(v)).collect();
    PartitionKey::from_json_values(&values, "pk").unwrap()
}

fn small_partitions() -> EngineOptions {
    EngineOptions {
        split_threshold_bytes: 64 * 1024,
        ..Default::default()
    }
}

/// The ranges tile `["", "FF")` in order, and each range id is new.
fn assert_tiled(parts: &[PhysicalPartitionInfo]) {
    let ranges: Vec<_> = parts
        .iter()
        .map(|p| p.cosmos_range.clone().expect("placed by Cosmos's hash"))
        .collect();
    assert_eq!(ranges[0].start, "");
    assert_eq!(ranges.last().unwrap().end, "FF");
    for w in ranges.windows(2) {
        assert_eq!(w[0].end, w[1].start);
        assert!(w[0].start < w[0].end, "{w:?}");
    }
    let ids: HashSet<u32> = parts.iter().map(|p| p.range_id).collect();
    assert_eq!(ids.len(), parts.len(), "range ids are distinct");
    for p in parts {
        assert!(
            !p.range_parents.iter().any(|a| ids.contains(a)),
            "an ancestor range is still shown: {p:?}"
        );
    }
}

/// The one partition whose Cosmos range holds `key`'s EPK is the one the engine stores it in.
fn assert_placed(c: &ContainerClient, parts: &[PhysicalPartitionInfo], key: &PartitionKey) {
    let epk = key.cosmos_epk();
    let holders: Vec<u32> = parts
        .iter()
        .filter(|p| p.cosmos_range.as_ref().unwrap().contains(&epk))
        .map(|p| p.id)
        .collect();
    assert_eq!(holders, c.partitions_of(key).unwrap(), "{key} at {epk}");
}

/// `n` events of ~300 bytes in a `/tenantId, /userId, /sessionId` container of partitions that
/// split past 64 KB: event `i` under `tenant(i)`, user `u{i % users}`, session `s{i % sessions}`.
/// Then the ranges tile the space and every key lies in its partition's range.
async fn split_events(
    t: &common::TestEngine,
    n: usize,
    tenant: impl Fn(usize) -> String,
    users: usize,
    sessions: usize,
) -> (ContainerClient, Vec<PhysicalPartitionInfo>) {
    let c = common::container(
        t,
        ContainerProperties::hierarchical("events", &["/tenantId", "/userId", "/sessionId"]),
    )
    .await;
    let mut keys = HashSet::new();
    for i in 0..n {
        let (tenant, user, session) = (
            tenant(i),
            format!("u{}", i % users),
            format!("s{}", i % sessions),
        );
        let doc = json!({"id": format!("e{i}"), "tenantId": tenant, "userId": user,
                         "sessionId": session, "pad": "x".repeat(300)});
        c.create_item(&doc, None, None).await.unwrap();
        keys.insert((tenant, user, session));
    }
    let parts = c.partitions().unwrap();
    assert_tiled(&parts);
    for (t, u, s) in &keys {
        assert_placed(&c, &parts, &hierarchical(&[t, u, s]));
    }
    (c, parts)
}

#[test]
fn plain_keys_live_in_the_cosmos_range_of_their_partition() {
    common::rt().block_on(async {
        let t = common::open(small_partitions());
        let c = common::container(&t, ContainerProperties::new("orders", "/customerId")).await;
        let before = c.partitions().unwrap();
        assert_eq!(before.len(), 1);
        assert_tiled(&before);
        for i in 0..400 {
            let doc = json!({"id": format!("o{i}"), "customerId": format!("c{}", i % 150),
                             "pad": "x".repeat(400)});
            c.create_item(&doc, None, None).await.unwrap();
        }
        let parts = c.partitions().unwrap();
        assert!(parts.len() >= 3, "{} partitions", parts.len());
        assert_tiled(&parts);
        // The first range was split: its id is gone and its children descend from it.
        assert!(parts.iter().all(|p| p.range_id != before[0].range_id));
        assert!(parts
            .iter()
            .all(|p| p.range_parents.first() == Some(&before[0].range_id)));
        for i in 0..150 {
            assert_placed(&c, &parts, &PartitionKey::from(format!("c{i}")));
        }
        // A plain key's boundaries are its coordinates: 32 hex digits.
        assert!(parts[1..]
            .iter()
            .all(|p| p.cosmos_range.as_ref().unwrap().start.len() == 32));
    });
}

#[test]
fn containers_made_with_several_partitions_start_on_cosmos_bounds() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        for (id, props) in [
            (
                "plain",
                ContainerProperties::new("plain", "/pk").with_initial_partitions(7),
            ),
            (
                "tenants",
                ContainerProperties::hierarchical("tenants", &["/t", "/u", "/s"])
                    .with_initial_partitions(7),
            ),
        ] {
            let c = common::container(&t, props).await;
            for i in 0..300 {
                let doc = json!({"id": "x", "pk": format!("k{i}"), "t": format!("t{i}"),
                                 "u": "u", "s": "s"});
                c.create_item(&doc, None, None).await.unwrap();
            }
            let parts = c.partitions().unwrap();
            assert_eq!(parts.len(), 7, "{id}");
            assert_tiled(&parts);
            for i in 0..300 {
                let key = if id == "plain" {
                    PartitionKey::from(format!("k{i}"))
                } else {
                    hierarchical(&[&format!("t{i}"), "u", "s"])
                };
                assert_placed(&c, &parts, &key);
            }
        }
    });
}

/// One tenant outgrows a partition: the splits fall inside its share of the space, so the
/// range bounds there name the tenant's whole EPK and part of the next level's, as Cosmos DB
/// names them; every key stays inside its partition's range, and a prefix's EPK range overlaps
/// exactly the partitions the engine visits for it.
#[test]
fn a_tenant_splits_on_bounds_that_name_it() {
    common::rt().block_on(async {
        let t = common::open(small_partitions());
        let tenant = |i: usize| {
            if i.is_multiple_of(10) {
                format!("t{}", i % 70)
            } else {
                "big".into()
            }
        };
        let (c, parts) = split_events(&t, 700, tenant, 60, 7).await;
        assert!(parts.len() >= 4, "{} partitions", parts.len());
        let big = hierarchical(&["big"]);
        let spanned = c.partitions_of(&big).unwrap();
        assert!(spanned.len() >= 2, "the tenant spans {spanned:?}");
        let tenant_epk = big.cosmos_epk();
        let inside = parts
            .iter()
            .filter(|p| {
                let start = &p.cosmos_range.as_ref().unwrap().start;
                start.len() > 32 && start.starts_with(&tenant_epk)
            })
            .count();
        assert!(inside >= 1, "a bound names the tenant: {parts:#?}");
        let prefix = engine::EpkRange::new(&tenant_epk, &format!("{tenant_epk}FF"));
        let overlapping: Vec<u32> = parts
            .iter()
            .filter(|p| {
                let r = p.cosmos_range.as_ref().unwrap();
                r.start.as_str() < prefix.end.as_str() && prefix.start.as_str() < r.end.as_str()
            })
            .map(|p| p.id)
            .collect();
        assert_eq!(overlapping, spanned);
    });
}

/// Two tenants whose Cosmos hashes share the bits a three-level coordinate keeps of the first
/// value: a boundary inside that share could not be said as a Cosmos EPK (Cosmos orders the two
/// tenants whole, the coordinate interleaves their users), so splits stay out of it, and every
/// key stays in the range of its partition.
#[test]
fn tenants_whose_hashes_collide_are_never_split_apart() {
    // The first 24 bits below the two clear ones of the first value's hash.
    let share = |t: &str| {
        let epk = hierarchical(&[t, "u", "s"]).cosmos_epk();
        (u128::from_str_radix(&epk[..32], 16).unwrap() >> (126 - 24)) as u32
    };
    let mut seen = std::collections::HashMap::new();
    let (a, b) = (0..200_000)
        .find_map(|i| {
            let t = format!("tenant{i}");
            seen.insert(share(&t), t.clone()).map(|other| (other, t))
        })
        .expect("a collision among 200 000 tenants (birthday bound ~4 000)");
    assert_ne!(a, b);
    common::rt().block_on(async {
        let t = common::open(small_partitions());
        // Mostly the first tenant (the byte median falls in the shared share), and the other
        // one's users spread over the share's lower levels.
        let tenant = |i: usize| {
            if i.is_multiple_of(4) {
                b.clone()
            } else {
                a.clone()
            }
        };
        let (c, _) = split_events(&t, 600, tenant, 50, 5).await;
        // Neither tenant is divided: each lives in one partition.
        for tenant in [&a, &b] {
            assert_eq!(
                c.partitions_of(&hierarchical(&[tenant])).unwrap().len(),
                1,
                "{tenant}"
            );
        }
    });
}
