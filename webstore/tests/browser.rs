//! A real browser (Debian's headless Chromium over WebDriver) signs up, fills the cart, checks
//! out and finds the order, through the pages and forms a person uses. Screenshots of each step
//! go to `target/browser-screenshots/`.

use sitekit::testing::browser::BrowserTest;
use sitekit::testing::TestApp;
use webstore::{WebStore, WebStoreOptions};

#[tokio::test(flavor = "multi_thread")]
async fn a_shopper_signs_up_fills_the_cart_checks_out_and_sees_the_order() {
    let Some(t) = BrowserTest::start().await else {
        return;
    };
    let (_store, app) = shop(&t).await;
    let browser = &t.browser;

    let result = async {
        browser.goto(&app.url("/signup")).await?;
        browser
            .submit_form(
                "#signup",
                &[
                    ("first_name", "Browser"),
                    ("last_name", "Shopper"),
                    ("email", "browser@example.com"),
                    ("password", "a real password"),
                ],
            )
            .await?;
        browser.screenshot("webstore-1-signed-up").await?;
        let text = browser.body_text().await?;
        assert!(text.contains("Welcome! Your account is ready."), "{text}");

        let p = &webstore::seed::catalog::catalog().products[42];
        browser
            .goto(&app.url(&format!("/products/{}/{}", p.category_id, p.id)))
            .await?;
        browser
            .submit_form(".add-to-cart", &[("quantity", "2")])
            .await?;
        let text = browser.body_text().await?;
        assert!(text.contains(&p.name), "{text}");
        assert!(text.contains(&format!("{:.2}", p.price * 2.0)), "{text}");
        browser.screenshot("webstore-2-cart").await?;

        browser.submit_form("#checkout", &[]).await?;
        let text = browser.body_text().await?;
        assert!(text.contains("Thank you! Your order is placed."), "{text}");
        assert!(text.contains(&p.sku), "{text}");
        browser.screenshot("webstore-3-order").await?;

        browser.goto(&app.url("/orders")).await?;
        let text = browser.body_text().await?;
        assert!(text.contains("order-"), "{text}");
        assert!(
            text.contains("RU for this page"),
            "the footer shows the cost"
        );
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
    }
    .await;
    t.finish("webstore-failure", result).await;
}

/// Issue 37: on a phone (390 px) the page's RU is in the header as the page opens on the home,
/// a category and a product page, and the footer's breakdown is no wider than the screen.
#[tokio::test(flavor = "multi_thread")]
async fn on_a_phone_the_ru_badge_is_in_sight_and_the_footer_fits() {
    let Some(t) = BrowserTest::start().await else {
        return;
    };
    let (_store, app) = shop(&t).await;
    let browser = &t.browser;
    let p = &webstore::seed::catalog::catalog().products[42];

    let result = async {
        browser.set_viewport(390, 844).await?;
        let pages = [
            ("home", "/".to_owned()),
            ("category", format!("/categories/{}", p.category_id)),
            ("product", format!("/products/{}/{}", p.category_id, p.id)),
        ];
        for (name, path) in &pages {
            browser.goto(&app.url(path)).await?;
            let shot = format!("webstore-390-{name}");
            browser.screenshot(&shot).await?;
            assert!(
                browser.in_first_viewport("#ru-badge").await?,
                "{path}: the RU badge is not in the first screen (see {shot}.png)"
            );
            let badge = browser.text_of("#ru-badge").await?;
            let ru: f64 = badge
                .trim_end_matches(" RU")
                .parse()
                .map_err(|e| format!("{path}: badge {badge:?}: {e}"))?;
            assert!(ru > 0.0, "{path}: the badge says {badge}");
            let text = browser.body_text().await?;
            assert!(
                text.contains(&format!("{ru:.2} RU for this page")),
                "{path}: the badge ({badge}) and the footer agree: {text}"
            );
            let out = browser.overflowing("footer").await?;
            assert!(out.is_empty(), "{path} at 390 px: {out:#?}");
        }
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
    }
    .await;
    t.finish("webstore-390-failure", result).await;
}

/// Issue 37: "Sign in to check out" signs in and comes back to the cart, which kept its item.
#[tokio::test(flavor = "multi_thread")]
async fn sign_in_to_check_out_comes_back_to_the_cart() {
    let Some(t) = BrowserTest::start().await else {
        return;
    };
    let (_store, app) = shop(&t).await;
    let browser = &t.browser;
    let p = &webstore::seed::catalog::catalog().products[7];

    let result = async {
        browser
            .goto(&app.url(&format!("/products/{}/{}", p.category_id, p.id)))
            .await?;
        browser
            .submit_form(".add-to-cart", &[("quantity", "1")])
            .await?;
        browser.click_link("#signin-to-check-out").await?;
        browser
            .submit_form(
                "#signin",
                &[
                    ("email", webstore::seed::DEMO_EMAIL),
                    ("password", webstore::seed::DEMO_PASSWORD),
                ],
            )
            .await?;
        let url = browser.current_url().await?;
        assert!(url.ends_with("/cart"), "on {url}");
        let text = browser.body_text().await?;
        assert!(
            text.contains(&p.name) && text.contains("Place order"),
            "{text}"
        );
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
    }
    .await;
    t.finish("webstore-signin-to-check-out-failure", result)
        .await;
}

/// WebStore with 10 customers on the test's fresh engine, served.
async fn shop(t: &BrowserTest) -> (WebStore, TestApp) {
    let store = WebStore::start(&t.account, &WebStoreOptions { customers: 10 })
        .await
        .unwrap();
    let app = TestApp::serve(webstore::SITE, store.configure(), 2);
    (store, app)
}
