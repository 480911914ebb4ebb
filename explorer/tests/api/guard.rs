//! The guard (issue 17): a page under another name (DNS rebinding) or without the token reads
//! nothing and changes nothing; loopback names with the token, the cookie the token URL sets,
//! bearer tokens and `--explorer-host` names are served.

use explorer::ExplorerOptions;
use sitekit::testing::Reply;

use crate::helpers::{spawn_app, spawn_with, TestApp};

/// A request with a chosen `Host` header (and the token as a bearer unless `token` is None).
async fn with_host(
    app: &TestApp,
    method: &str,
    path: &str,
    host: &str,
    token: Option<&str>,
) -> Reply {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut req = client
        .request(method.parse().unwrap(), app.server.url(path))
        .header("host", host);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    if method == "POST" {
        req = req.form(&[("csrf_token", "x")]);
    }
    let r = req.send().await.unwrap();
    Reply {
        status: r.status().as_u16(),
        headers: r.headers().clone(),
        body: r.text().await.unwrap(),
    }
}

fn header<'a>(r: &'a Reply, name: &str) -> &'a str {
    r.headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

#[tokio::test]
async fn a_foreign_host_is_refused_on_every_route_even_with_the_token() {
    let app = spawn_app(true).await;
    let query = "/dbs/shop/colls/products/query?sql=SELECT%20c.id%2C%20c.price%20FROM%20c";
    for host in [
        "evil.example:8082",
        "evil.example",
        "localhost.evil.example:8082",
        "127.0.0.1.nip.io:8082",
        "localhost:8082@evil.example",
        "",
    ] {
        for (method, path) in [
            ("GET", "/"),
            ("GET", "/metrics"),
            ("GET", query),
            ("GET", "/static/site.css"),
            ("GET", "/no-such-page"),
            ("POST", "/dbs/shop/colls/products/items/bike-00/delete"),
            ("POST", "/dbs/shop/colls/products/scripts/countItems"),
        ] {
            let r = with_host(&app, method, path, host, Some(&app.token)).await;
            assert_eq!(r.status, 403, "{method} {path} Host: {host:?}: {}", r.body);
            assert!(
                header(&r, "content-type").starts_with("text/plain"),
                "{:?}",
                r.headers
            );
            assert!(r.body.contains("--explorer-host"), "{}", r.body);
            assert!(!r.body.contains("bike"), "{}", r.body);
        }
    }
    // The refused delete changed nothing.
    let item = app
        .products
        .read_item::<serde_json::Value>("bike-00", "bikes", None)
        .await;
    assert!(item.is_ok(), "bike-00 survives");
}

#[tokio::test]
async fn loopback_hosts_are_served_with_the_token() {
    let app = spawn_app(false).await;
    for host in [
        "localhost:8082",
        "LocalHost",
        "127.0.0.1",
        "127.0.0.1:1",
        "[::1]:8082",
        "[::1]",
    ] {
        let r = with_host(&app, "GET", "/", host, Some(&app.token)).await;
        assert_eq!(r.status, 200, "Host: {host}: {}", r.body);
        assert!(r.body.contains("shop"), "{}", r.body);
    }
}

#[tokio::test]
async fn without_the_token_every_page_is_a_401_that_says_where_the_url_is() {
    let app = spawn_app(false).await;
    let stranger = app.stranger();
    for path in [
        "/",
        "/metrics",
        "/dbs/shop/colls/products/items",
        "/dbs/shop/colls/products/query?sql=SELECT%20*%20FROM%20c",
        "/no-such-page",
    ] {
        let r = stranger.get(path).await;
        assert_eq!(r.status, 401, "{path}: {}", r.body);
        assert!(r.body.contains("launcher printed"), "{}", r.body);
        assert!(r.body.contains("--explorer-token"), "{}", r.body);
        assert!(!r.body.contains("bike-"), "{}", r.body);
        assert_eq!(
            header(&r, "www-authenticate"),
            "Bearer realm=\"Data Explorer\""
        );
    }
    let r = stranger
        .post(
            "/dbs/shop/colls/products/items/bike-00/delete",
            &[("csrf_token", "x")],
        )
        .await;
    assert_eq!(r.status, 401);
    // The 401 page's stylesheet is served (it holds nothing secret).
    assert_eq!(stranger.get("/static/site.css").await.status, 200);
}

