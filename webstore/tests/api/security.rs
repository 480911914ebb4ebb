use webstore::seed::{DEMO_EMAIL, DEMO_PASSWORD};

use crate::helpers::spawn_app;

#[tokio::test(flavor = "multi_thread")]
async fn state_changing_posts_need_the_sessions_csrf_token() {
    let app = spawn_app().await;
    let v = app.demo().await;
    let p = &webstore::seed::catalog::catalog().products[0];
    let form = [
        ("category_id", p.category_id.as_str()),
        ("product_id", p.id.as_str()),
    ];
    // No token, a wrong token, a token from another session.
    assert_eq!(v.post("/cart/add", &form).await.status, 403);
    let mut wrong = form.to_vec();
    wrong.push(("csrf_token", "0000"));
    assert_eq!(v.post("/cart/add", &wrong).await.status, 403);
    let other = app.visitor().get("/signin").await.csrf_token();
    let mut foreign = form.to_vec();
    foreign.push(("csrf_token", &other));
    let r = v.post("/cart/add", &foreign).await;
    assert_eq!(r.status, 403);
    assert!(r.body.contains("The form expired"));
    // A cross-site post with the right token is refused too.
    let token = v.get("/").await.csrf_token();
    let r = v
        .client
        .post(format!("{}/cart/add", v.base))
        .header("Origin", "http://evil.example")
        .form(&[
            ("category_id", p.category_id.as_str()),
            ("product_id", p.id.as_str()),
            ("csrf_token", token.as_str()),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    // And with everything right, it works.
    let mut good = form.to_vec();
    good.push(("csrf_token", &token));
    assert_eq!(v.post("/cart/add", &good).await.status, 303);
    // Sign-out is a POST: a GET changes nothing.
    assert_eq!(v.get("/signout").await.status, 404);
    assert_eq!(v.get("/account").await.status, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn session_cookies_are_http_only_same_site_and_unreadable() {
    let app = spawn_app().await;
    let r = app.visitor().get("/").await;
    let cookie = r
        .headers
        .get("set-cookie")
        .expect("a session cookie")
        .to_str()
        .unwrap()
        .to_owned();
    assert!(cookie.starts_with("webstore_session="));
    assert!(cookie.contains("HttpOnly"));
    assert!(cookie.contains("SameSite=Lax"));
    assert!(
        !cookie.contains("csrf"),
        "the session is encrypted: {cookie}"
    );
    assert_eq!(r.headers.get("x-content-type-options").unwrap(), "nosniff");
    assert!(r.headers.get("content-security-policy").is_some());
}

#[tokio::test(flavor = "multi_thread")]
async fn errors_are_pages_with_status_and_every_response_has_its_charge() {
    let app = spawn_app().await;
    let v = app.visitor();
    let r = v.get("/no/such/page").await;
    assert_eq!(r.status, 404);
    assert!(r.body.contains("404 · Not Found"));
    assert_eq!(r.request_charge(), 0.0);
    let r = v.get("/products/cat/nope").await;
    assert_eq!(r.status, 404);
    r.request_charge();
    // Not a form.
    let r = v
        .client
        .post(format!("{}/cart/add", v.base))
        .body("{}")
        .header("content-type", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 415);
    // An oversize body.
    let token = v.get("/signin").await.csrf_token();
    let big = "x".repeat(300 * 1024);
    let r = v
        .post(
            "/signin",
            &[("csrf_token", &token), ("email", &big), ("password", "x")],
        )
        .await;
    assert!(r.status == 400 || r.status == 413, "{}", r.status);
    assert!(r.status < 500);
}

/// Issue 37: sign-in returns to the page that asked for it, but only to a path on this site.
#[tokio::test(flavor = "multi_thread")]
async fn sign_in_returns_to_a_local_next_and_never_to_another_host() {
    let app = spawn_app().await;
    // A page that needs an account sends its own path along.
    let r = app.visitor().get("/orders?page=2").await;
    assert_eq!(r.status, 303);
    assert_eq!(r.location(), "/signin?next=%2Forders%3Fpage%3D2");
    // The cart's link, and the form carrying it as a hidden field.
    let shopper = app.visitor();
    let p = &webstore::seed::catalog::catalog().products[3];
    let r = shopper
        .submit(
            &format!("/products/{}/{}", p.category_id, p.id),
            "/cart/add",
            &[
                ("category_id", &p.category_id),
                ("product_id", &p.id),
                ("quantity", "1"),
            ],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    let cart = shopper.get("/cart").await;
    assert!(
        cart.body.contains(r#"href="/signin?next=%2Fcart""#),
        "{}",
        cart.body
    );
    let form = app.visitor().get("/signin?next=%2Fcart").await;
    assert_eq!(
        sitekit::testing::input_value(&form.body, "next").as_deref(),
        Some("/cart")
    );

    let sign_in = |next: &'static str| {
        let v = app.visitor();
        async move {
            let r = v
                .submit(
                    "/signin",
                    "/signin",
                    &[
                        ("email", DEMO_EMAIL),
                        ("password", DEMO_PASSWORD),
                        ("next", next),
                    ],
                )
                .await;
            assert_eq!(r.status, 303, "{next}: {}", r.body);
            (v, r.location().to_owned())
        }
    };
    assert_eq!(sign_in("/cart").await.1, "/cart");
    for hostile in [
        "//evil.example/",
        "/\\evil.example",
        "\\\\evil.example",
        "https://evil.example/",
        "/%2F/evil.example",
        "%2F%2Fevil.example",
        "/%5Cevil.example",
        "/\t/evil.example",
        "javascript:alert(1)",
    ] {
        assert_eq!(sign_in(hostile).await.1, "/", "{hostile:?}");
    }
    // Nor is a hostile next put in the form.
    let form = app.visitor().get("/signin?next=%2F%2Fevil.example").await;
    assert_eq!(sitekit::testing::input_value(&form.body, "next"), None);

    // Someone signed in who opens the form is sent on.
    let (v, _) = sign_in("/").await;
    let r = v.get("/signin?next=%2Fcart").await;
    assert_eq!((r.status, r.location()), (303, "/cart"));
    let r = v.get("/signin?next=https%3A%2F%2Fevil.example").await;
    assert_eq!((r.status, r.location()), (303, "/"));
}
