//! A real browser (headless Chromium over WebDriver) joins the blog, writes a post, comments on
//! it, likes it and sees the counts, through the pages and forms a person uses.

use blog::{Blog, BlogOptions};
use sitekit::testing::browser::BrowserTest;
use sitekit::testing::TestApp;

#[tokio::test(flavor = "multi_thread")]
async fn a_writer_joins_posts_comments_likes_and_sees_the_counts() {
    let Some(t) = BrowserTest::start().await else {
        return;
    };
    let (_blog, app) = blog_app(&t).await;
    let browser = &t.browser;

    let result = async {
        browser.goto(&app.url("/signup")).await?;
        browser
            .submit_form(
                "#signup",
                &[
                    ("username", "browser_writer"),
                    ("password", "a real password"),
                ],
            )
            .await?;
        assert!(browser.current_url().await?.ends_with("/posts/new"));
        browser
            .submit_form(
                "#post",
                &[
                    ("title", "Written in a real browser"),
                    ("content", "Hello from **Chromium**."),
                ],
            )
            .await?;
        let text = browser.body_text().await?;
        assert!(
            text.contains("Written in a real browser") && text.contains("Hello from Chromium."),
            "{text}"
        );
        assert!(text.contains("0 comments · 0 likes"), "{text}");
        browser
            .submit_form(
                "#comment",
                &[("content", "First, *really*! <script>x</script>")],
            )
            .await?;
        // Comments are Markdown, sanitized as posts are.
        assert_eq!(browser.text_of(".comments em").await?, "really");
        // The comment's cost is on the page it led to (a write answers with a redirect).
        let text = browser.body_text().await?;
        assert!(
            text.contains("for your last action") && text.contains("[C3] execute createComment"),
            "{text}"
        );
        // With its RU: the action's total, and the procedure's own figure on its row.
        let total: f64 = text[..text.find(" RU for your last action").expect("the total")]
            .rsplit(char::is_whitespace)
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("a number before \"RU for your last action\": {text}"));
        let row = text
            .lines()
            .find(|l| l.contains("[C3] execute createComment"))
            .unwrap();
        let charge: f64 = row
            .split_whitespace()
            .last()
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("the RU of createComment: {row}"));
        assert!(
            charge > 1.0 && charge <= total,
            "{charge} of {total}: {row}"
        );
        browser.submit_form("#like", &[]).await?;
        let text = browser.body_text().await?;
        assert!(text.contains("1 comment · 1 like"), "{text}");
        assert!(text.contains("First, really!"), "{text}");
        assert!(
            text.contains("RU for this page"),
            "the footer shows the cost"
        );
        browser.screenshot("blog-1-post").await?;
        browser.goto(&app.url("/")).await?;
        let mut seen = false;
        for _ in 0..100 {
            if browser
                .body_text()
                .await?
                .contains("Written in a real browser")
            {
                seen = true;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            browser.goto(&app.url("/")).await?;
        }
        assert!(seen, "the change feed put the post in the feed");
        // Excerpts are plain text, not Markdown.
        let text = browser.body_text().await?;
        assert!(text.contains("Hello from Chromium."), "{text}");
        assert!(!text.contains("**") && !text.contains("# "), "{text}");
        browser.screenshot("blog-2-feed").await?;
        // A 404 under /v1/ keeps the blog's navigation and says who is signed in.
        browser.goto(&app.url("/v1/signin")).await?;
        browser
            .submit_form(
                "#signin",
                &[
                    ("username", blog::seed::DEMO_USERNAME),
                    ("password", blog::seed::DEMO_PASSWORD),
                ],
            )
            .await?;
        browser.goto(&app.url("/v1/posts/nope")).await?;
        let text = browser.body_text().await?;
        assert!(
            text.contains("404") && text.contains("That page does not exist."),
            "{text}"
        );
        for link in ["Recent", "Models", "Write", "Account", "Sign out"] {
            assert!(
                text.contains(link),
                "the blog's navigation ({link}): {text}"
            );
        }
        assert!(
            text.contains(blog::seed::DEMO_USERNAME),
            "who is signed in: {text}"
        );
        assert!(!text.contains("Sign in"), "{text}");
        browser.screenshot("blog-3-not-found-v1").await?;
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
    }
    .await;
    t.finish("blog-failure", result).await;
}

/// Issue 37: on a phone (390 px) the page's RU is in the header as the page opens, and neither
/// the footer's breakdown nor `/models` (its table and chart) is wider than the screen.
#[tokio::test(flavor = "multi_thread")]
async fn on_a_phone_the_ru_badge_is_in_sight_and_nothing_overflows() {
    let Some(t) = BrowserTest::start().await else {
        return;
    };
    let (_blog, app) = blog_app(&t).await;
    let browser = &t.browser;

    let result = async {
        browser.set_viewport(390, 844).await?;
        // The seeded posts reach the feed through the change feed.
        let mut post = None;
        for _ in 0..100 {
            browser.goto(&app.url("/")).await?;
            post = browser
                .client()
                .execute(
                    "const a = [...document.querySelectorAll('a[href^=\"/posts/\"]')]\
                     .find(a => a.getAttribute('href') !== '/posts/new'); \
                     return a ? a.getAttribute('href') : null;",
                    vec![],
                )
                .await?
                .as_str()
                .map(str::to_owned);
            if post.is_some() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        let post = post.ok_or("no post reached the feed")?;
        for (name, path) in [
            ("home", "/"),
            ("post", post.as_str()),
            ("models", "/models"),
        ] {
            browser.goto(&app.url(path)).await?;
            let shot = format!("blog-390-{name}");
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
            // /models reads no container: its figures are this process's own measurements.
            assert!(
                ru > 0.0 || name == "models",
                "{path}: the badge says {badge}"
            );
            let footer = browser.body_text().await?;
            assert!(
                footer.contains(&format!("{ru:.2} RU for this page")),
                "{path}: the badge ({badge}) and the footer agree: {footer}"
            );
            let out = browser.overflowing("footer, main").await?;
            assert!(out.is_empty(), "{path} at 390 px: {out:#?}");
        }
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
    }
    .await;
    t.finish("blog-390-failure", result).await;
}

/// The blog with 3 users on the test's fresh engine, served.
async fn blog_app(t: &BrowserTest) -> (Blog, TestApp) {
    let blog = Blog::start(&t.account, &BlogOptions { users: 3 })
        .await
        .unwrap();
    let app = TestApp::serve(blog::SITE, blog.configure(), 2);
    (blog, app)
}
