//! Demo data on first start: the CosmicWorks-sized catalogue and `--customers N` customers with
//! their orders, deterministic (same ids and contents on every machine), written with upserts so
//! a seed interrupted by a crash simply runs again. A marker document written last tells a later
//! start that the data is complete.

pub mod catalog;
pub mod people;

use cosmos::TransactionalBatch;
use futures_util::{stream, TryStreamExt};
use indicatif::ProgressBar;
use serde_json::{json, Value};

use crate::access::create_customer::login_partition;
use crate::access::featured_products::FEATURED_ID;
use crate::containers::Containers;
use crate::model::{Customer, EmailLogin, Featured, FeaturedProduct, Product};

/// The accounts printed at start-up (and in the README).
pub const DEMO_EMAIL: &str = "demo@webstore.example";
pub const DEMO_PASSWORD: &str = "demo-password";
pub const ADMIN_EMAIL: &str = "admin@webstore.example";
pub const ADMIN_PASSWORD: &str = "admin-password";

const MARKER_ID: &str = "seed";
/// Writes in flight while seeding: enough for the engine's group commit to batch them.
const IN_FLIGHT: usize = 64;

/// Seeds unless a complete seed is there; returns the number of customers the data holds.
pub async fn seed_if_needed(c: &Containers, customers: u64) -> cosmos::Result<u64> {
    if let Ok(r) = c
        .product_meta
        .read_item::<Value>(MARKER_ID, "seed", None)
        .await
    {
        let doc = r.resource.unwrap_or_default();
        return Ok(doc["customers"].as_u64().unwrap_or(0));
    }
    let started = std::time::Instant::now();
    let catalog = catalog::catalog();
    let bar = progress(
        (catalog.categories.len() + catalog.tags.len() + catalog.products.len()) as u64
            + customers
            + 2,
    );
    bar.set_message("catalogue");
    for doc in catalog
        .categories
        .iter()
        .map(to_value)
        .chain(catalog.tags.iter().map(to_value))
    {
        c.product_meta.upsert_item(&doc?, None, None).await?;
        bar.inc(1);
    }
    stream::iter(catalog.products.iter().map(Ok))
        .try_for_each_concurrent(IN_FLIGHT, |p| {
            let bar = bar.clone();
            async move {
                c.product.upsert_item(p, None, None).await?;
                bar.inc(1);
                Ok::<_, cosmos::Error>(())
            }
        })
        .await?;
    c.product_meta
        .upsert_item(&featured(&catalog.products), None, None)
        .await?;

    bar.set_message("customers and orders");
    // Nobody knows this password: seeded customers exist to be listed and measured, not signed
    // into. Hashing once keeps a 100 000-customer seed from spending an hour in argon2.
    let unknown = sitekit::accounts::auth::hash_password(format!("{:x}", rand::random::<u128>()))
        .await
        .map_err(|e| cosmos::Error::bad_request(e.to_string()))?;
    let products = &catalog.products;
    stream::iter((1..=customers).map(Ok))
        .try_for_each_concurrent(IN_FLIGHT, |n| {
            let (bar, unknown) = (bar.clone(), unknown.as_str());
            async move {
                let (customer, orders) = people::customer(n, unknown, products);
                write_customer(c, &customer, &orders).await?;
                bar.inc(1);
                Ok::<_, cosmos::Error>(())
            }
        })
        .await?;
    for (email, password, admin) in [
        (DEMO_EMAIL, DEMO_PASSWORD, false),
        (ADMIN_EMAIL, ADMIN_PASSWORD, true),
    ] {
        let hash = sitekit::accounts::auth::hash_password(password.to_owned())
            .await
            .map_err(|e| cosmos::Error::bad_request(e.to_string()))?;
        // The first generated customer with a few orders to show.
        let (mut customer, orders) = (customers + 1..)
            .map(|n| people::customer(n, &hash, products))
            .find(|(_, orders)| orders.len() >= 2)
            .expect("some customer has orders");
        customer.id = if admin {
            "cust-admin".into()
        } else {
            "cust-demo".into()
        };
        customer.customer_id = customer.id.clone();
        customer.email_address = email.into();
        customer.admin = admin;
        customer.first_name = if admin { "Ada".into() } else { "Demo".into() };
        customer.last_name = if admin {
            "Admin".into()
        } else {
            "Customer".into()
        };
        let orders: Vec<_> = orders
            .into_iter()
            .map(|mut o| {
                o.customer_id = customer.id.clone();
                o.id = format!("{}-{}", customer.id, o.id);
                o
            })
            .collect();
        customer.sales_order_count = orders.len() as u64;
        write_customer(c, &customer, &orders).await?;
        bar.inc(1);
    }
    c.product_meta
        .upsert_item(
            &json!({"id": MARKER_ID, "type": "seed", "customers": customers, "seconds": started.elapsed().as_secs_f64()}),
            None,
            None,
        )
        .await?;
    bar.finish_with_message(format!(
        "seeded in {:.1} s",
        started.elapsed().as_secs_f64()
    ));
    Ok(customers)
}

fn to_value<T: serde::Serialize>(t: &T) -> cosmos::Result<Value> {
    Ok(serde_json::to_value(t)?)
}

/// A customer and their orders in one transactional batch (one logical partition, so the count
/// and the orders agree), then the email lookup in its own partition.
async fn write_customer(
    c: &Containers,
    customer: &Customer,
    orders: &[crate::model::SalesOrder],
) -> cosmos::Result<()> {
    let mut batch = TransactionalBatch::new(customer.customer_id.as_str()).upsert_item(customer);
    for o in orders {
        batch = batch.upsert_item(o);
    }
    let r = c.customer.execute_batch(batch).await?;
    if let Some(message) = r.error_message {
        return Err(cosmos::Error::bad_request(format!(
            "seeding customer {} failed: {message}",
            customer.id
        )));
    }
    let login = EmailLogin {
        id: customer.email_address.clone(),
        kind: "login".into(),
        customer_id: login_partition(&customer.email_address),
        owner_id: customer.customer_id.clone(),
    };
    c.customer.upsert_item(&login, None, None).await?;
    Ok(())
}

fn featured(products: &[Product]) -> Featured {
    Featured {
        id: FEATURED_ID.into(),
        kind: "featured".into(),
        products: products
            .iter()
            .step_by(products.len().div_ceil(8).max(1))
            .map(|p| FeaturedProduct {
                id: p.id.clone(),
                category_id: p.category_id.clone(),
                category_name: p.category_name.clone(),
                name: p.name.clone(),
                price: p.price,
            })
            .collect(),
    }
}

fn progress(total: u64) -> ProgressBar {
    sitekit::background::progress::bar(total, "the shop")
}
