//! A real browser (headless Chromium over WebDriver) joins the blog, writes a post, comments on
//! it, likes it and sees the counts, through the pages and forms a person uses.

use blog::{Blog, BlogOptions};
use engine::{Engine, EngineOptions};
use sitekit::testing::browser::Browser;
use sitekit::testing::TestApp;

#[tokio::test(flavor = "multi_thread")]
async fn a_writer_joins_posts_comments_likes_and_sees_the_counts() {
    let Some(browser) = Browser::start().await.expect("the browser starts") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let blog = Blog::start(
        &cosmos::Account::embedded(engine.clone()),
        &BlogOptions { users: 3 },
    )
    .await
    .unwrap();
    let app = TestApp::serve(blog::SITE, blog.configure(), 2);

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
            .submit_form("#comment", &[("content", "First!")])
            .await?;
        // The comment's cost is on the page it led to (a write answers with a redirect).
        let text = browser.body_text().await?;
        assert!(
            text.contains("for your last action") && text.contains("[C3] execute createComment"),
            "{text}"
        );
        browser.submit_form("#like", &[]).await?;
        let text = browser.body_text().await?;
        assert!(text.contains("1 comment · 1 like"), "{text}");
        assert!(text.contains("First!"), "{text}");
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
        Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
    }
    .await;
    if let Err(e) = &result {
        let _ = browser.screenshot("blog-failure").await;
        panic!("browser test failed: {e}");
    }
    browser.close().await.unwrap();
}
