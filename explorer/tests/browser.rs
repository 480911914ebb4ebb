//! A real browser (headless Chromium over WebDriver) runs a query in the explorer's editor and
//! reads the "Query stats" panel, as a person does in the portal.

use engine::{ContainerProperties, Engine, EngineOptions};
use explorer::{Explorer, ExplorerOptions};
use serde_json::json;
use sitekit::testing::browser::Browser;
use sitekit::testing::TestApp;

#[tokio::test(flavor = "multi_thread")]
async fn a_query_runs_and_its_stats_are_read() {
    let Some(browser) = Browser::start().await.expect("the browser starts") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let db = engine.create_database("shop").await.unwrap();
    let products = db
        .create_container(
            ContainerProperties::new("products", "/categoryId").with_initial_partitions(2),
        )
        .await
        .unwrap();
    for i in 0..12 {
        let p = json!({"id": format!("p{i}"), "categoryId": if i % 2 == 0 { "bikes" } else { "helmets" }, "price": i});
        products.create_item(&p, None, None).await.unwrap();
    }
    let options = ExplorerOptions::default();
    let token = options.token.clone();
    let x = Explorer::new(&engine, options);
    let app = TestApp::serve(explorer::SITE, x.configure(), 2);

    let result = async {
        // As a person opens the URL the launcher printed: the token becomes a cookie.
        browser.goto(&app.url(&format!("/?token={token}"))).await?;
        let url = browser.current_url().await?;
        assert!(!url.contains("token"), "{url}");
        assert!(browser.body_text().await?.contains("shop"));
        browser
            .goto(&app.url("/dbs/shop/colls/products/query"))
            .await?;
        browser
            .submit_form(
                "#query",
                &[
                    ("sql", "SELECT c.id FROM c WHERE c.price >= @min"),
                    ("params", "{\"@min\": 6}"),
                    ("pk", "bikes"),
                ],
            )
            .await?;
        let text = browser.body_text().await?;
        assert!(text.contains("Query stats"), "{text}");
        let stats = browser
            .client()
            .find(fantoccini::Locator::Css("#query-stats"))
            .await?
            .text()
            .await?;
        assert!(stats.contains("Request charge"), "{stats}");
        assert!(stats.contains("Output document count 3"), "{stats}");
        assert!(stats.contains("Physical partitions visited 1"), "{stats}");
        assert!(stats.contains("Routing single-partition"), "{stats}");
        let ru = browser
            .client()
            .find(fantoccini::Locator::Css("#stat-ru"))
            .await?
            .text()
            .await?;
        let ru: f64 = ru.trim_end_matches(" RUs").parse()?;
        assert!(ru > 2.0, "{ru}");
        browser.screenshot("explorer-1-query-stats").await?;

        // A syntax error comes back on the same page, with its position.
        browser
            .submit_form("#query", &[("sql", "SELECT * FROM c WHERE"), ("pk", "")])
            .await?;
        let text = browser.body_text().await?;
        assert!(text.contains("syntax error at line 1, column"), "{text}");
        browser.screenshot("explorer-2-syntax-error").await?;
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
    }
    .await;
    if let Err(e) = &result {
        let _ = browser.screenshot("explorer-failure").await;
        panic!("browser test failed: {e}");
    }
    browser.close().await.unwrap();
}
