//! An ORDER BY query on one logical partition resumes from a continuation handed out by the
//! same query over a feed range of that key (azure-cosmos's
//! `test_full_partition_key_query_pagination_resume_and_count_is_index_only`: a feed range
//! from a full hierarchical key, then the partition-key path with its token).

mod common;

use engine::{ContainerProperties, EngineOptions, EpkRange, PartitionKey, QueryOptions};
use serde_json::{json, Value};

#[test]
fn a_key_query_resumes_from_a_feed_range_token_of_that_key() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = common::container(
            &t,
            ContainerProperties::hierarchical("c", &["/state", "/city", "/zipcode"]),
        )
        .await;
        for i in 0..25 {
            c.upsert_item(
                &json!({"id": format!("doc-{i:03}"), "state": "CA", "city": "Oxnard", "zipcode": "93033"}),
                None,
                None,
            )
            .await
            .unwrap();
        }
        for i in 0..5 {
            c.upsert_item(
                &json!({"id": format!("other-{i:03}"), "state": "WA", "city": "Seattle", "zipcode": format!("98{i:03}")}),
                None,
                None,
            )
            .await
            .unwrap();
        }
        let key = PartitionKey::from_json_values(&[json!("CA"), json!("Oxnard"), json!("93033")], "pk")
            .unwrap();
        let epk = key.cosmos_epk();
        let sql = "SELECT VALUE c.id FROM c ORDER BY c.id";
        let no_params: &[(&str, Value)] = &[];
        let first = c
            .query_items::<Value>(
                sql,
                no_params,
                QueryOptions {
                    epk_range: Some(EpkRange::new(&epk, &epk)),
                    max_item_count: Some(7),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        let ids = |v: &[Value]| v.iter().map(|x| x.as_str().unwrap().to_owned()).collect::<Vec<_>>();
        assert_eq!(ids(&first.items), (0..7).map(|i| format!("doc-{i:03}")).collect::<Vec<_>>());
        let mut opts = QueryOptions {
            partition_key: Some(key),
            max_item_count: Some(7),
            continuation: first.continuation,
            ..Default::default()
        };
        let mut rest = Vec::new();
        loop {
            let page = c.query_items::<Value>(sql, no_params, opts.clone()).await.unwrap();
            rest.extend(ids(&page.items));
            match page.continuation {
                Some(next) => opts.continuation = Some(next),
                None => break,
            }
        }
        assert_eq!(rest, (7..25).map(|i| format!("doc-{i:03}")).collect::<Vec<_>>());
    });
}
