use serde_json::Value;

use crate::helpers::{eventually, routings, spawn_app};
use sitekit::testing::Visitor;

#[tokio::test(flavor = "multi_thread")]
async fn c1_sign_up_makes_usernames_unique_without_a_fan_out() {
    let app = spawn_app().await;
    let (v, id) = app.new_user("Writer_One").await;
    assert!(v.get("/account").await.body.contains("Writer_One"));
    // The same name in another case is taken: a 409 naming the field.
    let r = app
        .visitor()
        .submit(
            "/signup",
            "/signup",
            &[("username", "writer_one"), ("password", "another password")],
        )
        .await;
    assert_eq!(r.status, 409);
    assert!(r.body.contains("The username is taken."));
    // The password is an argon2id hash, never shown.
    let users = &app.blog.containers.users;
    let doc = users
        .read_item::<Value>(&id, id.as_str(), None)
        .await
        .unwrap()
        .resource
        .unwrap();
    assert!(doc["password"].as_str().unwrap().starts_with("$argon2id$"));
    // Sign-in by name: two point reads, whatever the number of users, then the session is
    // written into the user's document (a read and a replace).
    let r = app
        .visitor()
        .submit(
            "/signin",
            "/signin",
            &[("username", "WRITER_ONE"), ("password", "a long password")],
        )
        .await;
    assert_eq!(r.status, 303);
    assert!(
        r.request_charge() >= 3.0 && r.request_charge() < 20.0,
        "{}",
        r.request_charge()
    );
    let r = app
        .visitor()
        .submit(
            "/signin",
            "/signin",
            &[("username", "writer_one"), ("password", "wrong password")],
        )
        .await;
    assert_eq!(r.status, 401);
    let r = app
        .visitor()
        .submit(
            "/signin",
            "/signin",
            &[("username", "nobody"), ("password", "wrong password")],
        )
        .await;
    assert_eq!(r.status, 401);
    assert!(r.body.contains("Wrong username or password."));
    // Bad names and passwords are refused with messages.
    let r = app
        .visitor()
        .submit(
            "/signup",
            "/signup",
            &[("username", "a/b"), ("password", "short")],
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(r.body.contains("The username must be 3 to 30"));
    assert!(r
        .body
        .contains("The password must be at least 8 characters"));
}

#[tokio::test(flavor = "multi_thread")]
async fn q1_and_q3_a_users_page_is_a_point_read_and_one_single_partition_query() {
    let app = spawn_app().await;
    let r = app.visitor().get("/users/user-000001").await;
    assert_eq!(r.status, 200);
    assert!(r.body.contains("<h1>demo</h1>"));
    assert_eq!(routings(&r), ["point", "single-partition"]);
    let calls = r.engine_calls();
    assert!(calls[1].0.starts_with("[Q3]"));
    // Newest first, the user's own posts only.
    let dates: Vec<&str> = r
        .body
        .match_indices("· 20")
        .map(|(i, _)| &r.body[i + 4..i + 14])
        .collect();
    assert!(dates.windows(2).all(|w| w[0] >= w[1]), "{dates:?}");
    assert_eq!(app.visitor().get("/users/user-nobody").await.status, 404);
}

/// The `href` of the pager's link with `rel` (`next`, `prev`, `first`).
fn pager_link(body: &str, rel: &str) -> Option<String> {
    let end = body.find(&format!("rel=\"{rel}\""))?;
    let at = body[..end].rfind("href=\"")? + "href=\"".len();
    let close = body[at..].find('"')?;
    Some(sitekit::testing::unescape(&body[at..at + close]))
}

/// The ids of the posts a page lists, in order.
fn listed_posts(body: &str) -> Vec<String> {
    body.match_indices("/posts/post-")
        .map(|(i, _)| {
            let id = &body[i + "/posts/".len()..];
            id[..id.find('"').unwrap()].to_owned()
        })
        .collect()
}

/// Walks the listing at `url` forward with "next" to its last page, checking on each page that
/// "previous" shows the page before and "first" is `url`; returns how many pages there were.
async fn walk(v: &Visitor, url: &str) -> usize {
    let mut pages: Vec<Vec<String>> = Vec::new();
    let mut link = Some(url.to_owned());
    while let Some(here) = link {
        let r = v.get(&here).await;
        assert_eq!(r.status, 200, "{here}: {}", r.body);
        let posts = listed_posts(&r.body);
        assert!(!posts.is_empty(), "{here}");
        assert!(
            pages.iter().flatten().all(|p| !posts.contains(p)),
            "{here}: pages overlap"
        );
        match pages.last() {
            None => assert_eq!(
                (pager_link(&r.body, "first"), pager_link(&r.body, "prev")),
                (None, None),
                "page 1 has only \"next\""
            ),
            Some(before) => {
                assert!(r.body.contains("First page") && r.body.contains("Previous page"));
                assert_eq!(pager_link(&r.body, "first").as_deref(), Some(url));
                let back = v.get(&pager_link(&r.body, "prev").unwrap()).await;
                assert_eq!(back.status, 200, "previous of {here}: {}", back.body);
                assert_eq!(&listed_posts(&back.body), before, "previous of {here}");
            }
        }
        pages.push(posts);
        link = pager_link(&r.body, "next");
    }
    pages.len()
}

#[tokio::test(flavor = "multi_thread")]
async fn q3_a_users_posts_page_by_page_next_previous_and_first() {
    let app = spawn_app().await;
    let v = app.visitor();
    // A seeded user with three pages or more (20 posts a page): "previous" from page 3 needs
    // page 2's token, which the links carry.
    let mut user = None;
    for n in 1..=crate::helpers::USERS {
        let url = format!("/users/user-{n:06}");
        if walk(&v, &url).await >= 3 {
            user = Some(url);
            break;
        }
    }
    let user = user.expect("a seeded user with over 40 posts");
    // V1 fans out on `posts` (a page is at most 20 posts), resumed with the SDK's token remote.
    assert!(walk(&v, &format!("/v1{user}")).await >= 3);
    // "First page" from anywhere is page 1.
    let first = v.get(&user).await;
    let second = v.get(&pager_link(&first.body, "next").unwrap()).await;
    let again = v.get(&pager_link(&second.body, "first").unwrap()).await;
    assert_eq!(listed_posts(&again.body), listed_posts(&first.body));
}

#[tokio::test(flavor = "multi_thread")]
async fn c1_a_username_change_reaches_every_post_comment_like_and_copy() {
    let app = spawn_app().await;
    let v = app.demo().await;
    // The demo user comments on and likes someone else's post, too.
    let other_post = "post-000002-00";
    let r = v
        .submit(
            &format!("/posts/{other_post}"),
            &format!("/posts/{other_post}/comments"),
            &[("content", "Nice one")],
        )
        .await;
    assert_eq!(r.status, 303);
    let _ = v
        .submit(
            &format!("/posts/{other_post}"),
            &format!("/posts/{other_post}/like"),
            &[],
        )
        .await;

    let r = v
        .submit("/account", "/account", &[("username", "renamed_demo")])
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    let c = app.blog.containers.clone();
    eventually("every item of the user renamed", || {
        let c = c.clone();
        async move {
            let mine = c
                .posts
                .query_all::<Value>(
                    "SELECT * FROM p WHERE p.userId = 'user-000001'",
                    engine::NO_PARAMS,
                    Default::default(),
                )
                .await
                .unwrap()
                .items;
            let copies = c
                .users
                .query_all::<Value>(
                    "SELECT * FROM u WHERE u.type = 'post'",
                    engine::NO_PARAMS,
                    engine::QueryOptions {
                        partition_key: Some("user-000001".into()),
                        ..Default::default()
                    },
                )
                .await
                .unwrap()
                .items;
            let feed = c
                .feed
                .query_all::<Value>(
                    "SELECT * FROM f WHERE f.userId = 'user-000001'",
                    engine::NO_PARAMS,
                    Default::default(),
                )
                .await
                .unwrap()
                .items;
            !mine.is_empty()
                && mine.iter().any(|d| d["type"] == "comment")
                && mine
                    .iter()
                    .chain(&copies)
                    .chain(&feed)
                    .all(|d| d["userUsername"] == "renamed_demo")
        }
    })
    .await;
    eventually("the account page says done", || async {
        v.get("/account")
            .await
            .body
            .contains("up to date on every post")
    })
    .await;
    // The old name is free again; the new one is taken.
    let (_, _) = app.new_user("demo").await;
    let r = app
        .visitor()
        .submit(
            "/signup",
            "/signup",
            &[
                ("username", "Renamed_Demo"),
                ("password", "a long password"),
            ],
        )
        .await;
    assert_eq!(r.status, 409);
}

/// Issue 37: "Sign in to comment" returns to the post (on V1 too, in V1's mount); a hostile
/// `next` is dropped; someone signed in who opens the form is sent on.
#[tokio::test(flavor = "multi_thread")]
async fn sign_in_returns_to_the_post_and_never_to_another_host() {
    let app = spawn_app().await;
    let (writer, _) = app.new_user("next_writer").await;
    let post = app.publish(&writer, "Come back here", "Body").await;
    let page = app.visitor().get(&format!("/posts/{post}")).await;
    let link = format!("href=\"/signin?next=%2Fposts%2F{post}\"");
    assert!(page.body.contains(&link), "{link} in {}", page.body);

    let v = app.visitor();
    let r = v
        .submit(
            &format!("/signin?next=%2Fposts%2F{post}"),
            "/signin",
            &[
                ("username", blog::seed::DEMO_USERNAME),
                ("password", blog::seed::DEMO_PASSWORD),
                ("next", &format!("/posts/{post}")),
            ],
        )
        .await;
    assert_eq!(
        (r.status, r.location()),
        (303, format!("/posts/{post}").as_str())
    );
    // Signed in, the form sends you on; a foreign next goes home instead.
    let r = v.get(&format!("/signin?next=%2Fposts%2F{post}")).await;
    assert_eq!(
        (r.status, r.location()),
        (303, format!("/posts/{post}").as_str())
    );
    let r = v.get("/signin?next=%2F%2Fevil.example").await;
    assert_eq!((r.status, r.location()), (303, "/"));

    // A page that needs an account sends its path, in the model's own mount.
    let r = app.visitor().get("/v1/posts/new").await;
    assert_eq!(
        (r.status, r.location()),
        (303, "/v1/signin?next=%2Fv1%2Fposts%2Fnew")
    );
    for hostile in ["//evil.example", "/\\evil.example", "https://evil.example"] {
        let r = app
            .visitor()
            .submit(
                "/signin",
                "/signin",
                &[
                    ("username", blog::seed::DEMO_USERNAME),
                    ("password", blog::seed::DEMO_PASSWORD),
                    ("next", hostile),
                ],
            )
            .await;
        assert_eq!((r.status, r.location()), (303, "/"), "{hostile}");
    }
}

/// Issue 37: after a username change the account page shows what the change feed's worker
/// rewrote (the user's posts, comments and likes in `posts`: the stored procedures' count) and
/// what that cost, and refreshes itself until the copies are done.
#[tokio::test(flavor = "multi_thread")]
async fn a_username_changes_page_shows_the_copies_rewritten_and_their_ru() {
    let app = spawn_app().await;
    let v = app.demo().await;
    // The user's items in `posts`, each carrying a copy of the name.
    let mine = app
        .blog
        .containers
        .posts
        .query_all::<Value>(
            "SELECT * FROM p WHERE p.userId = 'user-000001'",
            engine::NO_PARAMS,
            Default::default(),
        )
        .await
        .unwrap()
        .items
        .len();
    assert!(mine > 1);
    let r = v
        .submit("/account", "/account", &[("username", "copied_name")])
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    let mut page = String::new();
    for _ in 0..300 {
        page = v.get("/account").await.body;
        if page.contains("up to date on every post") && page.contains("id=\"copies-ru\"") {
            break;
        }
        assert!(
            page.contains("http-equiv=\"refresh\""),
            "refreshes while the copies are carried"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(page.contains("up to date on every post"), "{page}");
    assert!(
        !page.contains("http-equiv=\"refresh\""),
        "done: no more refreshing"
    );
    let between = |from: &str, to: &str| -> String {
        let at = page
            .find(from)
            .unwrap_or_else(|| panic!("{from} in {page}"))
            + from.len();
        page[at..at + page[at..].find(to).unwrap()].to_owned()
    };
    let copies: usize = between("id=\"copies-rewritten\">", "<").parse().unwrap();
    let ru: f64 = between("id=\"copies-ru\">", " RU").parse().unwrap();
    assert_eq!(copies, mine, "every item of the user in posts");
    assert!(ru > copies as f64, "{ru} RU for {copies} copies");
    // Then the posts' change feed copies each rewritten post to `users` (and `feed` when it is
    // there): counted for the rename too, at their own RU (V3 only: V2 has no copies).
    let posts = app
        .blog
        .containers
        .posts
        .query_all::<Value>(
            "SELECT VALUE COUNT(1) FROM p WHERE p.userId = 'user-000001' AND p.type = 'post'",
            engine::NO_PARAMS,
            Default::default(),
        )
        .await
        .unwrap()
        .items[0]
        .as_u64()
        .unwrap() as usize;
    assert!(posts > 0);
    let later: usize = between("id=\"downstream-copies\">", "<").parse().unwrap();
    let later_ru: f64 = between("id=\"downstream-ru\">", " RU").parse().unwrap();
    assert!(
        (posts..=2 * posts).contains(&later),
        "{later} short copies of {posts} posts"
    );
    assert!(later_ru >= later as f64, "{later_ru} RU for {later} copies");

    // Another app process (here: this one restarted) shows the same figures: its workers did
    // not carry the rename, so its page reads what they kept in `leases`.
    app.blog.stop().await;
    let restarted = blog::Blog::start(
        &app.backend.account,
        &blog::BlogOptions {
            users: crate::helpers::USERS,
        },
    )
    .await
    .unwrap();
    let other = sitekit::testing::TestApp::serve(blog::SITE, restarted.configure(), 1);
    let w = other.visitor();
    let r = w
        .submit(
            "/signin",
            "/signin",
            &[
                ("username", "copied_name"),
                ("password", blog::seed::DEMO_PASSWORD),
            ],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    let again = w.get("/account").await.body;
    for (id, figure) in [
        ("copies-rewritten", copies.to_string()),
        ("copies-ru", format!("{ru:.2} RU")),
        ("downstream-copies", later.to_string()),
        ("downstream-ru", format!("{later_ru:.2} RU")),
    ] {
        assert!(
            again.contains(&format!("id=\"{id}\">{figure}<")),
            "{id} {figure} after a restart: {again}"
        );
    }
    restarted.stop().await;
}
