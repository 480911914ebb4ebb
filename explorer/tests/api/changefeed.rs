use serde_json::json;

use crate::helpers::{eventually, spawn_app};

#[tokio::test]
async fn each_processor_shows_its_leases_checkpoints_and_lag() {
    let app = spawn_app(false).await;
    let names = app.names.clone();
    eventually("the processor copies every product", || {
        let names = names.clone();
        async move {
            names
                .read_item::<serde_json::Value>("bike-24", "bike-24", None)
                .await
                .is_ok()
        }
    })
    .await;
    let r = app.get("/changefeed").await;
    assert_eq!(r.status, 200);
    assert!(r.body.contains("copyNames"), "{}", r.body);
    assert!(r.body.contains("shop / products"));
    assert!(r.body.contains("leases in shop / leases"));
    assert!(r.body.contains("running"));
    assert_eq!(
        r.body.matches("<tr><td><code>copyNames.").count(),
        2,
        "a lease per partition"
    );
    assert!(r.body.contains("No error."));
    eventually("the lag is 0", || async {
        app.get("/changefeed")
            .await
            .body
            .contains("lag <strong class=\"lag\">0</strong>")
    })
    .await;

    // A stopped processor says so, and what it has left.
    app.processor.stop().await;
    app.products
        .create_item(
            &json!({"id": "late", "categoryId": "bikes", "name": "Late"}),
            None,
            None,
        )
        .await
        .unwrap();
    let r = app.get("/changefeed").await;
    assert!(r.body.contains("stopped"));
    assert!(
        r.body.contains("lag <strong class=\"lag\">1</strong>"),
        "{}",
        r.body
    );
}
