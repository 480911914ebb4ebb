//! "Retrieve our top customers" (`000_*`): `salesOrderCount` is denormalized into each customer
//! (kept by `createOrder`), so the list is one query sorted on it — across every partition. The
//! article accepts the fan-out because it is a back-office query, run now and then.

use cosmos::Labelled;
use cosmos::QueryOptions;
use serde_json::json;

use super::{Db, Result};
use crate::model::Customer;

pub async fn top_customers(db: &Db, n: usize) -> Result<Vec<Customer>> {
    let r = db
        .customer
        .query_all::<Customer>(
            "SELECT TOP @n * FROM c WHERE c.type = 'customer' ORDER BY c.salesOrderCount DESC",
            &[("@n", json!(n))],
            QueryOptions::default(),
        )
        .labelled("[Q11] query top customers")
        .await?;
    Ok(r.items)
}
