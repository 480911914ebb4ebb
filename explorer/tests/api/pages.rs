use crate::helpers::spawn_app;

#[tokio::test]
async fn the_home_page_lists_databases_and_containers_with_their_settings() {
    let app = spawn_app(false).await;
    let r = app.get("/").await;
    assert_eq!(r.status, 200);
    assert!(r.body.contains("<h2>shop</h2>"), "{}", r.body);
    assert!(r.body.contains(r#"href="/dbs/shop/colls/products""#));
    assert!(r.body.contains("<code>/categoryId</code>"));
    assert!(r.body.contains("400 RU/s"));
    assert!(r.body.contains("unlimited"), "names has no throughput");
    assert!(r.body.contains("read-only"));
}

#[tokio::test]
async fn a_container_page_shows_its_indexing_policy_and_largest_logical_partitions() {
    let app = spawn_app(false).await;
    let r = app.get("/dbs/shop/colls/products").await;
    assert_eq!(r.status, 200);
    // The breadcrumbs keep the database and the container.
    assert!(
        r.body.contains(
            "<a href=\"/#db-shop\">shop</a> / <a href=\"/dbs/shop/colls/products\">products</a>"
        ),
        "{}",
        r.body
    );
    assert!(r.body.contains("id=\"indexing-policy\""));
    assert!(
        r.body.contains("the default: every path indexed"),
        "{}",
        r.body
    );
    assert!(r.body.contains("time to live</th><td>off"));
    assert!(r.body.contains("unique keys</th><td>none"), "{}", r.body);
    let names = app.get("/dbs/shop/colls/names").await;
    assert!(
        names.body.contains("unique keys</th><td>/name"),
        "{}",
        names.body
    );
    // Bikes (25 items) are the largest, linked to the item browser.
    let bikes = r.body.find("/items?pk=bikes").expect("a link to the bikes");
    let helmets = r
        .body
        .find("/items?pk=helmets")
        .expect("a link to the helmets");
    assert!(bikes < helmets);
}

#[tokio::test]
async fn unknown_containers_are_404() {
    let app = spawn_app(false).await;
    for path in [
        "/dbs/shop/colls/nope",
        "/dbs/nope/colls/products/query",
        "/dbs/shop/colls/nope/partitions",
    ] {
        let r = app.get(path).await;
        assert_eq!(r.status, 404, "{path}");
    }
}
