//! "For customers, we most often want to query a customer by its ID" (`000_*`): with the id as
//! partition key value too, that is a point read. Addresses and the password hash come with it:
//! they are embedded because they are read and written together with the customer.

use super::{Db, Result};
use crate::model::Customer;
use cosmos::Labelled;

pub async fn customer_by_id(db: &Db, customer_id: &str) -> Result<Customer> {
    find_customer(db, customer_id).await?.ok_or_else(|| {
        cosmos::Error::NotFound {
            what: format!("customer {customer_id}"),
        }
        .into()
    })
}

/// The customer, or `None` when there is none.
pub async fn find_customer(db: &Db, customer_id: &str) -> Result<Option<Customer>> {
    match db
        .customer
        .read_item::<Customer>(customer_id, customer_id, None)
        .labelled("[Q8] read customer")
        .await
    {
        Ok(r) => Ok(r.resource),
        Err(cosmos::Error::NotFound { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}
