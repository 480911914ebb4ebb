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
