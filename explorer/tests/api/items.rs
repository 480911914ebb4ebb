use sitekit::testing::{input_value, unescape};

use crate::helpers::{spawn_app, BIKES};

#[tokio::test]
async fn a_logical_partition_is_browsed_page_by_page() {
    let app = spawn_app(false).await;
    let v = app.visitor();
    let first = v.get("/dbs/shop/colls/products/items?pk=bikes").await;
    assert_eq!(first.status, 200);
    assert_eq!(first.body.matches("/items/bike-").count(), 20);
    // Issue 37: `_ts` reads as a date (the raw seconds in its title), not epoch seconds.
    assert!(
        first.body.contains("<time title=\"_ts ") && first.body.contains(" UTC</time>"),
        "{}",
        first.body
    );
    assert!(
        !first.body.contains("helmet-"),
        "one logical partition only"
    );
    let at = first.body.find("rel=\"next\"").expect("a next page");
    let href_start = first.body[..at].rfind("href=\"").unwrap() + 6;
    let href = unescape(&first.body[href_start..at - 2]);
    let second = v.get(&href).await;
    assert_eq!(second.status, 200);
    assert_eq!(second.body.matches("/items/bike-").count(), BIKES - 20);
    assert!(!second.body.contains("rel=\"next\""));
    assert!(second.request_charge() > 0.0);
}

#[tokio::test]
async fn an_item_opens_as_json_with_its_etag() {
    let app = spawn_app(false).await;
    let r = app
        .get("/dbs/shop/colls/products/items/bike-03?pk=bikes")
        .await;
    assert_eq!(r.status, 200);
    assert!(
        r.body.contains("&#34;name&#34;: &#34;Bike 3&#34;"),
        "{}",
        r.body
    );
    assert!(input_value(&r.body, "etag").is_some_and(|e| !e.is_empty()));
    let missing = app
        .get("/dbs/shop/colls/products/items/nope?pk=bikes")
        .await;
    assert_eq!(missing.status, 404);
}

#[tokio::test]
async fn writes_without_the_flag_are_refused_with_a_reason() {
    let app = spawn_app(false).await;
    let v = app.visitor();
    let page = "/dbs/shop/colls/products/items/bike-01?pk=bikes";
    let shown = v.get(page).await;
    assert!(shown.body.contains("id=\"read-only\""));
    let etag = input_value(&shown.body, "etag").unwrap();
    let json = r#"{"id": "bike-01", "categoryId": "bikes", "name": "Renamed"}"#;
    let edit = v
        .submit(
            page,
            "/dbs/shop/colls/products/items/bike-01",
            &[("pk", "bikes"), ("etag", &etag), ("json", json)],
        )
        .await;
    assert_eq!(edit.status, 403);
    assert!(edit.body.contains("--explorer-writes"), "{}", edit.body);
    let delete = v
        .submit(
            page,
            "/dbs/shop/colls/products/items/bike-01/delete",
            &[("pk", "bikes"), ("etag", &etag)],
        )
        .await;
    assert_eq!(delete.status, 403);
    let still = app
        .products
        .read_item::<serde_json::Value>("bike-01", "bikes", None)
        .await
        .unwrap();
    assert_eq!(still.resource.unwrap()["name"], "Bike 1");
}

#[tokio::test]
async fn an_edit_applies_only_if_the_etag_is_unchanged() {
    let app = spawn_app(true).await;
    let v = app.visitor();
    let page = "/dbs/shop/colls/products/items/bike-02?pk=bikes";
    let action = "/dbs/shop/colls/products/items/bike-02";
    let etag = input_value(&v.get(page).await.body, "etag").unwrap();
    let json = r#"{"id": "bike-02", "categoryId": "bikes", "name": "Edited in the explorer"}"#;
    let saved = v
        .submit(
            page,
            action,
            &[("pk", "bikes"), ("etag", &etag), ("json", json)],
        )
        .await;
    assert_eq!(saved.status, 303, "{}", saved.body);
    let shown = v.get(saved.location()).await;
    assert!(shown.body.contains("Edited in the explorer"));
    assert!(shown.body.contains("Saved bike-02"));

    // The old etag is stale now: 412, the text as typed, and why.
    let stale = v
        .submit(
            page,
            action,
            &[("pk", "bikes"), ("etag", &etag), ("json", json)],
        )
        .await;
    assert_eq!(stale.status, 412, "{}", stale.body);
    assert!(stale.body.contains("changed since you opened it"));
    let bad = v
        .submit(
            page,
            action,
            &[("pk", "bikes"), ("etag", &etag), ("json", "{nope")],
        )
        .await;
    assert_eq!(bad.status, 400);
    assert!(bad.body.contains("not valid JSON"), "{}", bad.body);
}

#[tokio::test]
async fn a_delete_checks_the_etag_too() {
    let app = spawn_app(true).await;
    let v = app.visitor();
    let page = "/dbs/shop/colls/products/items/helmet-0?pk=helmets";
    let action = "/dbs/shop/colls/products/items/helmet-0/delete";
    let stale = v
        .submit(page, action, &[("pk", "helmets"), ("etag", "\"0:0\"")])
        .await;
    assert_eq!(stale.status, 412, "{}", stale.body);
    let etag = input_value(&v.get(page).await.body, "etag").unwrap();
    let deleted = v
        .submit(page, action, &[("pk", "helmets"), ("etag", &etag)])
        .await;
    assert_eq!(deleted.status, 303);
    assert_eq!(
        deleted.location(),
        "/dbs/shop/colls/products/items?pk=helmets"
    );
    assert_eq!(app.get(page).await.status, 404);
}

#[tokio::test]
async fn posts_without_the_csrf_token_are_refused() {
    let app = spawn_app(true).await;
    let r = app
        .visitor()
        .post(
            "/dbs/shop/colls/products/items/bike-01/delete",
            &[("pk", "bikes"), ("etag", "x")],
        )
        .await;
    assert_eq!(r.status, 403);
}
