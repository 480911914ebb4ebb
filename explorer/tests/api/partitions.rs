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

/// Issue 37: each heat map has a time axis and a legend that says what full red is — the
/// partition's budget where the container has one, the busiest second where its throughput is
/// unlimited — and `/partitions` gives each container's size.
#[tokio::test]
async fn heat_maps_have_an_axis_and_a_legend_and_containers_their_size() {
    let app = spawn_app(false).await;
    let r = app.get("/partitions").await;
    assert_eq!(r.status, 200);
    let section = |name: &str| {
        let at = r.body.find(&format!("shop / {name}</a>")).unwrap();
        let rest = &r.body[at..];
        rest[..rest.find("</section>").unwrap()].to_owned()
    };
    let products = section("products");
    // 400 RU/s over two partitions: each partition's budget is 200.
    assert!(
        products.contains("full red = the partition's budget, 200 RU/s"),
        "{products}"
    );
    assert_eq!(products.matches("class=\"legend\"").count(), 5);
    assert!(products.contains(">now</text>") && products.contains("seconds ago"));
    // 25 bikes and 3 helmets in two physical partitions.
    assert!(
        products.contains(", 28 items in 2 physical partitions"),
        "{products}"
    );
    let names = section("names");
    assert!(
        names.contains("no budget, throughput unlimited"),
        "a container without throughput is never 'at budget': {names}"
    );
}

/// Issue 37: the explorer is gzipped when asked like the sites — `/partitions` (every
/// container's heat map: SVG that repeats its markup) most of all.
#[tokio::test]
async fn the_partitions_page_is_gzipped_when_asked() {
    let app = spawn_app(false).await;
    let v = app.visitor();
    let r = v
        .client
        .get(format!("{}/partitions", v.base))
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-encoding"], "gzip");
    let body = r.bytes().await.unwrap();
    assert_eq!(&body[..2], &[0x1f, 0x8b], "a gzip stream");
    let plain = app.get("/partitions").await;
    assert!(plain.headers.get("content-encoding").is_none());
    assert!(plain.body.contains("<svg class=\"heat\""));
    assert!(
        body.len() * 3 < plain.body.len(),
        "{} bytes gzipped, {} plain",
        body.len(),
        plain.body.len()
    );
}
