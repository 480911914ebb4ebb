//! The gateway driven by the official Rust SDK, `azure_data_cosmos` 1.x: items, a transactional
//! batch and queries across four physical partitions, with the engine's rows and RU.

mod common;

use azure_data_cosmos::feed::FeedScope;
use azure_data_cosmos::models::{ContainerProperties, TransactionalBatch};
use azure_data_cosmos::options::{
    BinaryEncodingOptions, MaxItemCountHint, QueryOptions, QueryPlanMode,
};
use azure_data_cosmos::{AccountEndpoint, AccountReference, CosmosClient, Query, RoutingStrategy};
use common::TestGateway;
use futures_util::TryStreamExt;
use serde_json::{json, Value};

async fn client(gw: &TestGateway) -> CosmosClient {
    let endpoint: AccountEndpoint = gw.endpoint().parse().unwrap();
    let account = AccountReference::with_authentication_key(
        endpoint,
        azure_core::credentials::Secret::from(gateway::EMULATOR_KEY.to_owned()),
    );
    CosmosClient::builder()
        // The gateway reads JSON text, not Cosmos DB's binary JSON (the SDK's default).
        .with_binary_encoding_options(BinaryEncodingOptions::new().with_enabled(false))
        .build(account, RoutingStrategy::ProximityTo("local".into()))
        .await
        .expect("the SDK reads the database account")
}

