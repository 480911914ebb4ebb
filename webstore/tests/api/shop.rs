use crate::helpers::{assert_charge_adds_up, routings, spawn_app};
use webstore::seed::catalog::catalog;

#[tokio::test(flavor = "multi_thread")]
async fn home_shows_categories_and_featured_products_from_product_meta() {
    let app = spawn_app().await;
    let r = app.visitor().get("/").await;
    assert_eq!(r.status, 200);
    let cat = catalog();
    for c in cat.categories.iter().take(5) {
        assert!(
            r.body.contains(&sitekit::testing::escape(&c.name)),
            "missing {}",
            c.name
        );
    }
    assert!(r.body.contains("Featured"));
    assert_eq!(
        routings(&r),
        ["single-partition", "point"],
        "{:?}",
        r.engine_calls()
    );
    assert!(r.engine_calls().iter().all(|c| c.1 == "productMeta"));
    assert_charge_adds_up(&r);
}

fn prices(body: &str) -> Vec<f64> {
    body.split("<p class=\"price\">$")
        .skip(1)
        .map(|s| s[..s.find('<').unwrap()].replace(',', "").parse().unwrap())
        .collect()
}

fn names(body: &str) -> Vec<String> {
    body.split("class=\"card-title\">")
        .skip(1)
        .map(|s| sitekit::testing::unescape(&s[..s.find('<').unwrap()]))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn category_pages_are_single_partition_sorted_and_paged_by_continuation() {
    let app = spawn_app().await;
    let cat = catalog();
    // The category with the most products, so it spans pages.
    let category = cat
        .categories
        .iter()
        .max_by_key(|c| {
            cat.products
                .iter()
                .filter(|p| p.category_id == c.id)
                .count()
        })
        .unwrap();
    let expected = cat
        .products
        .iter()
        .filter(|p| p.category_id == category.id)
        .count();
    let v = app.visitor();
    for (sort, check) in [
        (
            "price",
            (|a: &[f64]| a.windows(2).all(|w| w[0] <= w[1])) as fn(&[f64]) -> bool,
        ),
        ("price_desc", |a: &[f64]| a.windows(2).all(|w| w[0] >= w[1])),
    ] {
        let mut path = format!("/categories/{}?sort={sort}", category.id);
        let mut all = Vec::new();
        let mut pages = 0;
        let mut first_page = Vec::new();
        loop {
            let r = v.get(&path).await;
            assert_eq!(r.status, 200, "{}", r.body);
            assert_eq!(routings(&r), ["single-partition"]);
            assert_charge_adds_up(&r);
            let here = prices(&r.body);
            pages += 1;
            if pages == 1 {
                first_page = here.clone();
                assert!(pager_link(&r.body, "prev").is_none());
            } else {
                // Back one page, and to the first, without the server keeping anything.
                let prev = v.get(&pager_link(&r.body, "prev").expect("previous")).await;
                assert_eq!(
                    prices(&prev.body),
                    all[all.len() - 12..],
                    "{sort}: previous page"
                );
                let first = v.get(&pager_link(&r.body, "first").expect("first")).await;
                assert_eq!(prices(&first.body), first_page, "{sort}: first page");
            }
            all.extend(here);
            match next_link(&r.body) {
                Some(next) => path = next,
                None => break,
            }
        }
        assert_eq!(all.len(), expected, "{sort}: every product once");
        assert!(check(&all), "{sort}: {all:?}");
        assert_eq!(pages, expected.div_ceil(12).max(1));
    }
    let r = v
        .get(&format!("/categories/{}?sort=name", category.id))
        .await;
    let n = names(&r.body);
    assert!(n.windows(2).all(|w| w[0] <= w[1]), "{n:?}");
    // A forged continuation is a 400 with a message, not a 500.
    let r = v
        .get(&format!("/categories/{}?page=bm90IGEgdG9rZW4", category.id))
        .await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(
        r.body.contains("That page link is no longer valid."),
        "{}",
        r.body
    );
    // The same on every listing (tags and search used to show the engine's raw message).
    let tag = &catalog().tags[0].id;
    for url in [
        format!("/tags/{tag}?page=bm90IGEgdG9rZW4"),
        "/search?q=bike&page=bm90IGEgdG9rZW4".to_owned(),
    ] {
        let r = v.get(&url).await;
        assert_eq!(r.status, 400, "{url}: {}", r.body);
        assert!(
            r.body.contains("That page link is no longer valid."),
            "{url}"
        );
    }
    // An unknown category has no products and no document: 404.
    assert_eq!(v.get("/categories/no-such-category").await.status, 404);
}

/// The `href` of the pager's link with `rel` (`next`, `prev`, `first`).
fn pager_link(body: &str, rel: &str) -> Option<String> {
    let end = body.find(&format!("rel=\"{rel}\""))?;
    let at = body[..end].rfind("href=\"")? + "href=\"".len();
    let close = body[at..].find('"')?;
    Some(sitekit::testing::unescape(&body[at..at + close]))
}

fn next_link(body: &str) -> Option<String> {
    pager_link(body, "next")
}

#[tokio::test(flavor = "multi_thread")]
async fn product_page_is_one_point_read_with_denormalized_names() {
    let app = spawn_app().await;
    let p = &catalog().products[7];
    let v = app.visitor();
    let r = v
        .get(&format!("/products/{}/{}", p.category_id, p.id))
        .await;
    assert_eq!(r.status, 200);
    assert!(r.body.contains(&p.sku));
    for t in &p.tags {
        assert!(
            r.body.contains(&sitekit::testing::escape(&t.name)),
            "tag {}",
            t.name
        );
    }
    assert_eq!(routings(&r), ["point"]);
    assert!(
        r.request_charge() >= 1.0 && r.request_charge() < 2.0,
        "{}",
        r.request_charge()
    );
    // The right id in the wrong partition is not found: point reads need both.
    let other = catalog()
        .categories
        .iter()
        .find(|c| c.id != p.category_id)
        .unwrap()
        .id
        .clone();
    let r = v.get(&format!("/products/{other}/{}", p.id)).await;
    assert_eq!(r.status, 404);
    assert!(r.body.contains("404"));
}

#[tokio::test(flavor = "multi_thread")]
async fn tag_pages_and_search_fan_out_and_say_so() {
    let app = spawn_app().await;
    let cat = catalog();
    let tag = &cat.products[3].tags[0];
    let carriers = cat
        .products
        .iter()
        .filter(|p| p.tags.iter().any(|t| t.id == tag.id))
        .count();
    let v = app.visitor();
    let r = v.get(&format!("/tags/{}", tag.id)).await;
    assert_eq!(r.status, 200);
    assert_eq!(routings(&r), ["fan-out"]);
    assert!(r.body.contains("fans out"));
    // One physical partition now: the footer says so beside "fan-out".
    assert!(r.body.contains("every partition; this container has 1 now"));
    assert_eq!(names(&r.body).len(), carriers.min(24));

    let word = cat.products[0]
        .name
        .split_whitespace()
        .next()
        .unwrap()
        .to_lowercase();
    let r = v.get(&format!("/search?q={word}")).await;
    assert_eq!(r.status, 200);
    assert_eq!(routings(&r), ["fan-out"]);
    let found = names(&r.body);
    assert!(!found.is_empty());
    assert!(
        found.iter().all(|n| n.to_lowercase().contains(&word)),
        "{found:?}"
    );

    // Output is escaped.
    let r = v.get("/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E").await;
    assert_eq!(r.status, 200);
    assert!(!r.body.contains("<script>"));
    assert!(r.body.contains("&#60;script&#62;"));
    // Overlong search text is refused with a message.
    let r = v.get(&format!("/search?q={}", "x".repeat(101))).await;
    assert_eq!(r.status, 400);
    assert!(r.body.contains("100 characters"));
}

/// Issue 37: pages are gzipped when the browser asks, their RU header intact; a client that
/// does not ask gets the page as it is, footer and all.
#[tokio::test(flavor = "multi_thread")]
async fn pages_are_gzipped_when_asked_and_keep_their_charge() {
    let app = spawn_app().await;
    let v = app.visitor();
    let r = v
        .client
        .get(format!("{}/", v.base))
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-encoding"], "gzip");
    let charge: f64 = r.headers()["x-ms-request-charge"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(charge > 0.0);
    let body = r.bytes().await.unwrap();
    assert_eq!(&body[..2], &[0x1f, 0x8b], "a gzip stream");
    let plain = v.get("/").await;
    assert!(plain.headers.get("content-encoding").is_none());
    assert!(
        body.len() * 3 < plain.body.len(),
        "{} bytes gzipped, {} plain",
        body.len(),
        plain.body.len()
    );
    assert!(
        plain.body.contains("RU</strong> for this page"),
        "{} {}",
        plain.status,
        plain.body
    );
    // The stylesheet too.
    let r = v
        .client
        .get(format!("{}/static/site.css", v.base))
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["content-encoding"], "gzip");
}

/// Issue 37: the home, category and product pages say which access pattern they are, and the
/// footer says the partitions it counts are physical ones.
#[tokio::test(flavor = "multi_thread")]
async fn the_shops_main_pages_explain_their_pattern() {
    let app = spawn_app().await;
    let p = &catalog().products[5];
    for (path, says) in [
        (
            "/".to_owned(),
            "one point read of the <code>featured</code> document",
        ),
        (
            format!("/categories/{}", p.category_id),
            "One single-partition query",
        ),
        (
            format!("/products/{}/{}", p.category_id, p.id),
            "A point read",
        ),
    ] {
        let r = app.visitor().get(&path).await;
        assert_eq!(r.status, 200, "{path}");
        assert!(
            r.body.contains("id=\"pattern-note\"") && r.body.contains(says),
            "{path}"
        );
        assert!(r.body.contains("physical partitions</th>"), "{path}");
    }
    // Footer rows carry their pattern's code, a point read its partition key value.
    let r = app
        .visitor()
        .get(&format!("/products/{}/{}", p.category_id, p.id))
        .await;
    let row = format!("[Q4] read product (categoryId {})", p.category_id);
    assert!(
        r.engine_calls().iter().any(|c| c.0 == row),
        "{row} in {:?}",
        r.engine_calls()
    );
    let home = app.visitor().get("/").await;
    let ops: Vec<String> = home.engine_calls().into_iter().map(|c| c.0).collect();
    assert!(ops.iter().any(|o| o.starts_with("[Q1] ")), "{ops:?}");
    assert!(ops.iter().any(|o| o.starts_with("[Q2] ")), "{ops:?}");
    // ...and the footer links to where the codes are explained, which the shop serves.
    assert!(
        home.body
            .contains(r#"<a href="/access-patterns" id="access-patterns">"#),
        "{}",
        home.body
    );
    let patterns = app.visitor().get("/access-patterns").await;
    assert_eq!(patterns.status, 200);
    assert_eq!(
        patterns.headers["content-type"],
        "text/plain; charset=utf-8"
    );
    assert!(
        patterns.body.starts_with("# WebStore access patterns")
            && patterns.body.contains("[Q4] `product_by_id`"),
        "{}",
        patterns.body
    );
}

/// Issue 37: a query's row in the footer shows the query's text, escaped as HTML (the tag query's
/// `{"id": @tagId}` carries quotes), so a page's cost sits beside the SQL that made it.
#[tokio::test(flavor = "multi_thread")]
async fn footer_rows_show_their_query_text_escaped() {
    let app = spawn_app().await;
    let tag = &catalog().products[3].tags[0];
    let r = app.visitor().get(&format!("/tags/{}", tag.id)).await;
    assert_eq!(r.status, 200);
    let sql = "SELECT * FROM p WHERE ARRAY_CONTAINS(p.tags, {\"id\": @tagId}, true)";
    assert_eq!(r.queries(), [sql], "{}", r.body);
    assert!(
        r.body
            .contains("ARRAY_CONTAINS(p.tags, {&#34;id&#34;: @tagId}, true)</code>"),
        "the query's quotes are escaped"
    );
    // The operation column still reads as the pattern's label alone.
    assert!(
        r.engine_calls()
            .iter()
            .any(|c| c.0.starts_with("[Q") && !c.0.contains("SELECT")),
        "{:?}",
        r.engine_calls()
    );
    // A point read has no query text.
    let p = &catalog().products[7];
    let r = app
        .visitor()
        .get(&format!("/products/{}/{}", p.category_id, p.id))
        .await;
    assert!(r.queries().is_empty(), "{:?}", r.queries());
}

/// Issue 37: a missing product costs what Cosmos DB charges for the 404 point read (1 RU), and
/// the page says so in its header badge, its footer and `x-ms-request-charge`.
#[tokio::test(flavor = "multi_thread")]
async fn a_missing_products_page_shows_the_404s_charge() {
    let app = spawn_app().await;
    let p = &catalog().products[7];
    let r = app
        .visitor()
        .get(&format!("/products/{}/no-such-product", p.category_id))
        .await;
    assert_eq!(r.status, 404, "{}", r.body);
    assert!(r.request_charge() >= 1.0, "header {}", r.request_charge());
    let calls = r.engine_calls();
    let footer: f64 = calls.iter().map(|c| c.3).sum();
    assert!(footer >= 1.0, "footer rows {calls:?}");
    let badge = r
        .body
        .split("id=\"ru-badge\"")
        .nth(1)
        .expect("the RU badge");
    let badge = &badge[badge.find('>').unwrap() + 1..badge.find(" RU</a>").unwrap()];
    assert!(
        badge.parse::<f64>().unwrap() >= 1.0,
        "the header badge says {badge} RU"
    );
    assert!(
        r.body.contains(&format!(
            "<strong>{:.2} RU</strong> for this page",
            r.request_charge()
        )),
        "the footer's total is the header's"
    );
}

/// Issue 37: another customer's order is a 404 (it is not in the visitor's partition), and the
/// page shows the point read that found nothing — 1 RU, as Cosmos DB charges a 404 — beside the
/// session read, not the session read alone.
#[tokio::test(flavor = "multi_thread")]
async fn another_customers_order_is_a_404_that_shows_its_read() {
    let app = spawn_app().await;
    let theirs = app
        .store
        .containers
        .customer
        .query_all::<String>(
            "SELECT VALUE c.id FROM c WHERE c.type = 'salesOrder'",
            cosmos::NO_PARAMS,
            cosmos::QueryOptions {
                partition_key: Some("cust-demo".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap()
        .items;
    let order = theirs.first().expect("the demo customer has seeded orders");
    let other = app.new_customer("nosy@example.com").await;
    let r = other.get(&format!("/orders/{order}")).await;
    assert_eq!(r.status, 404, "{}", r.body);
    let calls = r.engine_calls();
    assert!(
        calls
            .iter()
            .any(|c| c.0.contains("[Q10] read sales order") && c.3 >= 1.0),
        "the order's read is in the footer: {calls:?}"
    );
    assert!(r.request_charge() >= 2.0, "session + order read: {calls:?}");
}
