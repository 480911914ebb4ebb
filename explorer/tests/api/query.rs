use sitekit::pages::paging::url_escape;
use sitekit::testing::unescape;

use crate::helpers::spawn_app;

fn query_url(sql: &str, params: &str, pk: &str) -> String {
    format!(
        "/dbs/shop/colls/products/query?sql={}&params={}&pk={}&max=10",
        url_escape(sql),
        url_escape(params),
        url_escape(pk)
    )
}

/// The value of a row of the stats panel.
fn stat(body: &str, name: &str) -> String {
    let at = body
        .find(&format!("<th>{name}</th>"))
        .unwrap_or_else(|| panic!("no {name} in\n{body}"));
    let cell = &body[at..];
    let start = cell.find("<td").unwrap();
    let start = start + cell[start..].find('>').unwrap() + 1;
    let end = cell[start..].find("</td>").unwrap();
    cell[start..start + end].trim().to_owned()
}

#[tokio::test]
async fn the_editor_opens_with_a_default_query_and_no_results() {
    let app = spawn_app(false).await;
    let r = app.get("/dbs/shop/colls/products/query").await;
    assert_eq!(r.status, 200);
    assert!(r.body.contains("SELECT * FROM c"));
    assert!(!r.body.contains("id=\"query-stats\""));
}

#[tokio::test]
async fn a_query_with_parameters_and_a_partition_key_shows_its_stats() {
    let app = spawn_app(false).await;
    let url = query_url(
        "SELECT c.id, c.price FROM c WHERE c.price >= @min",
        r#"{"@min": 120}"#,
        "bikes",
    );
    let r = app.get(&url).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("bike-20") && r.body.contains("bike-24"));
    assert!(!r.body.contains("bike-19"));
    assert!(r.body.contains("id=\"query-stats\""));
    let ru: f64 = stat(&r.body, "Request charge")
        .trim_end_matches(" RUs")
        .parse()
        .unwrap();
    assert!(ru > 2.0, "{ru}");
    assert_eq!(stat(&r.body, "Output document count"), "5");
    assert!(
        stat(&r.body, "Retrieved document count")
            .parse::<u64>()
            .unwrap()
            >= 5
    );
    assert!(stat(&r.body, "Output document size").ends_with("bytes"));
    assert_eq!(stat(&r.body, "Physical partitions visited"), "1");
    assert_eq!(stat(&r.body, "Routing"), "single-partition");
    assert!(stat(&r.body, "Query engine execution time").ends_with("ms"));
    // The footer has the same call.
    assert_eq!(r.engine_calls()[0].2, "single-partition");
}

#[tokio::test]
async fn a_cross_partition_query_fans_out_and_pages_with_the_continuation() {
    let app = spawn_app(false).await;
    let whole = app
        .get(&query_url("SELECT * FROM c", "", "").replace("max=10", "max=100"))
        .await;
    assert_eq!(whole.status, 200);
    assert_eq!(stat(&whole.body, "Physical partitions visited"), "2");
    assert_eq!(stat(&whole.body, "Routing"), "fan-out");
    let r = app.get(&query_url("SELECT * FROM c", "", "")).await;
    assert_eq!(r.status, 200);
    let mut seen = r.body.matches("&#34;id&#34;: ").count();
    let mut body = r.body;
    let mut pages = 1;
    while let Some(at) = body.find("id=\"next-page\"") {
        let href_start = body[..at].rfind("href=\"").unwrap() + 6;
        let href_end = href_start + body[href_start..].find('"').unwrap();
        let next = app.get(&unescape(&body[href_start..href_end])).await;
        assert_eq!(next.status, 200, "{}", next.body);
        body = next.body;
        seen += body.matches("&#34;id&#34;: ").count();
        pages += 1;
        assert!(pages < 10);
    }
    assert_eq!(seen, 28, "every item once over the pages");
    assert!(pages >= 3);
}

#[tokio::test]
async fn a_syntax_error_is_a_400_with_its_position() {
    let app = spawn_app(false).await;
    let r = app
        .get(&query_url("SELECT * FROM c\nWHERE c.price >", "", ""))
        .await;
    assert_eq!(r.status, 400);
    assert!(r.body.contains("id=\"query-error\""), "{}", r.body);
    assert!(
        r.body.contains("syntax error at line 2, column"),
        "{}",
        r.body
    );
    assert!(
        r.body
            .contains("<pre class=\"error-at\">WHERE c.price &#62;\n"),
        "{}",
        r.body
    );
    assert!(
        r.body
            .contains("SELECT * FROM c\nWHERE c.price &#62;</textarea>"),
        "the query is kept"
    );
}

#[tokio::test]
async fn bad_parameters_and_partition_keys_are_400s_with_the_reason() {
    let app = spawn_app(false).await;
    let r = app
        .get(&query_url("SELECT * FROM c WHERE c.id = @id", "{nope", ""))
        .await;
    assert_eq!(r.status, 400);
    assert!(r.body.contains("parameters: not valid JSON"), "{}", r.body);
    let r = app
        .get(&query_url("SELECT * FROM c WHERE c.id = @id", "", ""))
        .await;
    assert_eq!(r.status, 400, "an undefined parameter");
    // Not a value; and two values for a key of one path.
    for pk in ["[[1]]", "[1,2]"] {
        let r = app.get(&query_url("SELECT * FROM c", "", pk)).await;
        assert_eq!(r.status, 400, "{pk}");
        assert!(r.body.contains("partition key"), "{pk}: {}", r.body);
    }
}

/// A hierarchical container: a logical partition is browsed by its full key, and a query takes
/// a prefix (the JSON array of the first values).
#[tokio::test]
async fn a_hierarchical_key_is_typed_as_a_json_array() {
    let app = spawn_app(false).await;
    let c = app
        .engine
        .database("shop")
        .create_container(engine::ContainerProperties::hierarchical(
            "visits",
            &["/tenantId", "/userId"],
        ))
        .await
        .unwrap();
    for i in 0..6 {
        let doc = serde_json::json!({"id": format!("v{i}"), "tenantId": format!("t{}", i % 2), "userId": format!("u{}", i % 3)});
        c.create_item(&doc, None, None).await.unwrap();
    }
    let home = app.get("/").await;
    assert!(home.body.contains("/tenantId, /userId"), "{}", home.body);
    // v4: tenant t0, user u1.
    let key = url_escape(r#"["t0","u1"]"#);
    let r = app
        .get(&format!("/dbs/shop/colls/visits/items?pk={key}"))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("/items/v4"), "{}", r.body);
    let r = app
        .get(&format!("/dbs/shop/colls/visits/items/v4?pk={key}"))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let sql = url_escape("SELECT VALUE c.id FROM c");
    let r = app
        .get(&format!(
            "/dbs/shop/colls/visits/query?sql={sql}&params=&pk={}&max=10",
            url_escape(r#"["t1"]"#)
        ))
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    for id in ["v1", "v3", "v5"] {
        assert!(
            r.body.contains(&format!("&#34;{id}&#34;")) || r.body.contains(&format!("\"{id}\"")),
            "{id}: {}",
            r.body
        );
    }
    assert!(
        !r.body.contains("&#34;v0&#34;") && !r.body.contains("\"v0\""),
        "{}",
        r.body
    );
}