fn charge(h: &azure_data_cosmos::models::ResponseHeaders) -> f64 {
    h.request_charge()
        .map(|c| c.value())
        .expect("x-ms-request-charge")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn items_batch_and_queries_with_the_rust_sdk() {
    let gw = TestGateway::start();
    let client = client(&gw).await;
    client.create_database("r", None).await.unwrap();
    let db = client.database_client("r");
    db.create_container(ContainerProperties::new("c", "/pk".into()), None)
        .await
        .unwrap();
    // Four physical partitions, so queries fan out: created through the engine (the container
    // above shows the SDK's create; this one how the engine partitions).
    gw.engine
        .database("r")
        .create_container(
            engine::ContainerProperties::new("wide", "/pk").with_initial_partitions(4),
        )
        .await
        .unwrap();
    let c = db.container_client("c", None).await.unwrap();
    let wide = db.container_client("wide", None).await.unwrap();

    // Point operations.
    let created = c
        .create_item("p1", "a", json!({"id": "a", "pk": "p1", "n": 1}), None)
        .await
        .unwrap();
    assert!(charge(created.headers()) > 0.0);
    c.upsert_item("p1", "a", json!({"id": "a", "pk": "p1", "n": 2}), None)
        .await
        .unwrap();
    let read = c.read_item("p1", "a", None).await.unwrap();
    let read_charge = charge(read.headers());
    let doc: Value = read.into_model().unwrap();
    assert_eq!(doc["n"], 2);
    let embedded = gw
        .engine
        .database("r")
        .container("c")
        .read_item_raw("a", &"p1".into())
        .unwrap();
    assert_eq!(
        read_charge, embedded.request_charge,
        "the engine's RU, unchanged"
    );
    c.replace_item("p1", "a", json!({"id": "a", "pk": "p1", "n": 3}), None)
        .await
        .unwrap();
    c.delete_item("p1", "a", None).await.unwrap();
    assert!(c.read_item("p1", "a", None).await.is_err(), "deleted");

    // A transactional batch.
    let batch = TransactionalBatch::new("p2")
        .create_item(json!({"id": "b1", "pk": "p2"}))
        .unwrap()
        .create_item(json!({"id": "b2", "pk": "p2"}))
        .unwrap()
        .read_item("b1", None);
    let r = c
        .execute_transactional_batch(batch, None)
        .await
        .unwrap()
        .into_model()
        .unwrap();
    let statuses: Vec<u16> = r.results().iter().map(|o| o.status_code()).collect();
    assert_eq!(statuses, [201, 201, 200]);

    // Queries across four physical partitions, paged by 7.
    for i in 0..60 {
        wide.create_item(
            format!("g{}", i % 9),
            &format!("w{i:02}"),
            json!({"id": format!("w{i:02}"), "pk": format!("g{}", i % 9), "n": i}),
            None,
        )
        .await
        .unwrap();
    }
    let partitions = gw.engine.database("r").container("wide").partitions();
    assert_eq!(partitions.unwrap().len(), 4);
    let page_size = MaxItemCountHint::Limit(std::num::NonZeroU32::new(7).unwrap());
    // With the gateway's query plan (which asks for no client-side work), every shape; with
    // the SDK's own local planner (its default), the shapes it merges itself over the one range.
    let gateway_plan = [
        "SELECT c.id, c.n FROM c ORDER BY c.n DESC",
        "SELECT VALUE COUNT(1) FROM c",
        "SELECT VALUE SUM(c.n) FROM c",
        "SELECT DISTINCT VALUE c.pk FROM c",
        "SELECT c.pk, COUNT(1) AS n FROM c GROUP BY c.pk",
        "SELECT c.n FROM c ORDER BY c.n OFFSET 5 LIMIT 20",
        "SELECT TOP 3 c.n FROM c ORDER BY c.n",
        "SELECT * FROM c WHERE c.n >= 50",
    ];
    let local_plan = [
        "SELECT c.id, c.n FROM c ORDER BY c.n DESC",
        "SELECT VALUE COUNT(1) FROM c",
        "SELECT * FROM c WHERE c.n >= 50",
    ];
    let runs = gateway_plan
        .iter()
        .map(|q| (*q, QueryPlanMode::GatewayOnly))
        .chain(
            local_plan
                .iter()
                .map(|q| (*q, QueryPlanMode::LocalPreferred)),
        );
    for (sql, mode) in runs {
        let options = QueryOptions::default()
            .with_max_item_count(page_size)
            .with_query_plan_mode(mode);
        let mut pages = wide
            .query_items::<Value>(Query::from(sql), FeedScope::full_container(), Some(options))
            .await
            .unwrap_or_else(|e| panic!("{sql} ({mode}): {e}"))
            .into_pages();
        let mut rows = Vec::new();
        let mut n = 0;
        while let Some(page) = pages
            .try_next()
            .await
            .unwrap_or_else(|e| panic!("{sql} ({mode}): {e}"))
        {
            n += 1;
            rows.extend(page.into_items());
        }
        let embedded = gw
            .engine
            .database("r")
            .container("wide")
            .query_all::<Value>(sql, engine::NO_PARAMS, Default::default())
            .await
            .unwrap();
        assert_eq!(rows, embedded.items, "{sql} ({mode})");
        if embedded.items.len() > 7 {
            assert!(n > 1, "{sql} ({mode}) came in pages");
        }
    }
    // One logical partition.
    let mut it = wide
        .query_items::<Value>(
            Query::from("SELECT VALUE c.n FROM c ORDER BY c.n"),
            FeedScope::partition("g4"),
            None,
        )
        .await
        .unwrap();
    let mut ns = Vec::new();
    while let Some(n) = it.try_next().await.unwrap() {
        ns.push(n.as_i64().unwrap());
    }
    assert_eq!(ns, (0..60).filter(|i| i % 9 == 4).collect::<Vec<_>>());
}

/// A hierarchical key through the Rust SDK: point operations with the full key (a tuple), and a
/// query of a prefix, which the SDK sends per range with the prefix as the partition key header
/// and its EPK bounds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hierarchical_keys_with_the_rust_sdk() {
    let gw = TestGateway::start();
    let client = client(&gw).await;
    client.create_database("h", None).await.unwrap();
    gw.engine
        .database("h")
        .create_container(
            engine::ContainerProperties::hierarchical("s", &["/tenantId", "/userId"])
                .with_initial_partitions(4),
        )
        .await
        .unwrap();
    let c = client
        .database_client("h")
        .container_client("s", None)
        .await
        .unwrap();
    for t in 0..3 {
        for u in 0..4 {
            let (tenant, user) = (format!("t{t}"), format!("u{u}"));
            let doc = json!({"id": format!("e{t}{u}"), "tenantId": tenant, "userId": user});
            c.create_item(
                (tenant.clone(), user.clone()),
                &format!("e{t}{u}"),
                doc,
                None,
            )
            .await
            .unwrap();
        }
    }
    let read: Value = c
        .read_item(("t1", "u2"), "e12", None)
        .await
        .unwrap()
        .into_model()
        .unwrap();
    assert_eq!(read["userId"], "u2");
    assert!(
        c.read_item("t1", "e12", None).await.is_err(),
        "a prefix is not a key for a point read"
    );
    for (scope, want) in [
        (FeedScope::partition("t1"), vec!["e10", "e11", "e12", "e13"]),
        (FeedScope::partition(("t2", "u3")), vec!["e23"]),
    ] {
        let options = QueryOptions::default().with_query_plan_mode(QueryPlanMode::GatewayOnly);
        let mut it = c
            .query_items::<Value>(
                Query::from("SELECT VALUE c.id FROM c"),
                scope,
                Some(options),
            )
            .await
            .unwrap();
        let mut ids = Vec::new();
        while let Some(id) = it.try_next().await.unwrap() {
            ids.push(id.as_str().unwrap().to_owned());
        }
        ids.sort();
        assert_eq!(ids, want);
    }
}

/// The ids of `it`'s pages until a round over the container's ranges brings nothing new (a
/// change feed never ends; the SDK polls its ranges in turn, one page each).
async fn drain_changes(
    it: &mut azure_data_cosmos::feed::ChangeFeedPageIterator<
        azure_data_cosmos::models::ChangeFeedItem<Value>,
    >,
) -> Vec<String> {
    const ROUND: usize = 16;
    let mut ids = Vec::new();
    let mut empty = 0;
    while let Some(page) = it.try_next().await.unwrap() {
        let before = ids.len();
        ids.extend(
            page.items()
                .iter()
                .filter_map(|i| i.current())
                .map(|d| d["id"].as_str().unwrap().to_owned()),
        );
        empty = if ids.len() == before { empty + 1 } else { 0 };
        if empty > ROUND {
            break;
        }
    }
    ids
}

