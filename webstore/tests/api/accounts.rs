use serde_json::Value;

use crate::helpers::{routings, session_checks, spawn_app};
use webstore::seed::{DEMO_EMAIL, DEMO_PASSWORD};

#[tokio::test(flavor = "multi_thread")]
async fn sign_up_stores_an_argon2id_hash_and_signs_in() {
    let app = spawn_app().await;
    let v = app.new_customer("New.Person@Example.com").await;
    let r = v.get("/account").await;
    assert_eq!(r.status, 200);
    assert!(
        r.body.contains("new.person@example.com"),
        "emails are stored lower-cased"
    );
    assert!(!r.body.contains("argon2"), "the hash is never rendered");
    assert_eq!(routings(&r), ["point"]);
    assert_eq!(session_checks(&r), 1, "a signed-in page checks its session");

    // The lookup document makes the address unique and sign-in a point read.
    let customer = app.engine.database("webstore").container("customer");
    let login = customer
        .read_item::<Value>(
            "new.person@example.com",
            "email:new.person@example.com",
            None,
        )
        .await
        .unwrap()
        .resource
        .unwrap();
    let owner = login["ownerId"].as_str().unwrap();
    let doc = customer
        .read_item::<Value>(owner, owner, None)
        .await
        .unwrap()
        .resource
        .unwrap();
    assert!(doc["password"].as_str().unwrap().starts_with("$argon2id$"));

    // The same address again (any case) is a 409 with the field named.
    let r = app
        .visitor()
        .submit(
            "/signup",
            "/signup",
            &[
                ("first_name", "A"),
                ("last_name", "B"),
                ("email", "NEW.person@example.com"),
                ("password", "another password"),
            ],
        )
        .await;
    assert_eq!(r.status, 409);
    assert!(r.body.contains("already has an account"));

    // Sign out, then in again.
    let token = v.get("/").await.csrf_token();
    let r = v.post("/signout", &[("csrf_token", &token)]).await;
    assert_eq!(r.status, 303);
    assert_eq!(
        v.get("/account").await.location(),
        "/signin?next=%2Faccount"
    );
    let v = app
        .signed_in("new.person@example.com", "a long password")
        .await;
    assert_eq!(v.get("/account").await.status, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn sign_in_is_two_point_reads_and_never_says_which_part_was_wrong() {
    let app = spawn_app().await;
    let v = app.visitor();
    let r = v
        .submit(
            "/signin",
            "/signin",
            &[("email", DEMO_EMAIL), ("password", DEMO_PASSWORD)],
        )
        .await;
    assert_eq!(r.status, 303);
    // Lookup + customer: two 1 KB point reads, whatever the number of customers; then the
    // session is written into the customer document (a read and a replace).
    // Three 1 RU reads and one replace of a ~1 KB document.
    assert!(
        r.request_charge() >= 3.0 && r.request_charge() < 20.0,
        "{}",
        r.request_charge()
    );

    let wrong_password = app
        .visitor()
        .submit(
            "/signin",
            "/signin",
            &[("email", DEMO_EMAIL), ("password", "nope nope")],
        )
        .await;
    let no_account = app
        .visitor()
        .submit(
            "/signin",
            "/signin",
            &[("email", "nobody@example.com"), ("password", "nope nope")],
        )
        .await;
    assert_eq!(wrong_password.status, 401);
    assert_eq!(no_account.status, 401);
    assert!(wrong_password.body.contains("Wrong email or password."));
    assert!(no_account.body.contains("Wrong email or password."));
}

#[tokio::test(flavor = "multi_thread")]
async fn repeated_failures_are_throttled_with_retry_after() {
    let app = spawn_app().await;
    let v = app.visitor();
    for _ in 0..5 {
        let r = v
            .submit(
                "/signin",
                "/signin",
                &[("email", DEMO_EMAIL), ("password", "wrong password")],
            )
            .await;
        assert_eq!(r.status, 401);
    }
    // Even the right password waits now: the lock is on the address (and the client).
    let r = v
        .submit(
            "/signin",
            "/signin",
            &[("email", DEMO_EMAIL), ("password", DEMO_PASSWORD)],
        )
        .await;
    assert_eq!(r.status, 429);
    assert!(r.headers.get("retry-after").is_some());
    assert!(r.body.contains("Too many attempts"));
}

#[tokio::test(flavor = "multi_thread")]
async fn sign_up_validates_every_field_with_messages() {
    let app = spawn_app().await;
    let r = app
        .visitor()
        .submit(
            "/signup",
            "/signup",
            &[
                ("first_name", " "),
                ("last_name", &"x".repeat(61)),
                ("email", "not-an-email"),
                ("password", "short"),
            ],
        )
        .await;
    assert_eq!(r.status, 400);
    for m in [
        "First name is required",
        "Last name must be at most 60 characters",
        "Email is not an email address",
        "Password must be at least 8 characters",
    ] {
        assert!(r.body.contains(m), "missing '{m}'");
    }
    // A form missing a field entirely is a 400 naming it.
    let r = app
        .visitor()
        .submit("/signup", "/signup", &[("first_name", "A")])
        .await;
    assert_eq!(r.status, 400);
    assert!(r.body.contains("last_name"), "{}", r.body);
}

#[tokio::test(flavor = "multi_thread")]
async fn addresses_are_embedded_by_one_patch_up_to_the_limit() {
    let app = spawn_app().await;
    let v = app.new_customer("addr@example.com").await;
    let r = v
        .submit(
            "/account",
            "/account/addresses",
            &[
                ("address_line1", ""),
                ("city", ""),
                ("country", "US"),
                ("zip_code", "1"),
            ],
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(r.body.contains("City is required"));
    for i in 0..10 {
        let line = format!("{i} Main Street");
        let r = v
            .submit(
                "/account",
                "/account/addresses",
                &[
                    ("address_line1", &line),
                    ("city", "Seattle"),
                    ("country", "US"),
                    ("zip_code", "98101"),
                ],
            )
            .await;
        assert_eq!(r.status, 303, "{}", r.body);
        assert!(r.request_charge() > 1.0);
    }
    let r = v.get("/account").await;
    assert!(r.body.contains("9 Main Street"));
    assert!(r.body.contains("the most a customer document embeds"));
    // The form posts to /account/addresses: a GET there (a reload, a bookmark) shows them too.
    let r = v.get("/account/addresses").await;
    assert_eq!(r.status, 200);
    assert!(r.body.contains("0 Main Street") && r.body.contains("9 Main Street"));
    assert_eq!(
        routings(&r),
        ["point"],
        "the customer document, addresses embedded"
    );
    let r = v
        .submit(
            "/account",
            "/account/addresses",
            &[
                ("address_line1", "one more"),
                ("city", "Seattle"),
                ("country", "US"),
                ("zip_code", "98101"),
            ],
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(r.body.contains("at most 10 addresses"));
}

/// The per-client lock is on the connection's address: a client choosing `X-Forwarded-For`
/// cannot spread its failures over made-up addresses (nor lock out someone else's).
#[tokio::test(flavor = "multi_thread")]
async fn the_sign_in_throttle_ignores_forwarded_for_headers() {
    let app = spawn_app().await;
    let other = app.visitor();
    let token = other.get("/signin").await.csrf_token();
    // An address gets 20 free failures (sitekit::accounts::throttle), then waits.
    for i in 0..20 {
        let r = other
            .client
            .post(format!("{}/signin", other.base))
            .header("X-Forwarded-For", format!("10.0.0.{i}"))
            .form(&[
                ("email", format!("someone{i}@example.com").as_str()),
                ("password", "wrong password"),
                ("csrf_token", token.as_str()),
            ])
            .send()
            .await
            .unwrap();
        assert!(r.status() == 401 || r.status() == 429, "{}", r.status());
    }
    let r = other
        .submit(
            "/signin",
            "/signin",
            &[
                ("email", "another@example.com"),
                ("password", "wrong password"),
            ],
        )
        .await;
    assert_eq!(
        r.status, 429,
        "the client's own address must wait, whatever header it sends"
    );
}
