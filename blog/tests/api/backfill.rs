//! Users created before the look-alike claims existed get theirs at start (issue 33: an old
//! account's Cyrillic look-alike could still sign up).

use blog::access::c1_user::{skeleton_key, USERNAME};
use blog::model::User;
use blog::{Blog, BlogOptions};
use sitekit::testing::TestApp as Server;

use crate::helpers::{spawn_app, USERS};

/// A user written as sign-up wrote them before the look-alike claims: the user and its name's
/// claim only.
async fn old_user(users: &cosmos::Container, id: &str, name: &str) {
    USERNAME.claim(users, name, id).await.unwrap();
    let user = User {
        id: id.into(),
        kind: "user".into(),
        user_id: id.into(),
        username: name.into(),
        password: "not a hash: nobody signs in".into(),
        creation_date: "2025-01-01T00:00:00.0000000Z".into(),
        username_version: 0,
        propagated_version: 0,
        propagated_at: None,
        renaming: None,
    };
    users.create_item(&user, None, None).await.unwrap();
}

async fn holds_look_alike_claim(users: &cosmos::Container, name: &str) -> bool {
    let key = skeleton_key(name);
    users
        .read_item::<serde_json::Value>(&key, key.as_str(), None)
        .await
        .is_ok()
}

async fn sign_up(app: &crate::helpers::TestApp, base: &str, name: &str) -> u16 {
    app.visitor()
        .submit(
            &format!("{base}/signup"),
            &format!("{base}/signup"),
            &[("username", name), ("password", "a long password")],
        )
        .await
        .status
}

#[tokio::test(flavor = "multi_thread")]
async fn users_from_before_the_look_alike_claims_get_theirs_at_start() {
    let mut app = spawn_app().await;
    // A data directory from before the claims: old users, and no marker saying it was done.
    old_user(&app.blog.containers.users, "user-old-1", "jessicapope92").await;
    old_user(&app.blog.v1.users, "user-old-1", "jessicapope92").await;
    for users in [&app.blog.containers.users, &app.blog.v1.users] {
        assert!(!holds_look_alike_claim(users, "jessicapope92").await);
        users
            .delete_item(blog::backfill::MARKER_ID, blog::backfill::MARKER_ID, None)
            .await
            .unwrap();
    }
    // Restart on the same data.
    app.blog.stop().await;
    app.blog = Blog::start(&app.backend.account, &BlogOptions { users: USERS })
        .await
        .expect("the blog starts again");
    app.server = Server::serve(blog::SITE, app.blog.configure(), 1);
    for users in [&app.blog.containers.users, &app.blog.v1.users] {
        assert!(holds_look_alike_claim(users, "jessicapope92").await);
    }
    // The Cyrillic look-alike is taken, in the site and in V1.
    assert_eq!(sign_up(&app, "", "јеѕѕісароре92").await, 409);
    assert_eq!(sign_up(&app, "/v1", "јеѕѕісароре92").await, 409);
    // Once done, a start does not read every user again: the marker is there.
    assert_eq!(
        blog::backfill::look_alike_claims(&app.blog.containers.users)
            .await
            .unwrap(),
        0
    );
    // Idempotent: run again without the marker, it looks at every user and changes nothing.
    app.blog
        .containers
        .users
        .delete_item(blog::backfill::MARKER_ID, blog::backfill::MARKER_ID, None)
        .await
        .unwrap();
    let seen = blog::backfill::look_alike_claims(&app.blog.containers.users)
        .await
        .unwrap();
    assert_eq!(seen as u64, USERS + 1);
    assert_eq!(sign_up(&app, "", "јеѕѕісароре92").await, 409);
    assert_eq!(sign_up(&app, "", "someone_new").await, 303);
}