/// A split under the Rust SDK's feet (issue 21): an ordered query and a change feed, each a page
/// in on one range, go on across the split (the SDK meets 410/1002, reads /pkranges and goes on
/// with the children); every item once, the query in order; then each feed range's change feed
/// holds its own items and together all of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_split_under_a_paged_query_and_change_feed_with_the_rust_sdk() {
    use azure_data_cosmos::options::{
        ChangeFeedOptions, ChangeFeedStartFrom, ReadFeedRangesOptions,
    };

    let gw = TestGateway::splitting_at(48 * 1024);
    let client = client(&gw).await;
    client.create_database("s", None).await.unwrap();
    let db = client.database_client("s");
    db.create_container(ContainerProperties::new("e", "/pk".into()), None)
        .await
        .unwrap();
    let c = db.container_client("e", None).await.unwrap();
    let create = |i: usize, pad: usize| {
        let c = c.clone();
        async move {
            let pk = format!("p{}", i % 97);
            let doc = json!({"id": format!("e{i:03}"), "pk": pk, "n": i, "pad": "x".repeat(pad)});
            c.create_item(&pk, &format!("e{i:03}"), doc, None)
                .await
                .unwrap();
        }
    };
    let first = 60;
    for i in 0..first {
        create(i, 0).await;
    }
    let refresh = || Some(ReadFeedRangesOptions::default().with_force_refresh(true));
    assert_eq!(c.read_feed_ranges(refresh()).await.unwrap().len(), 1);

    let options = QueryOptions::default()
        .with_max_item_count(MaxItemCountHint::Limit(10.try_into().unwrap()))
        .with_query_plan_mode(QueryPlanMode::GatewayOnly);
    let mut query = c
        .query_items::<Value>(
            Query::from("SELECT VALUE c.n FROM c ORDER BY c.n"),
            FeedScope::full_container(),
            Some(options),
        )
        .await
        .unwrap()
        .into_pages();
    let mut ns: Vec<i64> = query
        .try_next()
        .await
        .unwrap()
        .unwrap()
        .into_items()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert_eq!(ns, (0..10).collect::<Vec<_>>());
    let feed_options = ChangeFeedOptions::default()
        .with_max_item_count(MaxItemCountHint::Limit(10.try_into().unwrap()));
    let mut feed = c
        .query_change_feed::<Value>(
            FeedScope::full_container(),
            ChangeFeedStartFrom::Beginning,
            Some(feed_options),
        )
        .await
        .unwrap();
    let page = feed.try_next().await.unwrap().unwrap();
    let page_ids: Vec<String> = page
        .items()
        .iter()
        .filter_map(|i| i.current())
        .map(|d| d["id"].as_str().unwrap().to_owned())
        .collect();
    let mut fed = page_ids.clone();
    assert!(!fed.is_empty());
    let token = feed.to_continuation_token().unwrap();

    // Writes split the one partition several times.
    let total = 400;
    for i in first..total {
        create(i, 400).await;
    }
    let ranges = c.read_feed_ranges(refresh()).await.unwrap();
    assert!(ranges.len() >= 4, "{} ranges", ranges.len());

    while let Some(page) = query.try_next().await.unwrap() {
        ns.extend(page.into_items().iter().map(|v| v.as_i64().unwrap()));
    }
    // In order, each once; the items written before the query began all there.
    assert!(ns.windows(2).all(|w| w[0] < w[1]), "{ns:?}");
    assert!((0..first as i64).all(|i| ns.contains(&i)));

    fed.extend(drain_changes(&mut feed).await);
    fed.sort();
    let all: Vec<String> = (0..total).map(|i| format!("e{i:03}")).collect();
    assert_eq!(fed, all, "the change feed across the split");

    let mut by_range = Vec::new();
    for range in ranges {
        let mut it = c
            .query_change_feed::<Value>(
                FeedScope::range(range),
                ChangeFeedStartFrom::Beginning,
                None,
            )
            .await
            .unwrap();
        let ids = drain_changes(&mut it).await;
        assert!(!ids.is_empty());
        by_range.extend(ids);
    }
    by_range.sort();
    assert_eq!(by_range, all, "the feed ranges hold every item once");

    // The token taken on the one range before the split, read per child range: each child's
    // share of what came after it (how a processor moves a lease to the children).
    let mut after_token = Vec::new();
    for range in c.read_feed_ranges(None).await.unwrap() {
        let options = ChangeFeedOptions::default().with_continuation_token(token.clone());
        let mut it = c
            .query_change_feed::<Value>(
                FeedScope::range(range),
                ChangeFeedStartFrom::Beginning,
                Some(options),
            )
            .await
            .unwrap();
        after_token.extend(drain_changes(&mut it).await);
    }
    after_token.sort();
    let first_page: std::collections::HashSet<&String> = page_ids.iter().collect();
    let want: Vec<String> = all
        .iter()
        .filter(|i| !first_page.contains(i))
        .cloned()
        .collect();
    assert_eq!(
        after_token, want,
        "the pre-split token read per child range"
    );
}
