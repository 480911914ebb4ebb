//! One order, read by id in the signed-in customer's own partition: another customer's order id
//! is simply not in it, so it is a 404 without any ownership check that could be forgotten.

use super::{Db, Result};
use crate::model::SalesOrder;
use cosmos::Labelled;

pub async fn order_by_id(db: &Db, customer_id: &str, order_id: &str) -> Result<SalesOrder> {
    let r = db
        .customer
        .read_item::<serde_json::Value>(order_id, customer_id, None)
        .labelled("[Q10] read sales order")
        .await?;
    let doc = r.resource.unwrap_or_default();
    if doc["type"] != "salesOrder" {
        return Err(cosmos::Error::NotFound {
            what: format!("order {order_id}"),
        }
        .into());
    }
    serde_json::from_value(doc)
        .map_err(|e| super::StoreError::Invalid(format!("stored order: {e}")))
}
