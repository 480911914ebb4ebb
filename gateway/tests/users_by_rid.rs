//! Users and permissions addressed by resource id (issue 35): the `_self` links the gateway
//! answers (`dbs/{rid}/users/{rid}/`, `dbs/{rid}/users/{rid}/permissions/{rid}/`) read, replace,
//! list and delete what they name, signed as the SDKs sign resource-id links (the last id,
//! lower-cased); an id of no user is the service's 404, a user's id under another database 403.

mod common;

use common::signed::{request, send};
use common::TestGateway;
use reqwest::Method;
use serde_json::json;

/// The ids of a `_self` link `dbs/{a}/users/{b}/...`, without the kinds.
fn ids(self_link: &str) -> Vec<String> {
    self_link
        .split('/')
        .filter(|s| !s.is_empty())
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn users_and_permissions_are_served_by_their_self_links() {
    let gw = TestGateway::start();
    for db in ["d", "e"] {
        let r = send(
            &gw,
            Method::POST,
            "/dbs",
            ("dbs", ""),
            json!({"id": db}),
            &[],
        )
        .await;
        assert_eq!(r.status, 201, "{}", r.body);
    }
    let u = send(
        &gw,
        Method::POST,
        "/dbs/d/users",
        ("users", "dbs/d"),
        json!({"id": "alice"}),
        &[],
    )
    .await;
    assert_eq!(u.status, 201, "{}", u.body);
    let user_self = u.body["_self"].as_str().unwrap().to_owned();
    let p = send(
        &gw,
        Method::POST,
        "/dbs/d/users/alice/permissions",
        ("permissions", "dbs/d/users/alice"),
        json!({"id": "p1", "permissionMode": "Read", "resource": "dbs/d/colls/c"}),
        &[],
    )
    .await;
    assert_eq!(p.status, 201, "{}", p.body);
    let permission_self = p.body["_self"].as_str().unwrap().to_owned();
    let [db_rid, user_rid, permission_rid] =
        <[String; 3]>::try_from(ids(&permission_self)).unwrap();
    assert_eq!(ids(&user_self), [db_rid.clone(), user_rid.clone()]);
    let user_link = ("users", user_rid.to_lowercase());
    let permission_link = ("permissions", permission_rid.to_lowercase());

    // Read by `_self`, as `client_connection.ReadUser(user['_self'])` sends it.
    let r = request(
        &gw,
        Method::GET,
        &format!("/{user_self}"),
        (user_link.0, &user_link.1),
        None,
        &[],
    )
    .await;
    assert_eq!(
        (r.status, &r.body["id"]),
        (200, &json!("alice")),
        "{}",
        r.body
    );
    assert_eq!(r.body["_rid"], json!(user_rid));
    let r = request(
        &gw,
        Method::GET,
        &format!("/{permission_self}"),
        (permission_link.0, &permission_link.1),
        None,
        &[],
    )
    .await;
    assert_eq!((r.status, &r.body["id"]), (200, &json!("p1")), "{}", r.body);
    assert!(r.body["_token"].is_string(), "{}", r.body);

    // The user's permissions feed, signed with the user's id.
    let feed = format!("/dbs/{db_rid}/users/{user_rid}/permissions");
    let r = request(
        &gw,
        Method::GET,
        &feed,
        ("permissions", &user_rid.to_lowercase()),
        None,
        &[],
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["Permissions"][0]["id"], "p1", "{}", r.body);

    // Renamed by `_self`: the resource id stays, so the same link reads the new name.
    let r = send(
        &gw,
        Method::PUT,
        &format!("/{user_self}"),
        (user_link.0, &user_link.1),
        json!({"id": "bob"}),
        &[],
    )
    .await;
    assert_eq!(
        (r.status, &r.body["id"]),
        (200, &json!("bob")),
        "{}",
        r.body
    );
    let r = request(
        &gw,
        Method::GET,
        &format!("/{user_self}"),
        (user_link.0, &user_link.1),
        None,
        &[],
    )
    .await;
    assert_eq!(
        (r.status, &r.body["id"]),
        (200, &json!("bob")),
        "{}",
        r.body
    );

    // Deleted by `_self`; then the same link is the service's 404.
    let r = request(
        &gw,
        Method::DELETE,
        &format!("/{permission_self}"),
        (permission_link.0, &permission_link.1),
        None,
        &[],
    )
    .await;
    assert_eq!(r.status, 204, "{}", r.body);
    let r = request(
        &gw,
        Method::GET,
        &format!("/{permission_self}"),
        (permission_link.0, &permission_link.1),
        None,
        &[],
    )
    .await;
    assert_eq!(r.status, 404, "{}", r.body);
    let r = request(
        &gw,
        Method::DELETE,
        &format!("/{user_self}"),
        (user_link.0, &user_link.1),
        None,
        &[],
    )
    .await;
    assert_eq!(r.status, 204, "{}", r.body);
    let r = request(
        &gw,
        Method::GET,
        &format!("/{user_self}"),
        (user_link.0, &user_link.1),
        None,
        &[],
    )
    .await;
    assert_eq!(r.status, 404, "{}", r.body);

    // A user's id under another database names nothing there: refused before any lookup.
    let other_db = gw
        .engine
        .databases()
        .into_iter()
        .find(|d| d.id == "e")
        .unwrap()
        .resource_id();
    let r = request(
        &gw,
        Method::GET,
        &format!("/dbs/{other_db}/users/{user_rid}"),
        (user_link.0, &user_link.1),
        None,
        &[],
    )
    .await;
    assert_eq!(r.status, 403, "{}", r.body);
}
