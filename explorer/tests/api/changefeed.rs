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
    // Issue 37: checkpoints read as dates, not epoch seconds.
    assert!(
        r.body.contains("<time title=\"_ts ") && r.body.contains(" UTC</time>"),
        "{}",
        r.body
    );
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

/// A change a processor kept failing on is set aside (cosmos' bounded retries) and the page
/// lists it under its processor, with the error and a link to the dead-letter item.
#[tokio::test(flavor = "multi_thread")]
async fn changes_set_aside_are_listed_with_their_error() {
    let app = spawn_app(false).await;
    let leases = cosmos::Container::embedded(app.engine.database("shop").container("leases"));
    let picky = cosmos::Container::embedded(app.products.clone())
        .change_feed_processor("pickyNames")
        .lease_container(leases.clone())
        .dead_letter_after(2)
        .handler(|batch: Vec<serde_json::Value>| async move {
            match batch.iter().find(|c| c["name"].is_null()) {
                Some(c) => Err(format!("no name in {}", c["id"])),
                None => Ok(()),
            }
        })
        .build()
        .unwrap();
    picky.start().await.unwrap();
    app.products
        .create_item(
            &json!({"id": "nameless", "categoryId": "bikes"}),
            None,
            None,
        )
        .await
        .unwrap();
    eventually("the nameless product set aside", || async {
        let body = app.get("/changefeed").await.body;
        body.contains("Set aside (dead letters)") && body.contains("<code>nameless</code>")
    })
    .await;
    let r = app.get("/changefeed").await;
    let section = &r.body[r.body.find("<h2>pickyNames").unwrap()..];
    assert!(section.contains("Set aside (dead letters)"), "{section}");
    assert!(section.contains("<td class=\"form-error\">no name in &#34;nameless&#34;</td>"));
    assert!(
        section.contains("/dbs/shop/colls/leases/items/nameless%40")
            && section.contains("?pk=deadLetter%3ApickyNames"),
        "a link to the item: {section}"
    );
    // The other processor has set nothing aside.
    let copy =
        &r.body[r.body.find("<h2>copyNames").unwrap()..r.body.find("<h2>pickyNames").unwrap()];
    assert!(copy.contains("No change set aside."), "{copy}");
    // The link opens the dead letter, with the change in it.
    let at = section.find("/dbs/shop/colls/leases/items/").unwrap();
    let link = &section[at..at + section[at..].find('"').unwrap()];
    let item = app.get(&link.replace("&amp;", "&")).await;
    assert_eq!(item.status, 200, "{link}: {}", item.body);
    assert!(item.body.contains("no name in"));
    picky.stop().await;
}
