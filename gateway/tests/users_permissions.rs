//! Users, permissions and resource tokens through the gateway, over HTTP on a real engine: the
//! CRUD the REST API's "Users" and "Permissions" pages describe, and what a client holding a
//! permission's `_token` may do (its resource and below, reads only for `Read`, one partition
//! key when the permission names one), with forged, expired and revoked tokens refused (401).

mod common;

use std::time::{Duration, SystemTime};

use common::signed::{send, Answer};
use common::TestGateway;
use reqwest::Method;
use serde_json::{json, Value};

/// A master-key request (`common::signed`); `link` is what the SDKs sign.
async fn master(
    gw: &TestGateway,
    method: Method,
    path: &str,
    kind: &str,
    link: &str,
    body: Value,
    headers: &[(&str, &str)],
) -> Answer {
    send(gw, method, path, (kind, link), body, headers).await
}

/// A request authorized by a resource token, URL-encoded as the Python SDK sends it.
async fn with_token(
    gw: &TestGateway,
    token: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
    headers: &[(&str, &str)],
) -> u16 {
    let auth = percent_encoding_of(token);
    let mut req = reqwest::Client::new()
        .request(method, format!("http://{}{path}", gw.addr))
        .header("x-ms-date", httpdate::fmt_http_date(SystemTime::now()))
        .header("x-ms-version", "2020-07-15")
        .header("authorization", auth);
    if let Some(b) = body {
        req = req.body(b.to_string());
    }
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    req.send()
        .await
        .expect("the gateway answers")
        .status()
        .as_u16()
}

