//! Checkout: "each time we create a new sales order document, we also need to increment the
//! salesOrderCount property in the related customer document" (`000_*`). Both documents are in
//! the customer's logical partition, so a stored procedure does it as one ACID transaction: the
//! order and the count can never disagree, whatever fails or crashes.

use cosmos::Error;
use cosmos::Labelled;

use super::{Db, Result};
use crate::containers::Containers;
use crate::model::SalesOrder;

pub const PROCEDURE: &str = "createOrder";

/// `createOrder(order)`, run inside the customer's partition (`webstore/scripts/createOrder.js`):
/// increments the customer's `salesOrderCount` and creates the order; any failure rolls both back.
pub const CREATE_ORDER_JS: &str = include_str!("../../scripts/createOrder.js");

/// Registers the procedure (at start-up, as a deployment would).
pub async fn register(containers: &Containers) -> cosmos::Result<()> {
    containers
        .customer
        .upsert_stored_procedure(PROCEDURE, CREATE_ORDER_JS)
        .await
}

pub async fn place_order(db: &Db, order: &SalesOrder) -> Result<SalesOrder> {
    let args = [serde_json::to_value(order).map_err(Error::from)?];
    let r = db
        .customer
        .execute_stored_procedure::<SalesOrder>(PROCEDURE, order.customer_id.as_str(), &args)
        .labelled("[C3] execute createOrder")
        .await?;
    Ok(r.resource)
}
