use serde_json::Value;

use crate::helpers::{eventually, routings, spawn_app, TestApp};
use webstore::seed::catalog::catalog;

const ADMIN_PAGES: [&str; 5] = [
    "/admin",
    "/admin/customers/top",
    "/admin/categories",
    "/admin/tags",
    "/admin/products",
];

#[tokio::test(flavor = "multi_thread")]
async fn back_office_pages_need_the_admin() {
    let app = spawn_app().await;
    let anonymous = app.visitor();
    let customer = app.demo().await;
    let admin = app.admin().await;
    for page in ADMIN_PAGES {
        let r = anonymous.get(page).await;
        let back = format!("/signin?next={}", page.replace('/', "%2F"));
        assert_eq!((r.status, r.location()), (303, back.as_str()), "{page}");
        assert_eq!(customer.get(page).await.status, 403, "{page}");
        assert_eq!(admin.get(page).await.status, 200, "{page}");
    }
    // `/admin` says what each back-office page is and links to it.
    let index = admin.get("/admin").await;
    for page in &ADMIN_PAGES[1..] {
        assert!(index.body.contains(&format!("href=\"{page}\"")), "{page}");
    }
    // Renames too.
    let r = customer
        .submit("/", "/admin/tags/x/rename", &[("name", "y")])
        .await;
    assert_eq!(r.status, 403);
}

#[tokio::test(flavor = "multi_thread")]
async fn top_customers_is_the_articles_fan_out_sorted_by_order_count() {
    let app = spawn_app().await;
    let r = app.admin().await.get("/admin/customers/top").await;
    assert_eq!(routings(&r), ["fan-out"]);
    let table = &r.body[..r.body.find("<footer").unwrap()];
    let counts: Vec<u64> = table
        .split("<td class=\"num\">")
        .skip(1)
        .map(|s| s[..s.find('<').unwrap()].parse().unwrap())
        .collect();
    assert_eq!(counts.len(), 25);
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "{counts:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn tags_and_categories_show_40_rows_and_fold_the_rest() {
    let app = spawn_app().await;
    let admin = app.admin().await;
    let cat = catalog();
    for (page, all) in [
        ("/admin/tags", cat.tags.len()),
        ("/admin/categories", cat.categories.len()),
    ] {
        let r = admin.get(page).await;
        assert_eq!(r.status, 200);
        let body = &r.body[..r.body.find("<footer").unwrap()];
        let rows = |html: &str| html.matches("<tr><td><code>").count();
        // Each rename field names what it renames (not 40 fields labelled alike).
        let labels = body.matches("aria-label=\"New name for ").count();
        assert_eq!(labels, rows(body), "{page}");
        match body.find("<details class=\"more\" id=\"more-rows\">") {
            Some(fold) => {
                assert_eq!(rows(&body[..fold]), 40, "{page}");
                assert_eq!(rows(&body[fold..]), all - 40, "{page}");
                assert!(body[fold..].contains(&format!("{} more", all - 40)));
            }
            None => assert!(
                all <= 40 && rows(body) == all,
                "{page}: {all} rows, no fold"
            ),
        }
    }
    assert!(cat.tags.len() > 40, "the tags page folds");
}

async fn product_names(app: &TestApp) -> Vec<Value> {
    app.engine
        .database("webstore")
        .container("product")
        .read_all_items::<Value>(10_000, None)
        .await
        .unwrap()
        .items
}