#[tokio::test]
async fn a_wrong_token_is_a_401_in_the_url_the_header_or_the_cookie() {
    let app = spawn_app(false).await;
    let wrong = format!("{}0", app.token);
    let stranger = app.stranger();
    for path in [
        format!("/?token={wrong}"),
        "/?token=".to_owned(),
        format!("/metrics?token={}", &app.token[..63]),
    ] {
        let r = stranger.get(&path).await;
        assert_eq!(r.status, 401, "{path}");
        assert!(r.body.contains("not this explorer"), "{}", r.body);
        assert!(header(&r, "set-cookie").is_empty());
    }
    let r = with_host(&app, "GET", "/metrics", "127.0.0.1", Some(&wrong)).await;
    assert_eq!(r.status, 401);
    let r = with_host(&app, "GET", "/metrics", "127.0.0.1", Some("")).await;
    assert_eq!(r.status, 401);
    // A cookie of an earlier start.
    let r = reqwest::Client::new()
        .get(app.server.url("/"))
        .header(
            "cookie",
            format!("explorer_token_{}={wrong}", app.server.addr.port()),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert!(r.text().await.unwrap().contains("restarted"));
}

#[tokio::test]
async fn the_token_url_sets_a_strict_cookie_and_redirects_without_the_token() {
    let app = spawn_app(false).await;
    let browser = app.stranger();
    let r = browser
        .get(&format!(
            "/dbs/shop/colls/products/query?sql=SELECT%20c.id%20FROM%20c&token={}&pk=bikes",
            app.token
        ))
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    assert_eq!(
        r.location(),
        "/dbs/shop/colls/products/query?sql=SELECT%20c.id%20FROM%20c&pk=bikes"
    );
    let cookie = header(&r, "set-cookie");
    let name = format!("explorer_token_{}=", app.server.addr.port());
    assert!(cookie.starts_with(&name), "{cookie}");
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Strict"), "{cookie}");
    assert!(cookie.contains("Path=/"), "{cookie}");

    // The same browser, now by its cookie alone.
    let r = browser.get(r.location()).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("Query stats"), "{}", r.body);
    assert!(r.body.contains("bike-03"), "{}", r.body);
    assert_eq!(browser.get("/metrics").await.status, 200);
    assert_eq!(browser.get("/").await.status, 200);
    // The plain token URL lands on the home page.
    let r = app.stranger().get(&format!("/?token={}", app.token)).await;
    assert_eq!((r.status, r.location()), (303, "/"));
}

#[tokio::test]
async fn a_bearer_token_reads_the_metrics_as_prometheus_does() {
    let app = spawn_app(false).await;
    let r = reqwest::Client::new()
        .get(app.server.url("/metrics"))
        .header("authorization", format!("Bearer {}", app.token))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    assert!(r
        .text()
        .await
        .unwrap()
        .contains("# TYPE engine_request_units_total counter"));
}

#[tokio::test]
async fn names_given_with_explorer_host_are_served_and_a_fixed_token_works() {
    let app = spawn_with(ExplorerOptions {
        allowed_hosts: vec![explorer::guard::parse_host_name("Box.lan:8082").unwrap()],
        token: "fixed-token_for.scripts~1".into(),
        ..ExplorerOptions::default()
    })
    .await;
    for host in ["box.lan:8082", "BOX.LAN", "box.lan:9", "localhost"] {
        let r = with_host(&app, "GET", "/", host, Some("fixed-token_for.scripts~1")).await;
        assert_eq!(r.status, 200, "Host: {host}: {}", r.body);
    }
    for host in ["evil.box.lan", "box.lan.evil.example", "box.la"] {
        let r = with_host(&app, "GET", "/", host, Some(&app.token)).await;
        assert_eq!(r.status, 403, "Host: {host}");
    }
}

/// Issue 37: the 401 page is the explorer's own (no site's sign-in links), and does not name a
/// port the launcher may not be using.
#[tokio::test(flavor = "multi_thread")]
async fn the_401_page_is_the_explorers_own() {
    let app = spawn_app(false).await;
    let r = app.stranger().get("/").await;
    assert_eq!(r.status, 401);
    assert!(r.body.contains("Data Explorer"), "{}", r.body);
    for absent in ["Sign in", "Sign up", "/signin", ":8082"] {
        assert!(!r.body.contains(absent), "{absent}: {}", r.body);
    }
}

/// Issue 37: a container's breadcrumb names it once, and its tabs mark the one shown.
#[tokio::test(flavor = "multi_thread")]
async fn the_container_pages_mark_their_tab_and_name_the_container_once() {
    let app = spawn_app(false).await;
    let r = app.get("/dbs/shop/colls/products").await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.body.matches(">products<").count() + r.body.matches("/ products</p>").count(),
        1,
        "{}",
        r.body
    );
    assert!(
        r.body.contains("aria-current=\"page\">Settings</a>"),
        "{}",
        r.body
    );
    let r = app.get("/dbs/shop/colls/products/items").await;
    assert!(
        r.body.contains("aria-current=\"page\">Items</a>"),
        "{}",
        r.body
    );
    assert_eq!(r.body.matches("aria-current").count(), 1, "{}", r.body);
}
