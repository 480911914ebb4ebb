use serde_json::{json, Value};

use crate::helpers::{assert_charge_adds_up, routings, spawn_app};
use webstore::seed::catalog::catalog;

async fn count_and_orders(app: &crate::helpers::TestApp, customer_id: &str) -> (u64, usize) {
    let c = app.engine.database("webstore").container("customer");
    let docs = c
        .read_all_items_in_partition::<Value>(customer_id)
        .await
        .unwrap()
        .items;
    let count = docs.iter().find(|d| d["type"] == "customer").unwrap()["salesOrderCount"]
        .as_u64()
        .unwrap();
    (
        count,
        docs.iter().filter(|d| d["type"] == "salesOrder").count(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cart_survives_sign_in_and_checkout_runs_the_procedure() {
    let app = spawn_app().await;
    let cat = catalog();
    let (a, b) = (&cat.products[10], &cat.products[200]);
    let v = app.visitor();
    for (p, qty) in [(a, "2"), (b, "1")] {
        let r = v
            .submit(
                &format!("/products/{}/{}", p.category_id, p.id),
                "/cart/add",
                &[
                    ("category_id", &p.category_id),
                    ("product_id", &p.id),
                    ("quantity", qty),
                ],
            )
            .await;
        assert_eq!(r.status, 303, "{}", r.body);
    }
    let r = v.get("/cart").await;
    assert!(
        r.body.contains(&format!("{:.2}", a.price * 2.0 + b.price)),
        "total shown"
    );
    assert!(r.body.contains("Sign in to check out"));
    // Checkout needs a customer.
    let token = r.csrf_token();
    assert_eq!(
        v.post("/checkout", &[("csrf_token", &token)])
            .await
            .location(),
        "/signin"
    );

    // Sign in: the cart is still there.
    let r = v
        .submit(
            "/signin",
            "/signin",
            &[
                ("email", webstore::seed::DEMO_EMAIL),
                ("password", webstore::seed::DEMO_PASSWORD),
            ],
        )
        .await;
    assert_eq!(r.status, 303);
    let r = v.get("/cart").await;
    assert!(r.body.contains(&sitekit::testing::escape(&a.name)));
    let before = count_and_orders(&app, "cust-demo").await;
    assert_eq!(before.0 as usize, before.1);

    let r = v
        .post("/checkout", &[("csrf_token", &r.csrf_token())])
        .await;
    assert_eq!(r.status, 303, "{}", r.body);
    let order_url = r.location().to_owned();
    assert!(order_url.starts_with("/orders/order-"));
    assert!(
        r.request_charge() > 10.0,
        "reads of the cart's products plus the procedure"
    );
    assert_eq!(
        count_and_orders(&app, "cust-demo").await,
        (before.0 + 1, before.1 + 1)
    );

    let placed = r.request_charge();
    let r = v.get(&order_url).await;
    assert_eq!(r.status, 200);
    assert!(r.body.contains(&a.sku) && r.body.contains(&b.sku));
    assert!(r.body.contains("Thank you"));
    assert_eq!(routings(&r), ["point"]);
    // The order's cost is on the page the redirect led to ("your last action"), once: the
    // procedure's row and a total that is what the POST answered in its header.
    assert!(r.body.contains("for your last action"), "{}", r.body);
    let last = r.last_action_calls();
    let procedure = last
        .iter()
        .find(|c| c.0.ends_with("execute createOrder"))
        .unwrap_or_else(|| panic!("createOrder in the last action: {last:?}"));
    assert_eq!(procedure.2, "stored procedure");
    assert!(procedure.3 > 1.0, "{procedure:?}");
    let total: f64 = last.iter().map(|c| c.3).sum();
    assert!((total - placed).abs() < 0.02, "{total} vs {placed}");
    assert!(v.get(&order_url).await.last_action_calls().is_empty());
    let r = v.get("/orders").await;
    assert_eq!(routings(&r), ["single-partition"]);
    assert!(r.body.contains(&order_url));
    assert_charge_adds_up(&r);
    // The cart is empty after checkout.
    assert!(v.get("/cart").await.body.contains("Your cart is empty"));

    // Another customer cannot see the order: it is not in their partition.
    let other = app.new_customer("other@example.com").await;
    assert_eq!(other.get(&order_url).await.status, 404);
    assert!(!other.get("/orders").await.body.contains(&order_url));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failing_procedure_leaves_no_order_and_no_count_change() {
    let app = spawn_app().await;
    let c = &app.store.containers.customer;
    let before = count_and_orders(&app, "cust-demo").await;
    let existing = app
        .engine
        .database("webstore")
        .container("customer")
        .read_all_items_in_partition::<Value>("cust-demo")
        .await
        .unwrap()
        .items
        .into_iter()
        .find(|d| d["type"] == "salesOrder")
        .expect("the demo customer has orders");
    // An order whose id exists: the count was already patched when the create fails (409).
    let mut dup = existing.clone();
    dup["details"] = json!([{"sku": "X", "name": "X", "price": 1.0, "quantity": 1}]);
    let e = c
        .execute_stored_procedure::<Value>("createOrder", "cust-demo", &[dup])
        .await
        .unwrap_err();
    assert_eq!(e.status_code(), 409);
    // An order without lines, or for a customer that does not exist.
    let empty =
        json!({"id": "o-empty", "type": "salesOrder", "customerId": "cust-demo", "details": []});
    let e = c
        .execute_stored_procedure::<Value>("createOrder", "cust-demo", &[empty])
        .await
        .unwrap_err();
    assert_eq!(e.status_code(), 400);
    let ghost = json!({"id": "o-ghost", "type": "salesOrder", "customerId": "cust-ghost", "details": [{"sku": "X"}]});
    let e = c
        .execute_stored_procedure::<Value>("createOrder", "cust-ghost", &[ghost])
        .await
        .unwrap_err();
    assert_eq!(e.status_code(), 404);
    assert_eq!(count_and_orders(&app, "cust-demo").await, before);
}

#[tokio::test(flavor = "multi_thread")]
async fn cart_input_is_checked() {
    let app = spawn_app().await;
    let p = &catalog().products[0];
    let v = app.visitor();
    let page = format!("/products/{}/{}", p.category_id, p.id);
    let r = v
        .submit(
            &page,
            "/cart/add",
            &[("category_id", &p.category_id), ("product_id", "prod-nope")],
        )
        .await;
    assert_eq!(r.status, 404);
    // Issue 37: a quantity out of range (the form's min/max stop a browser, not a hand-made
    // post) is the product page again with the message beside the field and what was typed,
    // still a 400; nothing is added.
    for typed in ["0", "100", "many", "1e9", "-1"] {
        let r = v
            .submit(
                &page,
                "/cart/add",
                &[
                    ("category_id", &p.category_id),
                    ("product_id", &p.id),
                    ("quantity", typed),
                ],
            )
            .await;
        assert_eq!(r.status, 400, "{typed}");
        assert!(
            r.body.contains(r#"<p class="field-error" id="quantity-error">Quantity must be a whole number from 1 to 99.</p>"#),
            "{typed}: {}",
            r.body
        );
        assert!(
            r.body
                .contains(&format!(r#"name="quantity" value="{typed}""#)),
            "{typed}: what was typed is kept: {}",
            r.body
        );
        assert!(
            r.body
                .contains(&format!(r#"name="product_id" value="{}""#, p.id)),
            "the product's own form: {}",
            r.body
        );
        assert!(
            r.body.contains("<strong>1.00 RU</strong> for this page"),
            "the footer counts the product's read: {}",
            r.body
        );
    }
    let r = v.get("/cart").await;
    assert!(r.body.contains("Your cart is empty"), "{}", r.body);
    let v = app.demo().await;
    let r = v.submit("/cart", "/checkout", &[]).await;
    assert_eq!(r.status, 400);
    assert!(r.body.contains("Your cart is empty"));
}