/// Every byte but ASCII letters and digits as `%XX` (what `urllib.parse.quote` does to `=&;+/`).
fn percent_encoding_of(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Database `db` with containers `a` and `b` (key `/key`), and one item `doc1` (key 1) in each.
async fn setup(gw: &TestGateway) {
    let r = master(
        gw,
        Method::POST,
        "/dbs",
        "dbs",
        "",
        json!({"id": "db"}),
        &[],
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
    for c in ["a", "b"] {
        let body = json!({"id": c, "partitionKey": {"paths": ["/key"], "kind": "Hash"}});
        let r = master(
            gw,
            Method::POST,
            "/dbs/db/colls",
            "colls",
            "dbs/db",
            body,
            &[],
        )
        .await;
        assert_eq!(r.status, 201, "{}", r.body);
        let r = master(
            gw,
            Method::POST,
            &format!("/dbs/db/colls/{c}/docs"),
            "docs",
            &format!("dbs/db/colls/{c}"),
            json!({"id": "doc1", "key": 1}),
            &[("x-ms-documentdb-partitionkey", "[1]")],
        )
        .await;
        assert_eq!(r.status, 201, "{}", r.body);
    }
}

async fn create_user(gw: &TestGateway, id: &str) -> Answer {
    master(
        gw,
        Method::POST,
        "/dbs/db/users",
        "users",
        "dbs/db",
        json!({"id": id}),
        &[],
    )
    .await
}

/// Creates permission `body` for `user`; answers its body (with `_token`).
async fn create_permission(
    gw: &TestGateway,
    user: &str,
    body: Value,
    headers: &[(&str, &str)],
) -> Answer {
    master(
        gw,
        Method::POST,
        &format!("/dbs/db/users/{user}/permissions"),
        "permissions",
        &format!("dbs/db/users/{user}"),
        body,
        headers,
    )
    .await
}

fn token(a: &Answer) -> String {
    a.body["_token"]
        .as_str()
        .unwrap_or_else(|| panic!("a permission carries _token: {}", a.body))
        .to_owned()
}

#[tokio::test]
async fn users_and_permissions_are_served_and_survive_a_restart() {
    let data = tempfile::tempdir().unwrap();
    let (user_rid, kept_token) = {
        let gw = TestGateway::at(data.path(), gateway::Limits::default());
        setup(&gw).await;
        let u = create_user(&gw, "alice").await;
        assert_eq!(u.status, 201, "{}", u.body);
        for field in ["_rid", "_self", "_etag", "_ts"] {
            assert!(!u.body[field].is_null(), "{field}: {}", u.body);
        }
        assert_eq!(u.body["_permissions"], "permissions/");
        assert_eq!(create_user(&gw, "alice").await.status, 409);
        // Query as the Python SDK's query_users sends it.
        let q = master(
            &gw,
            Method::POST,
            "/dbs/db/users",
            "users",
            "dbs/db",
            json!({"query": "SELECT * FROM root r WHERE r.id=@id",
                   "parameters": [{"name": "@id", "value": "alice"}]}),
            &[
                ("x-ms-documentdb-isquery", "True"),
                ("content-type", "application/query+json"),
            ],
        )
        .await;
        assert_eq!(
            q.body["Users"].as_array().map(Vec::len),
            Some(1),
            "{}",
            q.body
        );
        // Renaming keeps the resource id.
        let renamed = master(
            &gw,
            Method::PUT,
            "/dbs/db/users/alice",
            "users",
            "dbs/db/users/alice",
            json!({"id": "alice2"}),
            &[],
        )
        .await;
        assert_eq!(renamed.status, 200, "{}", renamed.body);
        assert_eq!(renamed.body["_rid"], u.body["_rid"]);
        let p = create_permission(
            &gw,
            "alice2",
            json!({"id": "read a", "permissionMode": "Read", "resource": "dbs/db/colls/a"}),
            &[],
        )
        .await;
        assert_eq!(p.status, 201, "{}", p.body);
        assert_eq!(p.body["permissionMode"], "Read");
        // One permission per resource and user (409), as the REST API says.
        let twice = create_permission(
            &gw,
            "alice2",
            json!({"id": "again", "permissionMode": "All", "resource": "dbs/db/colls/a"}),
            &[],
        )
        .await;
        assert_eq!(twice.status, 409, "{}", twice.body);
        (u.body["_rid"].clone(), token(&p))
    };
    let gw = TestGateway::at(data.path(), gateway::Limits::default());
    let u = master(
        &gw,
        Method::GET,
        "/dbs/db/users/alice2",
        "users",
        "dbs/db/users/alice2",
        Value::Null,
        &[],
    )
    .await;
    assert_eq!(u.status, 200, "{}", u.body);
    assert_eq!(u.body["_rid"], user_rid);
    let list = master(
        &gw,
        Method::GET,
        "/dbs/db/users/alice2/permissions",
        "permissions",
        "dbs/db/users/alice2",
        Value::Null,
        &[],
    )
    .await;
    assert_eq!(list.body["_count"], 1, "{}", list.body);
    assert_eq!(list.body["Permissions"][0]["id"], "read a");
    // A token issued before the restart still reads.
    let read = with_token(
        &gw,
        &kept_token,
        Method::GET,
        "/dbs/db/colls/a/docs/doc1",
        None,
        &[("x-ms-documentdb-partitionkey", "[1]")],
    )
    .await;
    assert_eq!(read, 200);
}

#[tokio::test]
async fn a_token_grants_only_what_its_permission_does() {
    let gw = TestGateway::start();
    setup(&gw).await;
    assert_eq!(create_user(&gw, "bob").await.status, 201);
    let read = token(
        &create_permission(
            &gw,
            "bob",
            json!({"id": "r", "permissionMode": "Read", "resource": "dbs/db/colls/a"}),
            &[],
        )
        .await,
    );
    let pk1 = [("x-ms-documentdb-partitionkey", "[1]")];
    let item = json!({"id": "doc2", "key": 1});
    // Read: the container and below, reads only.
    assert_eq!(
        with_token(&gw, &read, Method::GET, "/", None, &[]).await,
        200
    );
    assert_eq!(
        with_token(&gw, &read, Method::GET, "/dbs/db/colls/a", None, &[]).await,
        200
    );
    assert_eq!(
        with_token(
            &gw,
            &read,
            Method::GET,
            "/dbs/db/colls/a/docs/doc1",
            None,
            &pk1
        )
        .await,
        200
    );
    let write = with_token(
        &gw,
        &read,
        Method::POST,
        "/dbs/db/colls/a/docs",
        Some(item.clone()),
        &pk1,
    );
    assert_eq!(write.await, 403, "a Read token refuses a write");
    assert_eq!(
        with_token(&gw, &read, Method::DELETE, "/dbs/db/colls/a", None, &[]).await,
        403
    );
    // A query reads; a procedure's execution writes, whatever headers say it is a query.
    let query = json!({"query": "SELECT * FROM c", "parameters": []});
    let as_query = [
        ("x-ms-documentdb-isquery", "True"),
        ("content-type", "application/query+json"),
        ("x-ms-documentdb-partitionkey", "[1]"),
    ];
    let q = with_token(
        &gw,
        &read,
        Method::POST,
        "/dbs/db/colls/a/docs",
        Some(query),
        &as_query,
    );
    assert_eq!(q.await, 200);
    let run = with_token(
        &gw,
        &read,
        Method::POST,
        "/dbs/db/colls/a/sprocs/p",
        Some(json!([])),
        &as_query,
    );
    assert_eq!(run.await, 403);
    assert_eq!(
        with_token(
            &gw,
            &read,
            Method::GET,
            "/dbs/db/colls/b/docs/doc1",
            None,
            &pk1
        )
        .await,
        403,
        "another container"
    );
    assert_eq!(
        with_token(&gw, &read, Method::GET, "/dbs/db/users", None, &[]).await,
        403,
        "the users feed"
    );
    // All, confined to partition key 1.
    let all = token(
        &create_permission(
            &gw,
            "bob",
            json!({"id": "w", "permissionMode": "All", "resource": "dbs/db/colls/b",
                   "resourcePartitionKey": [1]}),
            &[],
        )
        .await,
    );
    let created = with_token(
        &gw,
        &all,
        Method::POST,
        "/dbs/db/colls/b/docs",
        Some(item),
        &pk1,
    );
    assert_eq!(created.await, 201);
    let other_key = with_token(
        &gw,
        &all,
        Method::POST,
        "/dbs/db/colls/b/docs",
        Some(json!({"id": "doc3", "key": 2})),
        &[("x-ms-documentdb-partitionkey", "[2]")],
    );
    assert_eq!(other_key.await, 403, "another partition key");
    // Forged: one character of the signature changed, or the claims changed.
    let (sig, claims) = all.split_once(';').unwrap();
    let flipped = sig.replacen('=', "A", 1);
    let mut forged_sig = sig.to_owned();
    let last = forged_sig.pop().unwrap();
    forged_sig.push(if last == 'A' { 'B' } else { 'A' });
    for forged in [
        format!("{forged_sig};{claims}"),
        format!("{flipped};{claims}"),
        format!("{sig};{}", claims.replacen('.', "9.", 1)),
    ] {
        let status = with_token(&gw, &forged, Method::GET, "/dbs/db/colls/b", None, &[]).await;
        assert_eq!(status, 401, "forged token {forged}");
    }
    // Deleting the permission ends its tokens; deleting the user ends the others.
    let del = master(
        &gw,
        Method::DELETE,
        "/dbs/db/users/bob/permissions/w",
        "permissions",
        "dbs/db/users/bob/permissions/w",
        Value::Null,
        &[],
    )
    .await;
    assert_eq!(del.status, 204);
    assert_eq!(
        with_token(&gw, &all, Method::GET, "/dbs/db/colls/b", None, &[]).await,
        401
    );
    assert_eq!(
        with_token(&gw, &read, Method::GET, "/dbs/db/colls/a", None, &[]).await,
        200
    );
    let del = master(
        &gw,
        Method::DELETE,
        "/dbs/db/users/bob",
        "users",
        "dbs/db/users/bob",
        Value::Null,
        &[],
    )
    .await;
    assert_eq!(del.status, 204);
    assert_eq!(
        with_token(&gw, &read, Method::GET, "/dbs/db/colls/a", None, &[]).await,
        401
    );
}

#[tokio::test]
async fn tokens_expire_as_asked_within_the_service_bounds_and_go_with_their_database() {
    let gw = TestGateway::start();
    setup(&gw).await;
    assert_eq!(create_user(&gw, "carol").await.status, 201);
    let body = json!({"id": "r", "permissionMode": "Read", "resource": "dbs/db/colls/a"});
    for refused in ["9", "18001", "soon"] {
        let r = create_permission(
            &gw,
            "carol",
            body.clone(),
            &[("x-ms-documentdb-expiry-seconds", refused)],
        )
        .await;
        assert_eq!(r.status, 400, "expiry {refused}: {}", r.body);
    }
    let short = create_permission(
        &gw,
        "carol",
        body,
        &[("x-ms-documentdb-expiry-seconds", "10")],
    )
    .await;
    assert_eq!(short.status, 201, "{}", short.body);
    let short = token(&short);
    // A read of the permission gives a fresh token (default validity: one hour).
    let again = master(
        &gw,
        Method::GET,
        "/dbs/db/users/carol/permissions/r",
        "permissions",
        "dbs/db/users/carol/permissions/r",
        Value::Null,
        &[],
    )
    .await;
    let long = token(&again);
    assert_ne!(long, short);
    assert_eq!(
        with_token(&gw, &short, Method::GET, "/dbs/db/colls/a", None, &[]).await,
        200
    );
    tokio::time::sleep(Duration::from_secs(11)).await;
    assert_eq!(
        with_token(&gw, &short, Method::GET, "/dbs/db/colls/a", None, &[]).await,
        401,
        "expired"
    );
    assert_eq!(
        with_token(&gw, &long, Method::GET, "/dbs/db/colls/a", None, &[]).await,
        200
    );
    // Deleting the database deletes its users: a database of the same name has none.
    let del = master(
        &gw,
        Method::DELETE,
        "/dbs/db",
        "dbs",
        "dbs/db",
        Value::Null,
        &[],
    )
    .await;
    assert_eq!(del.status, 204);
    setup(&gw).await;
    let users = master(
        &gw,
        Method::GET,
        "/dbs/db/users",
        "users",
        "dbs/db",
        Value::Null,
        &[],
    )
    .await;
    assert_eq!(users.body["_count"], 0, "{}", users.body);
    assert_eq!(
        with_token(&gw, &long, Method::GET, "/dbs/db/colls/a", None, &[]).await,
        401
    );
}
