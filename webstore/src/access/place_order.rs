//! Checkout: "each time we create a new sales order document, we also need to increment the
//! salesOrderCount property in the related customer document" (`000_*`). Both documents are in
//! the customer's logical partition, so a stored procedure does it as one ACID transaction: the
//! order and the count can never disagree, whatever fails or crashes.

use engine::{Error, PatchOperation, ScriptContext};
use serde_json::Value;

use super::{Db, Result};
use crate::containers::Containers;
use crate::model::SalesOrder;

pub const PROCEDURE: &str = "createOrder";

/// `createOrder(order)`, run inside the customer's partition: increments the customer's
/// `salesOrderCount` and creates the order; any failure rolls both back.
pub fn create_order(ctx: &mut ScriptContext, args: &[Value]) -> engine::Result<Value> {
    let order = args
        .first()
        .cloned()
        .ok_or_else(|| Error::bad("args[0]", "the order is required"))?;
    if order["type"] != "salesOrder" {
        return Err(Error::bad("args[0].type", "must be \"salesOrder\""));
    }
    if order["details"].as_array().is_none_or(|d| d.is_empty()) {
        return Err(Error::bad(
            "args[0].details",
            "an order needs at least one line",
        ));
    }
    let customer_id = order["customerId"]
        .as_str()
        .ok_or_else(|| Error::bad("args[0].customerId", "must be a string"))?
        .to_owned();
    if ctx.read_item(&customer_id)?.is_none() {
        return Err(Error::NotFound {
            what: format!("customer {customer_id}"),
        });
    }
    ctx.patch_item(
        &customer_id,
        vec![PatchOperation::increment("/salesOrderCount", 1)],
    )?;
    ctx.create_item(order)
}

/// Registers the procedure (at start-up, as a deployment would).
pub fn register(containers: &Containers) -> engine::Result<()> {
    containers
        .customer
        .scripts()
        .upsert_stored_procedure(PROCEDURE, create_order)
}

pub async fn place_order(db: &Db, order: &SalesOrder) -> Result<SalesOrder> {
    let args = [serde_json::to_value(order).map_err(Error::from)?];
    let r = db
        .customer
        .scripts()
        .execute_stored_procedure::<SalesOrder>(PROCEDURE, order.customer_id.as_str(), &args)
        .await?;
    db.ru.procedure("execute createOrder", &db.customer, &r);
    Ok(r.resource)
}