#[tokio::test(flavor = "multi_thread")]
async fn renames_reach_every_product_through_the_change_feed() {
    let app = spawn_app().await;
    let admin = app.admin().await;
    let cat = catalog();
    let category = &cat.products[0].category_id;
    let r = admin
        .submit(
            "/admin/categories",
            &format!("/admin/categories/{category}/rename"),
            &[("name", "Renamed Category")],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.body);

    // A tag carried by products of several categories: a fan-out to update.
    let tag = cat
        .tags
        .iter()
        .max_by_key(|t| {
            cat.products
                .iter()
                .filter(|p| p.tags.iter().any(|x| x.id == t.id))
                .count()
        })
        .unwrap();
    let r = admin
        .submit(
            "/admin/tags",
            &format!("/admin/tags/{}/rename", tag.id),
            &[("name", "Renamed <Tag>")],
        )
        .await;
    assert_eq!(r.status, 303);

    eventually("every copy renamed", || async {
        product_names(&app).await.iter().all(|p| {
            (p["categoryId"] != category.as_str() || p["categoryName"] == "Renamed Category")
                && p["tags"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|t| t["id"] != tag.id.as_str() || t["name"] == "Renamed <Tag>")
        })
    })
    .await;
    // The home page's featured list copies category names too (it kept the old one forever).
    let meta = app.engine.database("webstore").container("productMeta");
    eventually("the featured list renamed", || async {
        let featured = meta
            .read_item::<serde_json::Value>("featured", "featured", None)
            .await
            .unwrap()
            .resource
            .unwrap();
        featured["products"].as_array().unwrap().iter().all(|p| {
            p["categoryId"] != category.as_str() || p["categoryName"] == "Renamed Category"
        })
    })
    .await;
    eventually("the admin page says done", || async {
        admin
            .get("/admin/tags")
            .await
            .body
            .contains("Propagation done")
    })
    .await;
    let r = admin.get(&format!("/tags/{}", tag.id)).await;
    assert!(
        r.body.contains("Renamed &#60;Tag&#62;"),
        "escaped on the page"
    );
    // An empty name is refused with a message.
    let r = admin
        .submit(
            "/admin/tags",
            &format!("/admin/tags/{}/rename", tag.id),
            &[("name", "  ")],
        )
        .await;
    assert_eq!(r.status, 400);
    assert!(r.body.contains("The new name is required"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rename_made_while_the_worker_is_down_propagates_after_restart() {
    let app = spawn_app().await;
    let admin = app.admin().await;
    let tag = &catalog().tags[1];
    app.store.stop().await;
    let r = admin
        .submit(
            "/admin/tags",
            &format!("/admin/tags/{}/rename", tag.id),
            &[("name", "While Down")],
        )
        .await;
    assert_eq!(r.status, 303);
    let r = admin.get("/admin/tags").await;
    assert!(r.body.contains("Propagating: 1 change"), "{}", r.body);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(product_names(&app).await.iter().any(|p| p["tags"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["id"] == tag.id.as_str() && t["name"] != "While Down")));

    // A new worker (as after a restart) resumes from the leases' checkpoints.
    let restarted = webstore::WebStore::start(
        &app.backend.account,
        &webstore::WebStoreOptions {
            customers: crate::helpers::CUSTOMERS,
        },
    )
    .await
    .unwrap();
    eventually("renamed after restart", || async {
        product_names(&app).await.iter().all(|p| {
            p["tags"]
                .as_array()
                .unwrap()
                .iter()
                .all(|t| t["id"] != tag.id.as_str() || t["name"] == "While Down")
        })
    })
    .await;
    restarted.stop().await;
}

/// Issue 37: the page a rename lands on shows what the change feed's worker did for it — copies
/// rewritten and the RU they cost — refreshing itself until the worker is done.
#[tokio::test(flavor = "multi_thread")]
async fn a_renames_page_shows_the_copies_rewritten_and_their_ru() {
    let app = spawn_app().await;
    let admin = app.admin().await;
    let cat = catalog();
    let category = cat.products[0].category_id.clone();
    // The copies of the category's name: its products, and its entries in the featured list.
    let featured = app
        .engine
        .database("webstore")
        .container("productMeta")
        .read_item::<Value>("featured", "featured", None)
        .await
        .unwrap()
        .resource
        .unwrap();
    let in_featured = featured["products"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["categoryId"] == category.as_str())
        .count();
    let products = cat
        .products
        .iter()
        .filter(|p| p.category_id == category)
        .count();
    assert!(products > 1);
    let r = admin
        .submit(
            "/admin/categories",
            &format!("/admin/categories/{category}/rename"),
            &[("name", "Bikes & <Trikes>")],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    let status = r.location().to_owned();
    assert!(
        status.starts_with(&format!("/admin/renames/category/{category}?")),
        "{status}"
    );

    let page = eventually_page(&admin, &status).await;
    assert!(page.contains("Bikes &#38; &#60;Trikes&#62;"), "escaped");
    assert!(
        !page.contains("http-equiv=\"refresh\""),
        "a finished rename stops refreshing"
    );
    let copies: usize = between(&page, "id=\"copies-rewritten\">", "<")
        .parse()
        .unwrap();
    let ru: f64 = between(&page, "id=\"copies-ru\">", " RU").parse().unwrap();
    // Every patch of a copy is a write (≥ 1 RU), and the stale copies had to be found first.
    assert_eq!(copies, products + usize::from(in_featured > 0), "{page}");
    assert!(ru > copies as f64, "{ru} RU for {copies} copies");

    // Another app process (here: this one restarted) serves the same link: its worker did not
    // carry the rename, so its page reads the figures the worker kept in `leases`.
    app.store.stop().await;
    let restarted = webstore::WebStore::start(
        &app.backend.account,
        &webstore::WebStoreOptions {
            customers: crate::helpers::CUSTOMERS,
        },
    )
    .await
    .unwrap();
    let other = sitekit::testing::TestApp::serve(webstore::SITE, restarted.configure(), 1);
    let other_admin = other.visitor();
    let r = other_admin
        .submit(
            "/signin",
            "/signin",
            &[
                ("email", webstore::seed::ADMIN_EMAIL),
                ("password", webstore::seed::ADMIN_PASSWORD),
            ],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    let r = other_admin.get(&status).await;
    assert!(r.body.contains(": done."), "{}", r.body);
    assert_eq!(
        between(&r.body, "id=\"copies-rewritten\">", "<"),
        copies.to_string()
    );
    assert_eq!(
        between(&r.body, "id=\"copies-ru\">", " RU"),
        format!("{ru:.2}")
    );
    assert!(
        r.body.contains("read the rename&#39;s figures (leases)")
            || r.body.contains("read the rename&#x27;s figures (leases)"),
        "the page's footer shows the read: {}",
        r.body
    );
    restarted.stop().await;

    // Only admins see it; an unknown kind is a 404.
    assert_ne!(app.visitor().get(&status).await.status, 200);
    let r = admin.get("/admin/renames/shelf/x?to=y&at=1").await;
    assert_eq!(r.status, 404);
}

/// The status page, once it says done (it refreshes itself every 2 s until then).
async fn eventually_page(admin: &sitekit::testing::Visitor, path: &str) -> String {
    for _ in 0..300 {
        let r = admin.get(path).await;
        assert_eq!(r.status, 200, "{}", r.body);
        if r.body.contains(": done.") {
            return r.body;
        }
        assert!(
            r.body.contains("http-equiv=\"refresh\""),
            "refreshes while in progress"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the rename's page never said done");
}

fn between<'a>(s: &'a str, from: &str, to: &str) -> &'a str {
    let at = s.find(from).unwrap_or_else(|| panic!("{from} not in {s}")) + from.len();
    &s[at..at + s[at..].find(to).unwrap()]
}
