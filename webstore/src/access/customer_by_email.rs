//! Sign-in by email without a fan-out: the address's lookup document (see `create_customer`) is
//! read by id and partition key, then the customer it names, by id and partition key: two point
//! reads, whatever the number of customers.

use super::create_customer::EMAIL;
use super::{Db, Result};
use crate::model::Customer;

pub async fn customer_by_email(db: &Db, email: &str) -> Result<Option<Customer>> {
    let Some(owner) = EMAIL.owner_of(&db.customer, email).await? else {
        return Ok(None);
    };
    let customer = super::customer_by_id::find_customer(db, &owner).await?;
    // A lookup whose customer was never written, or does not have this address (yet).
    Ok(customer.filter(|c| c.email_address.eq_ignore_ascii_case(email.trim())))
}
