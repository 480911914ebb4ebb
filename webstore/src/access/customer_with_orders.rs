//! Order history: customers and their sales orders share the container and the partition key
//! (`customerId`), so "we can retrieve a customer and all their related orders with the following
//! single-partition query" (`000_*`) — this gets us our join back.

use cosmos::Labelled;
use cosmos::QueryOptions;
use serde_json::{json, Value};

use super::{Db, Result, StoreError};
use crate::model::{Customer, SalesOrder};

pub async fn customer_with_orders(
    db: &Db,
    customer_id: &str,
) -> Result<(Customer, Vec<SalesOrder>)> {
    let r = db
        .customer
        .query_all::<Value>(
            "SELECT * FROM c WHERE c.customerId = @customerId",
            &[("@customerId", json!(customer_id))],
            QueryOptions {
                partition_key: Some(customer_id.into()),
                ..Default::default()
            },
        )
        .labelled("[Q9] query customer with orders")
        .await?;
    let mut customer = None;
    let mut orders = Vec::new();
    for doc in r.items {
        let parse = |e: serde_json::Error| StoreError::Invalid(format!("stored document: {e}"));
        match doc["type"].as_str() {
            Some("customer") => {
                customer = Some(serde_json::from_value::<Customer>(doc).map_err(parse)?)
            }
            Some("salesOrder") => {
                orders.push(serde_json::from_value::<SalesOrder>(doc).map_err(parse)?)
            }
            _ => {}
        }
    }
    orders.sort_by(|a, b| {
        b.order_date
            .cmp(&a.order_date)
            .then_with(|| b.id.cmp(&a.id))
    });
    let customer = customer.ok_or_else(|| cosmos::Error::NotFound {
        what: format!("customer {customer_id}"),
    })?;
    Ok((customer, orders))
}
