use serde_json::Value;

use crate::helpers::{eventually, routings, spawn_app, TestApp};

/// A post's `(commentCount, likeCount, comments stored, likes stored)`.
pub async fn counts(app: &TestApp, post_id: &str) -> (u64, u64, usize, usize) {
    let docs = app
        .engine
        .database("blog")
        .container("posts")
        .read_all_items_in_partition::<Value>(post_id)
        .await
        .unwrap()
        .items;
    let post = docs.iter().find(|d| d["type"] == "post").unwrap();
    (
        post["commentCount"].as_u64().unwrap(),
        post["likeCount"].as_u64().unwrap(),
        docs.iter().filter(|d| d["type"] == "comment").count(),
        docs.iter().filter(|d| d["type"] == "like").count(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn q6_an_anonymous_home_page_costs_exactly_its_feed_read_of_the_100_newest() {
    let app = spawn_app().await;
    let r = app.visitor().get("/").await;
    assert_eq!(r.status, 200);
    let calls = r.engine_calls();
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert_eq!(calls[0].2, "single-partition");
    assert!((r.request_charge() - calls[0].3).abs() < 0.01);
    assert_eq!(r.body.matches("<li>").count(), 100);
    // The page shows 20 and folds the other 80 the query returned.
    let fold = r
        .body
        .find("<details class=\"more\" id=\"more-posts\">")
        .expect("a fold");
    assert_eq!(r.body[..fold].matches("<li>").count(), 20);
    assert!(r.body[fold..].contains("80 more of the 100"));
    // Exactly the 100 newest posts of `posts`.
    let all = app
        .blog
        .containers
        .posts
        .query_all::<Value>(
            "SELECT VALUE p.creationDate FROM p WHERE p.type = 'post'",
            engine::NO_PARAMS,
            Default::default(),
        )
        .await
        .unwrap()
        .items;
    let mut dates: Vec<&str> = all.iter().filter_map(Value::as_str).collect();
    dates.sort_unstable_by(|a, b| b.cmp(a));
    let feed = app
        .engine
        .database("blog")
        .container("feed")
        .read_all_items_in_partition::<Value>("post")
        .await
        .unwrap()
        .items;
    assert_eq!(feed.len(), 100);
    let mut feed_dates: Vec<&str> = feed
        .iter()
        .filter_map(|d| d["creationDate"].as_str())
        .collect();
    feed_dates.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(feed_dates, dates[..100]);
}

#[tokio::test(flavor = "multi_thread")]
async fn c2_q2_a_new_post_reaches_the_feed_and_its_authors_page_and_renders_markdown_safely() {
    let app = spawn_app().await;
    let (v, id) = app.new_user("poster").await;
    let post_id = app
        .publish(
            &v,
            "Hello <world>",
            "# Heading\n\n**bold** <script>alert(1)</script>",
        )
        .await;
    let r = v.get(&format!("/posts/{post_id}")).await;
    assert_eq!(r.status, 200);
    assert!(r.body.contains("<h1>Heading</h1>") && r.body.contains("<strong>bold</strong>"));
    assert!(!r.body.contains("<script>alert"), "sanitized");
    assert!(r.body.contains("Hello &#60;world&#62;"), "escaped title");
    // Rendered once, when written: the post carries its sanitized HTML, the view renders nothing.
    let stored = app
        .engine
        .database(blog::containers::DATABASE)
        .container("posts")
        .read_item::<serde_json::Value>(&post_id, &post_id, None)
        .await
        .unwrap()
        .resource
        .unwrap();
    let html = stored["html"].as_str().expect("the post stores its HTML");
    assert!(
        html.contains("<strong>bold</strong>") && !html.contains("<script"),
        "{html}"
    );
    assert_eq!(
        routings(&r)[..2],
        ["point", "single-partition"],
        "Q2 point read, Q4 single-partition"
    );
    // The change feed copies it to the feed (the newest post, and the feed stays at 100)
    // and to the author's partition of users.
    eventually("the post in the feed", || async {
        app.visitor()
            .get("/")
            .await
            .body
            .contains("Hello &#60;world&#62;")
    })
    .await;
    eventually("the post on the author's page", || async {
        app.visitor()
            .get(&format!("/users/{id}"))
            .await
            .body
            .contains("Hello &#60;world&#62;")
    })
    .await;
    let feed = app
        .engine
        .database("blog")
        .container("feed")
        .read_all_items_in_partition::<Value>("post")
        .await
        .unwrap()
        .items;
    assert_eq!(feed.len(), 100, "truncateFeed keeps 100");

    // Only the author edits: 403 for anyone else, also on the form.
    let (other, _) = app.new_user("someone").await;
    assert_eq!(
        other.get(&format!("/posts/{post_id}/edit")).await.status,
        403
    );
    let r = other
        .submit(
            "/",
            &format!("/posts/{post_id}/edit"),
            &[("title", "hacked"), ("content", "x")],
        )
        .await;
    assert_eq!(r.status, 403);
    let r = v
        .submit(
            &format!("/posts/{post_id}/edit"),
            &format!("/posts/{post_id}/edit"),
            &[("title", "Edited"), ("content", "New body")],
        )
        .await;
    assert_eq!(r.status, 303);
    assert!(v
        .get(&format!("/posts/{post_id}"))
        .await
        .body
        .contains("Edited"));
    // Validation.
    let r = v
        .submit(
            "/posts/new",
            "/posts/new",
            &[("title", " "), ("content", "x")],
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(r.body.contains("The title is required"));
    assert_eq!(
        app.visitor().get("/posts/new").await.location(),
        "/signin?next=%2Fposts%2Fnew"
    );
    assert_eq!(app.visitor().get("/posts/post-nope").await.status, 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn c3_c4_q4_q5_comments_and_likes_keep_their_counts_exact() {
    let app = spawn_app().await;
    let (author, _) = app.new_user("author").await;
    let post_id = app.publish(&author, "Count me", "body").await;
    let page = format!("/posts/{post_id}");
    let (a, _) = app.new_user("alice").await;
    let (b, _) = app.new_user("bobby").await;
    for (v, text) in [(&a, "first"), (&b, "second"), (&a, "third")] {
        let r = v
            .submit(&page, &format!("{page}/comments"), &[("content", text)])
            .await;
        assert_eq!(r.status, 303);
        let landed = v.get(&page).await;
        assert_eq!(routings(&landed)[..2], ["point", "single-partition"]);
        // The write's cost is on the page it led to, once.
        let last = landed.last_action_calls();
        let names: Vec<&str> = last.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(
            names,
            [
                sitekit::accounts::sessions::SESSION_READ,
                "[C3] execute createComment"
            ]
        );
        assert_eq!(last[1].2, "stored procedure");
        let total: f64 = last.iter().map(|c| c.3).sum();
        assert!((total - r.request_charge()).abs() < 0.02, "{total}");
        assert!(v.get(&page).await.last_action_calls().is_empty());
    }
    // "Do I like this?" is a query in the post's partition, asked only once someone likes it.
    let asks_own_like = |r: &sitekit::testing::Reply| {
        r.engine_calls()
            .iter()
            .any(|c| c.0 == "[C4] query own like")
    };
    assert!(!asks_own_like(&a.get(&page).await));
    let r = a.submit(&page, &format!("{page}/like"), &[]).await;
    assert_eq!(r.status, 303);
    assert!(asks_own_like(&a.get(&page).await));
    // A second like by the same user changes nothing.
    a.submit(&page, &format!("{page}/like"), &[]).await;
    b.submit(&page, &format!("{page}/like"), &[]).await;
    assert_eq!(counts(&app, &post_id).await, (3, 2, 3, 2));
    let r = a.get(&page).await;
    assert!(r.body.contains("3 comments") && r.body.contains("2 likes"));
    assert!(r.body.contains("Unlike"), "alice sees her like");
    // Q5: who liked it, one single-partition query.
    let r = a.get(&format!("{page}/likes")).await;
    assert!(r.body.contains("alice") && r.body.contains("bobby"));
    assert_eq!(routings(&r), ["single-partition"]);
    // Unlike decrements once.
    a.submit(&page, &format!("{page}/unlike"), &[]).await;
    a.submit(&page, &format!("{page}/unlike"), &[]).await;
    assert_eq!(counts(&app, &post_id).await, (3, 1, 3, 1));
    // Bad input and a missing post.
    let r = a
        .submit(&page, &format!("{page}/comments"), &[("content", "")])
        .await;
    assert_eq!(r.status, 400);
    assert!(r.body.contains("The comment is required"));
    let r = a
        .submit(&page, "/posts/post-nope/comments", &[("content", "hi")])
        .await;
    assert_eq!(r.status, 404);
    let r = a.submit(&page, "/posts/post-nope/like", &[]).await;
    assert_eq!(r.status, 404);
    assert_eq!(counts(&app, &post_id).await, (3, 1, 3, 1));
}

#[tokio::test(flavor = "multi_thread")]
async fn forms_need_the_csrf_token() {
    let app = spawn_app().await;
    let v = app.demo().await;
    let r = v.post("/posts/post-000001-00/like", &[]).await;
    assert_eq!(r.status, 403);
    let r = v
        .post(
            "/posts/new",
            &[("title", "t"), ("content", "c"), ("csrf_token", "forged")],
        )
        .await;
    assert_eq!(r.status, 403);
    assert_eq!(v.get("/signout").await.status, 404, "sign-out is a POST");
}

#[tokio::test(flavor = "multi_thread")]
async fn deeply_nested_markdown_is_refused_at_the_form() {
    let app = crate::helpers::spawn_app().await;
    let v = app.demo().await;
    let deep = ">".repeat(49_000);
    let r = v
        .submit(
            "/posts/new",
            "/posts/new",
            &[("title", "Quotes"), ("content", deep.as_str())],
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(
        r.body.contains("nests deeper than 16 levels (line 1)"),
        "{}",
        r.body
    );
}

/// A post the copy worker cannot decode used to stop its lease for good: every later post of
/// those partitions never reached `users` or `feed`.
#[tokio::test(flavor = "multi_thread")]
async fn a_post_the_worker_cannot_decode_is_set_aside_and_the_worker_goes_on() {
    let app = crate::helpers::spawn_app().await;
    let c = app.blog.containers.clone();
    c.posts
        .create_item(
            &serde_json::json!({"id": "broken", "postId": "broken", "type": "post", "title": 7}),
            None,
            None,
        )
        .await
        .unwrap();
    let v = app.demo().await;
    let post = app.publish(&v, "After the broken one", "text").await;
    crate::helpers::eventually("the later post copied to the feed", || async {
        c.feed
            .read_item::<serde_json::Value>(&post, "post", None)
            .await
            .is_ok()
    })
    .await;
    let dead = c
        .leases
        .query_all::<serde_json::Value>(
            "SELECT * FROM c",
            engine::NO_PARAMS,
            engine::QueryOptions {
                partition_key: Some(
                    sitekit::background::dead_letter::partition("copyPosts")
                        .as_str()
                        .into(),
                ),
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .items;
    assert_eq!(dead.len(), 1, "{dead:?}");
    assert_eq!(dead[0]["change"]["id"], "broken");
    assert!(dead[0]["error"].as_str().unwrap().contains("invalid type"));
}

/// Issue 37: the blog is gzipped when asked, as the shop and the explorer are, and the charge
/// header survives it.
#[tokio::test(flavor = "multi_thread")]
async fn the_home_page_is_gzipped_when_asked_and_keeps_its_charge() {
    let app = spawn_app().await;
    let v = app.visitor();
    let r = v
        .client
        .get(format!("{}/", v.base))
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-encoding"], "gzip");
    assert!(r.headers().contains_key("x-ms-request-charge"));
    let body = r.bytes().await.unwrap();
    assert_eq!(&body[..2], &[0x1f, 0x8b], "a gzip stream");
    let plain = v.get("/").await;
    assert!(plain.headers.get("content-encoding").is_none());
    assert!(
        body.len() * 3 < plain.body.len(),
        "{} bytes gzipped, {} plain",
        body.len(),
        plain.body.len()
    );
}

/// Issue 37: the footer says where its codes (`[Q6] …`) are explained — on every model's pages —
/// and the blog serves that file.
#[tokio::test(flavor = "multi_thread")]
async fn the_footer_links_to_the_access_patterns_the_blog_serves() {
    let app = spawn_app().await;
    for path in ["/", "/v1/signin", "/v2/signin"] {
        let r = app.visitor().get(path).await;
        assert!(
            r.body
                .contains(r#"<a href="/access-patterns" id="access-patterns">"#),
            "{path}: {}",
            r.body
        );
    }
    let r = app.visitor().get("/access-patterns").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.headers["content-type"], "text/plain; charset=utf-8");
    assert!(
        r.body.starts_with("# Blog access patterns") && r.body.contains("Q6"),
        "{}",
        r.body
    );
}
