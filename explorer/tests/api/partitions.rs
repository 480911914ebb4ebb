use engine::ContainerProperties;
use serde_json::json;

use crate::helpers::spawn_app;

#[tokio::test]
async fn every_container_has_a_heat_map_and_its_partitions_ranges() {
    let app = spawn_app(false).await;
    let r = app.get("/partitions").await;
    assert_eq!(r.status, 200);
    assert!(r.body.contains("<svg class=\"heat\""), "{}", r.body);
    assert!(r.body.contains("shop / products"));
    assert!(
        r.body
            .contains("<code>0000000000000000–7FFFFFFFFFFFFFFF</code>"),
        "{}",
        r.body
    );
    assert!(r
        .body
        .contains("<code>7FFFFFFFFFFFFFFF–FFFFFFFFFFFFFFFF</code>"));
    // The same ranges as an SDK sees them: range ids and Cosmos EPK bounds (the coordinate
    // 7FFF… is the Cosmos EPK 1FFF…C000…, two bits to the right).
    assert!(
        r.body.contains("1: <code>1FFFFFFFFFFF…–FF</code>"),
        "{}",
        r.body
    );
    assert!(r.body.contains("0: <code>"));
    let refreshing = app.get("/partitions?refresh=2").await;
    assert!(refreshing
        .body
        .contains("<meta http-equiv=\"refresh\" content=\"2\">"));
}

#[tokio::test]
async fn a_hot_partition_shows_its_load_and_429s() {
    let app = spawn_app(false).await;
    let db = app.engine.database("shop");
    let hot = db
        .create_container(ContainerProperties::new("hot", "/k").with_throughput(20))
        .await
        .unwrap();
    // Writes costing more than 20 RU/s: the partition goes into debt and answers 429s, which
    // the client absorbs by waiting and retrying.
    for i in 0..10 {
        let item = json!({"id": format!("i{i}"), "k": "one", "pad": "x".repeat(4000)});
        hot.create_item(&item, None, None).await.unwrap();
    }
    let r = app.get("/dbs/shop/colls/hot/partitions").await;
    assert_eq!(r.status, 200);
    assert!(r.body.contains("id=\"heat-map\""));
    assert!(r.body.contains("id=\"load-bars\"") && r.body.contains("id=\"storage-bars\""));
    assert!(
        r.body.contains("class=\"hot\""),
        "a row with 429s: {}",
        r.body
    );
    assert!(
        r.body.contains("/items?pk=one"),
        "the largest logical partition is listed"
    );
    let all = app.get("/partitions").await;
    let hot_at = all.body.find("shop / hot").unwrap();
    assert!(all.body[hot_at..].contains("× 429 in the last minute"));
}
