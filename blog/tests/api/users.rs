use serde_json::Value;

use crate::helpers::{eventually, routings, spawn_app};

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

#[tokio::test(flavor = "multi_thread")]
async fn q3_a_users_posts_page_by_page_next_previous_and_first() {
    let app = spawn_app().await;
    let v = app.visitor();
    for base in ["", "/v1"] {
        // A seeded user with more than two pages of posts (20 a page).
        let mut found = None;
        for n in 1..=crate::helpers::USERS {
            let url = format!("{base}/users/user-{n:06}");
            let first = v.get(&url).await;
            let Some(next) = pager_link(&first.body, "next") else {
                continue;
            };
            let second = v.get(&next).await;
            if pager_link(&second.body, "next").is_some() {
                found = Some((url, first, second));
                break;
            }
        }
        let (url, first, second) = found.expect("a seeded user with over 40 posts");
        // Page 1: only "next".
        assert_eq!(pager_link(&first.body, "first"), None, "{base}");
        assert_eq!(pager_link(&first.body, "prev"), None, "{base}");
        // Page 2: first and previous are page 1.
        assert!(second.body.contains("First page") && second.body.contains("Previous page"));
        assert_eq!(pager_link(&second.body, "first").as_deref(), Some(&*url));
        assert_eq!(pager_link(&second.body, "prev").as_deref(), Some(&*url));
        let (p1, p2) = (listed_posts(&first.body), listed_posts(&second.body));
        assert_eq!((p1.len(), p2.len()), (20, 20), "{base}");
        assert!(p1.iter().all(|p| !p2.contains(p)), "{base}: pages overlap");
        // Next to page 3, previous back to page 2, then first.
        let third = v.get(&pager_link(&second.body, "next").unwrap()).await;
        assert_eq!(third.status, 200);
        let p3 = listed_posts(&third.body);
        assert!(!p3.is_empty() && p3.iter().all(|p| !p1.contains(p) && !p2.contains(p)));
        let back = v.get(&pager_link(&third.body, "prev").unwrap()).await;
        assert_eq!(listed_posts(&back.body), p2, "{base}: previous is page 2");
        assert_eq!(
            pager_link(&back.body, "next"),
            pager_link(&second.body, "next"),
            "{base}: and goes on to page 3 again"
        );
        assert_eq!(pager_link(&back.body, "prev").as_deref(), Some(&*url));
        let again = v.get(&pager_link(&third.body, "first").unwrap()).await;
        assert_eq!(listed_posts(&again.body), p1, "{base}: first is page 1");
        assert_eq!(pager_link(&again.body, "prev"), None);
    }
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
