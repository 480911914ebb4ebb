//! What a hostile visitor tried (issue 17): double-submitted sign-ups, replayed cookies, a
//! demoted admin, odd emails, sign-up floods, slow bodies, forged forwarded headers. Each was
//! reproduced on the old code before it was fixed.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::helpers::{spawn_app, spawn_app_with};
use webstore::seed::{ADMIN_EMAIL, ADMIN_PASSWORD, DEMO_EMAIL, DEMO_PASSWORD};

async fn customers_with_email(app: &crate::helpers::TestApp, email: &str) -> u64 {
    app.engine
        .database("webstore")
        .container("customer")
        .query_all::<u64>(
            "SELECT VALUE COUNT(1) FROM c WHERE c.type = 'customer' AND c.emailAddress = @e",
            &[("@e", json!(email))],
            Default::default(),
        )
        .await
        .unwrap()
        .items[0]
}

fn sign_up_form(email: &str) -> Vec<(&'static str, String)> {
    vec![
        ("first_name", "Double".into()),
        ("last_name", "Click".into()),
        ("email", email.into()),
        ("password", "a long password".into()),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn twenty_simultaneous_sign_ups_with_one_email_make_one_customer() {
    let app = spawn_app().await;
    let email = "double@example.com";
    // Each "click" has its page (and token) first, then all post at once.
    let mut pending = Vec::new();
    for _ in 0..20 {
        let v = app.visitor();
        let token = v.get("/signup").await.csrf_token();
        pending.push((v, token));
    }
    let mut tasks = tokio::task::JoinSet::new();
    for (v, token) in pending {
        tasks.spawn(async move {
            let mut form = sign_up_form(email);
            form.push(("csrf_token", token));
            let fields: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
            v.post("/signup", &fields).await.status
        });
    }
    let mut statuses = Vec::new();
    while let Some(s) = tasks.join_next().await {
        statuses.push(s.unwrap());
    }
    assert_eq!(
        statuses.iter().filter(|s| **s == 303).count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|s| *s == 303 || *s == 409),
        "{statuses:?}"
    );
    assert_eq!(customers_with_email(&app, email).await, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cookie_saved_before_sign_out_is_dead_after_it() {
    let app = spawn_app().await;
    let v = app.signed_in(DEMO_EMAIL, DEMO_PASSWORD).await;
    let account = v.get("/account").await;
    assert_eq!(account.status, 200);
    let saved = v.cookies();
    let token = account.csrf_token();
    let r = v.post("/signout", &[("csrf_token", &token)]).await;
    assert_eq!(r.status, 303);

    let thief = v.replay(&saved);
    let r = thief.get("/account").await;
    assert_eq!(r.status, 303, "the session ended on the server too");
    assert_eq!(r.location(), "/signin?next=%2Faccount");
    let r = thief
        .post(
            "/account/addresses",
            &[
                ("csrf_token", &token),
                ("address_line1", "1 Thief Road"),
                ("city", "X"),
                ("country", "Y"),
                ("zip_code", "1"),
            ],
        )
        .await;
    assert_ne!(r.status, 200);
    let doc = app
        .engine
        .database("webstore")
        .container("customer")
        .read_item::<Value>("cust-demo", "cust-demo", None)
        .await
        .unwrap()
        .resource
        .unwrap();
    assert!(!doc.to_string().contains("Thief Road"));
}

#[tokio::test(flavor = "multi_thread")]
async fn sign_out_everywhere_ends_every_browser() {
    let app = spawn_app().await;
    let phone = app.signed_in(DEMO_EMAIL, DEMO_PASSWORD).await;
    let laptop = app.signed_in(DEMO_EMAIL, DEMO_PASSWORD).await;
    assert_eq!(phone.get("/account").await.status, 200);
    let r = laptop
        .submit("/account", "/account/signout-everywhere", &[])
        .await;
    assert_eq!(r.status, 303);
    assert_eq!(
        phone.get("/account").await.location(),
        "/signin?next=%2Faccount"
    );
    assert_eq!(
        laptop.get("/account").await.location(),
        "/signin?next=%2Faccount"
    );
    // Signing in again works.
    let again = app.signed_in(DEMO_EMAIL, DEMO_PASSWORD).await;
    assert_eq!(again.get("/account").await.status, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_admin_demoted_in_the_database_loses_the_back_office_at_once() {
    let app = spawn_app().await;
    let admin = app.signed_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    assert_eq!(admin.get("/admin/customers/top").await.status, 200);
    let customers = app.engine.database("webstore").container("customer");
    let owner = customers
        .query_all::<String>(
            "SELECT VALUE c.id FROM c WHERE c.type = 'customer' AND c.emailAddress = @e",
            &[("@e", json!(ADMIN_EMAIL))],
            Default::default(),
        )
        .await
        .unwrap()
        .items[0]
        .clone();
    customers
        .patch_item::<Value>(
            &owner,
            owner.as_str(),
            &[engine::PatchOperation::set("/admin", json!(false))],
            None,
        )
        .await
        .unwrap();
    assert_eq!(admin.get("/admin/customers/top").await.status, 403);
}

#[tokio::test(flavor = "multi_thread")]
async fn emails_the_engine_would_refuse_are_form_errors() {
    let app = spawn_app().await;
    for bad in ["a#b@example.com", "<>@x.y", "a/b@example.com", "x@y"] {
        let v = app.visitor();
        let mut form = sign_up_form(bad);
        let token = v.get("/signup").await.csrf_token();
        form.push(("csrf_token", token));
        let fields: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let r = v.post("/signup", &fields).await;
        assert_eq!(r.status, 400, "{bad}: {}", r.body);
        assert!(r.body.contains("is not an email address"), "{bad}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sign_ups_are_rate_limited_per_address() {
    let app = spawn_app_with(|o| o.signups_per_minute = 2).await;
    for i in 0..2 {
        app.new_customer(&format!("flood{i}@example.com")).await;
    }
    let v = app.visitor();
    let mut form = sign_up_form("flood9@example.com");
    form.push(("csrf_token", v.get("/signup").await.csrf_token()));
    let fields: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let r = v.post("/signup", &fields).await;
    assert_eq!(r.status, 429);
    assert!(r.headers.contains_key("retry-after"));
    assert_eq!(customers_with_email(&app, "flood9@example.com").await, 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_body_sent_a_byte_at_a_time_is_cut_off() {
    let app = spawn_app_with(|o| o.limits.body_timeout = Duration::from_secs(1)).await;
    let mut s = tokio::net::TcpStream::connect(app.server.addr)
        .await
        .unwrap();
    let head = format!(
        "POST /signin HTTP/1.1\r\nHost: {}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\n",
        app.server.addr
    );
    s.write_all(head.as_bytes()).await.unwrap();
    // One byte every 300 ms: the whole body would take 5 minutes.
    let mut answer = Vec::new();
    let trickle = async {
        for _ in 0..1000 {
            if s.write_all(b"a").await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
            let mut buf = [0u8; 4096];
            match tokio::time::timeout(Duration::from_millis(1), s.read(&mut buf)).await {
                Ok(Ok(0)) | Ok(Err(_)) => break,
                Ok(Ok(n)) => {
                    answer.extend_from_slice(&buf[..n]);
                    break;
                }
                Err(_) => {}
            }
        }
    };
    // Generous: the server's deadline is 1 s; this only keeps a broken server from hanging CI.
    tokio::time::timeout(Duration::from_secs(60), trickle)
        .await
        .expect("the server cut the slow body off");
    let text = String::from_utf8_lossy(&answer);
    assert!(
        text.is_empty() || !text.starts_with("HTTP/1.1 2"),
        "a slow body is not served: {text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn forwarded_host_headers_are_not_believed_without_a_trusted_proxy() {
    let app = spawn_app().await;
    let v = app.visitor();
    let token = v.get("/signin").await.csrf_token();
    let r = v
        .client
        .post(format!("{}/signin", v.base))
        .header("Origin", "http://evil.example")
        .header("X-Forwarded-Host", "evil.example")
        .form(&[
            ("email", DEMO_EMAIL),
            ("password", DEMO_PASSWORD),
            ("csrf_token", token.as_str()),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
}

async fn orders_of(app: &crate::helpers::TestApp, customer: &str) -> u64 {
    app.engine
        .database("webstore")
        .container("customer")
        .query_all::<u64>(
            "SELECT VALUE COUNT(1) FROM c WHERE c.type = 'salesOrder'",
            engine::NO_PARAMS,
            engine::QueryOptions {
                partition_key: Some(customer.into()),
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .items[0]
}

#[tokio::test(flavor = "multi_thread")]
async fn one_cart_places_one_order_whatever_the_clicks_and_replays() {
    let app = spawn_app().await;
    let v = app.signed_in(DEMO_EMAIL, DEMO_PASSWORD).await;
    let product = app
        .engine
        .database("webstore")
        .container("product")
        .query_all::<Value>(
            "SELECT TOP 1 * FROM c",
            engine::NO_PARAMS,
            Default::default(),
        )
        .await
        .unwrap()
        .items[0]
        .clone();
    let (category, id) = (
        product["categoryId"].as_str().unwrap(),
        product["id"].as_str().unwrap(),
    );
    let r = v
        .submit(
            &format!("/products/{category}/{id}"),
            "/cart/add",
            &[
                ("category_id", category),
                ("product_id", id),
                ("quantity", "1"),
            ],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    let before = orders_of(&app, "cust-demo").await;
    let cart = v.get("/cart").await;
    let token = cart.csrf_token();
    let order_id = sitekit::testing::input_value(&cart.body, "order_id").unwrap();
    let saved = v.cookies();
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..20 {
        let v = v.clone();
        let (token, order_id) = (token.clone(), order_id.clone());
        tasks.spawn(async move {
            v.post(
                "/checkout",
                &[("csrf_token", &token), ("order_id", &order_id)],
            )
            .await
            .status
        });
    }
    while let Some(s) = tasks.join_next().await {
        assert_eq!(s.unwrap(), 303);
    }
    assert_eq!(orders_of(&app, "cust-demo").await, before + 1);
    // The cookie from before checkout, replayed: still that one order.
    let r = v
        .replay(&saved)
        .post("/checkout", &[("csrf_token", &token)])
        .await;
    assert_eq!(r.status, 303);
    assert_eq!(r.location(), format!("/orders/{order_id}"));
    assert_eq!(orders_of(&app, "cust-demo").await, before + 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn error_pages_are_in_the_shops_layout_and_know_who_is_signed_in() {
    let app = spawn_app().await;
    let v = app.signed_in(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let r = v.get("/orders/no-such-order").await;
    assert_eq!(r.status, 404);
    assert!(r.body.contains("Back office"), "the shop's navigation");
    assert!(!r.body.contains("Sign up"), "a signed-in visitor");
    // The page in the shop's layout reuses the handler's session check: one read, not two.
    assert_eq!(r.session_checks(), 1, "{:?}", r.engine_calls());
    let customer = app.signed_in(DEMO_EMAIL, DEMO_PASSWORD).await;
    let r = customer.get("/admin/customers/top").await;
    assert_eq!(r.status, 403);
    assert!(r.body.contains("href=\"/cart\">Cart</a>"));
    assert_eq!(r.session_checks(), 1, "{:?}", r.engine_calls());
    // No handler (no route): the layout checks the session itself, once.
    let r = customer.get("/no/such/page").await;
    assert_eq!(r.status, 404);
    assert!(r.body.contains("href=\"/cart\">Cart</a>"));
    assert_eq!(r.session_checks(), 1, "{:?}", r.engine_calls());
}

/// Opens a request that holds its slot: headers sent, a body promised and never sent.
async fn held_request(addr: std::net::SocketAddr) -> tokio::net::TcpStream {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /signin HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nemail="
    );
    s.write_all(head.as_bytes()).await.unwrap();
    s
}

#[tokio::test(flavor = "multi_thread")]
async fn one_address_cannot_hold_more_requests_than_its_cap() {
    let app = spawn_app_with(|o| o.limits.requests_per_address = 2).await;
    let (a, b) = (
        held_request(app.server.addr).await,
        held_request(app.server.addr).await,
    );
    // The two held requests are in flight once the server has read their headers.
    let v = app.visitor();
    let mut refused = None;
    for _ in 0..100 {
        let r = v.get("/").await;
        if r.status == 429 {
            refused = Some(r);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let r = refused.expect("a third request from the address is refused");
    assert!(r.headers.contains_key("retry-after"), "{:?}", r.headers);
    // The held requests end: the address is served again.
    drop((a, b));
    crate::helpers::eventually("the address is served again", || async {
        app.visitor().get("/").await.status == 200
    })
    .await;
}

/// The HTTP ceiling page (up to 1 MB for one GET, no engine call) is for the load tests on this
/// machine: a client elsewhere (here: named by the trusted proxy) gets a 404, a loopback client
/// still gets its page (issue 33).
#[tokio::test(flavor = "multi_thread")]
async fn the_ceiling_page_is_served_to_loopback_clients_only() {
    let app = spawn_app_with(|o| o.trusted_proxy = Some("127.0.0.1".parse().unwrap())).await;
    let v = app.visitor();
    let remote = |ip: &'static str| {
        v.client
            .get(format!("{}/static/ceiling?bytes=1048576", v.base))
            .header("X-Forwarded-For", ip)
            .send()
    };
    let r = remote("203.0.113.5").await.unwrap();
    assert_eq!(r.status(), 404);
    assert!(r.text().await.unwrap().len() < 100_000);
    let r = remote("2001:db8::1").await.unwrap();
    assert_eq!(r.status(), 404);
    // The load tests: k6 on the machine itself.
    let r = v.get("/static/ceiling?bytes=1048576").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body.len(), 1_048_576);
}

/// Free text that shows nothing or reorders what follows it (issue 33): a last name of one
/// zero-width space, a first name of Hangul fillers, a name carrying U+202E.
#[tokio::test(flavor = "multi_thread")]
async fn invisible_and_bidi_override_names_are_form_errors() {
    let app = spawn_app().await;
    for (field, value, message) in [
        ("last_name", "\u{200B}", "invisible characters only"),
        (
            "first_name",
            "\u{3164}\u{3164}",
            "invisible characters only",
        ),
        (
            "first_name",
            "Ann\u{202E}nimda",
            "bidirectional control characters",
        ),
    ] {
        let v = app.visitor();
        let mut form = sign_up_form("invisible@example.com");
        form.retain(|(k, _)| *k != field);
        form.push((field, value.into()));
        form.push(("csrf_token", v.get("/signup").await.csrf_token()));
        let fields: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let r = v.post("/signup", &fields).await;
        assert_eq!(r.status, 400, "{value:?}: {}", r.body);
        assert!(r.body.contains(message), "{value:?}");
    }
    assert_eq!(customers_with_email(&app, "invisible@example.com").await, 0);
}
