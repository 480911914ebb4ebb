//! Spatial queries and the spatial index: `spatialIndexes` in the indexing policy serves
//! `ST_DISTANCE(...) < r`, `ST_WITHIN` and `ST_INTERSECTS` filters from a few cells of the index
//! instead of a scan (the query metrics and the request charge show it), with exactly the
//! answers of a container without the index, for points and for other geometries.

mod common;

use engine::{ContainerClient, ContainerProperties, EngineOptions, QueryOptions, NO_PARAMS};
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

const POLICY: &str = r#"{
    "includedPaths": [{"path": "/*"}],
    "spatialIndexes": [{"path": "/location/*", "types": ["Point", "Polygon", "LineString"]}]
}"#;

/// 3000 points spread over the Seattle area and the globe, plus a few other geometries and
/// values that are not GeoJSON at all.
fn docs() -> Vec<Value> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut out = Vec::new();
    for i in 0..3000 {
        let (lon, lat) = if i % 3 == 0 {
            (
                rng.random_range(-180.0..180.0),
                rng.random_range(-89.0..89.0),
            )
        } else {
            (
                rng.random_range(-122.6..-121.6),
                rng.random_range(47.2..48.0),
            )
        };
        out.push(json!({"id": format!("p{i}"), "pk": format!("k{}", i % 17), "location": {"type": "Point", "coordinates": [lon, lat]}}));
    }
    out.push(json!({"id": "line", "pk": "k1", "location": {"type": "LineString", "coordinates": [[-122.3, 47.5], [-122.1, 47.7]]}}));
    out.push(json!({"id": "park", "pk": "k2", "location": {"type": "Polygon", "coordinates": [[[-122.35, 47.6], [-122.3, 47.6], [-122.3, 47.65], [-122.35, 47.65], [-122.35, 47.6]]]}}));
    out.push(
        json!({"id": "bad", "pk": "k3", "location": {"type": "Point", "coordinates": [12, 95]}}),
    );
    out.push(json!({"id": "text", "pk": "k4", "location": "Seattle"}));
    out
}

async fn load(c: &ContainerClient) {
    for d in docs() {
        c.create_item(&d, None, None).await.unwrap();
    }
}

async fn run(c: &ContainerClient, q: &str) -> (Vec<String>, engine::QueryMetrics, f64) {
    let r = c
        .query_all::<Value>(q, NO_PARAMS, QueryOptions::default())
        .await
        .unwrap_or_else(|e| panic!("{q}: {e}"));
    let mut ids: Vec<String> = r
        .items
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_owned())
        .collect();
    ids.sort();
    (ids, r.query_metrics.unwrap(), r.request_charge)
}

#[test]
fn the_spatial_index_serves_distance_and_within_filters() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let indexed = common::container(
            &t,
            ContainerProperties::new("indexed", "/pk")
                .with_indexing_policy(serde_json::from_str(POLICY).unwrap())
                .with_initial_partitions(4),
        )
        .await;
        let plain = common::container(
            &t,
            ContainerProperties::new("plain", "/pk").with_initial_partitions(4),
        )
        .await;
        load(&indexed).await;
        load(&plain).await;
        let space_needle = r#"{"type": "Point", "coordinates": [-122.3493, 47.6205]}"#;
        let queries = [
            format!("SELECT VALUE c.id FROM c WHERE ST_DISTANCE(c.location, {space_needle}) < 5000"),
            format!("SELECT VALUE c.id FROM c WHERE ST_DISTANCE({space_needle}, c.location) <= 20000"),
            format!("SELECT VALUE c.id FROM c WHERE 3000 > ST_DISTANCE(c.location, {space_needle})"),
            r#"SELECT VALUE c.id FROM c WHERE ST_WITHIN(c.location, {"type": "Polygon", "coordinates": [[[-122.4, 47.55], [-122.25, 47.55], [-122.25, 47.7], [-122.4, 47.7], [-122.4, 47.55]]]})"#.to_string(),
            r#"SELECT VALUE c.id FROM c WHERE ST_INTERSECTS({"type": "Polygon", "coordinates": [[[-122.4, 47.55], [-122.25, 47.55], [-122.25, 47.7], [-122.4, 47.7], [-122.4, 47.55]]]}, c.location)"#.to_string(),
            // Across the antimeridian.
            r#"SELECT VALUE c.id FROM c WHERE ST_DISTANCE(c.location, {"type": "Point", "coordinates": [179.9, 10]}) < 900000"#.to_string(),
        ];
        for q in &queries {
            let (want, scan, scan_ru) = run(&plain, q).await;
            let (got, m, ru) = run(&indexed, q).await;
            assert_eq!(got, want, "{q}");
            assert!(!want.is_empty(), "{q} finds something");
            assert!(m.plan.contains("spatial index /location"), "{q}: {}", m.plan);
            assert!(!scan.plan.contains("spatial"), "{}", scan.plan);
            assert_eq!(scan.retrieved_document_count, 3004, "the plain container scans");
            assert!(
                m.retrieved_document_count < 3004 / 3,
                "{q}: the index loads {} items",
                m.retrieved_document_count
            );
            assert!(ru * 2.0 < scan_ru, "{q}: {ru} RU with the index, {scan_ru} without");
        }
        // The non-point geometries are found through the index too.
        let (ids, _, _) = run(&indexed, &queries[1]).await;
        assert!(ids.contains(&"park".to_string()) && ids.contains(&"line".to_string()), "{ids:?}");
        // Invalid GeoJSON is never a match, indexed or not.
        let (ids, _, _) = run(&indexed, r#"SELECT VALUE c.id FROM c WHERE ST_DISTANCE(c.location, {"type": "Point", "coordinates": [12, 89]}) < 1000000"#).await;
        assert!(!ids.contains(&"bad".to_string()), "{ids:?}");
        // Without a constant geometry, or in an OR, the filter cannot use the index but answers
        // the same.
        let q = "SELECT VALUE c.id FROM c WHERE ST_DISTANCE(c.location, c.location) < 1 AND c.pk = 'k1'";
        assert_eq!(run(&indexed, q).await.0, run(&plain, q).await.0);
    });
}

#[test]
fn spatial_index_policies_are_checked_and_rebuilt() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        load(&c).await;
        let q = r#"SELECT VALUE COUNT(1) FROM c WHERE ST_DISTANCE(c.location, {"type": "Point", "coordinates": [-122.3493, 47.6205]}) < 5000"#;
        let before = c
            .query_all::<Value>(q, NO_PARAMS, QueryOptions::default())
            .await
            .unwrap();
        let db = t.engine.database("test");
        for bad in [
            json!({"includedPaths": [{"path": "/*"}], "spatialIndexes": [{"path": "/location"}]}),
            json!({"includedPaths": [{"path": "/*"}], "spatialIndexes": [{"path": "/location/*", "types": ["Circle"]}]}),
        ] {
            let e = db.replace_indexing_policy("c", bad).await.unwrap_err();
            assert_eq!(e.status_code(), 400);
        }
        db.replace_indexing_policy("c", serde_json::from_str(POLICY).unwrap())
            .await
            .unwrap();
        for _ in 0..500 {
            if c.read_container().unwrap().index_rebuild_progress().is_none() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        let after = c
            .query_all::<Value>(q, NO_PARAMS, QueryOptions::default())
            .await
            .unwrap();
        assert_eq!(after.items, before.items);
        let m = after.query_metrics.unwrap();
        assert!(m.plan.contains("spatial index"), "{}", m.plan);
        assert!(after.request_charge < before.request_charge);
    });
}
