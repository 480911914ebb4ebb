use crate::helpers::spawn_app;

const PAGE: &str = "/dbs/shop/colls/products/scripts";
const RUN: &str = "/dbs/shop/colls/products/scripts/countItems";

#[tokio::test]
async fn procedures_and_triggers_are_listed() {
    let app = spawn_app(false).await;
    let r = app.get(PAGE).await;
    assert_eq!(r.status, 200);
    assert!(r.body.contains("<code>countItems</code>"));
    assert!(
        r.body.contains("<code>stampCreated</code>")
            && r.body.contains("</details></td><td>pre</td><td>Create"),
        "{}",
        r.body
    );
    assert!(r.body.contains("id=\"read-only\""));
    // JavaScript scripts show their text, escaped.
    assert!(r.body.contains("function countItems(prefix)"), "{}", r.body);
    assert!(r.body.contains("item.stamped = 1 &#60; 2;"), "{}", r.body);
    // The JavaScript pre-trigger changes the item it is asked to run on.
    let opts = engine::ItemOptions::with_triggers(&["stampCreated"], &[]);
    let created = app
        .products
        .create_item(
            &serde_json::json!({"id": "stamp-me", "categoryId": "bikes"}),
            None,
            Some(opts),
        )
        .await
        .unwrap();
    assert_eq!(created.resource.unwrap()["stamped"], true);
}

#[tokio::test]
async fn running_a_procedure_needs_the_flag() {
    let app = spawn_app(false).await;
    let r = app
        .visitor()
        .submit(PAGE, RUN, &[("pk", "bikes"), ("args", "[\"bike-1\"]")])
        .await;
    assert_eq!(r.status, 403);
    assert!(r.body.contains("--explorer-writes"));
    let counter = app
        .products
        .read_item::<serde_json::Value>("counter", "bikes", None)
        .await;
    assert!(counter.is_err(), "nothing ran");
}

#[tokio::test]
async fn a_procedure_runs_in_a_partition_with_json_arguments() {
    let app = spawn_app(true).await;
    let v = app.visitor();
    let r = v
        .submit(PAGE, RUN, &[("pk", "bikes"), ("args", "[\"bike-1\"]")])
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    // bike-10 … bike-19
    assert!(r.body.contains("&#34;count&#34;: 10"), "{}", r.body);
    assert!(r.body.contains("id=\"procedure-ru\""));
    assert_eq!(r.engine_calls()[0].2, "stored procedure");
    let counter = app
        .products
        .read_item::<serde_json::Value>("counter", "bikes", None)
        .await
        .unwrap();
    assert_eq!(counter.resource.unwrap()["count"], 10);

    let bad = v
        .submit(
            PAGE,
            RUN,
            &[("pk", "bikes"), ("args", "{\"not\": \"a list\"}")],
        )
        .await;
    assert_eq!(bad.status, 400);
    assert!(bad.body.contains("JSON array"), "{}", bad.body);
    let missing = v
        .submit(
            PAGE,
            "/dbs/shop/colls/products/scripts/nope",
            &[("pk", "bikes")],
        )
        .await;
    assert_eq!(missing.status, 404);
}
