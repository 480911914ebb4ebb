//! Sign-up. Emails must be unique, but `customer` is partitioned by `customerId`: checking every
//! partition for the address would be a fan-out on every sign-up. Instead each address owns a
//! small lookup document in its own logical partition (`customerId = "email:<address>"`), created
//! first (see [`sitekit::accounts::claim`]): the engine refuses a second create of the same id and
//! partition key (409), which makes the address unique without a fan-out, and sign-in a point
//! read. The two writes are in different partitions, so no transaction spans them: a lookup
//! whose customer was never written is taken over only once it is provably abandoned.

use cosmos::Labelled;
use sitekit::accounts::claim::{ClaimError, UniqueValue};

use super::{Db, Result, StoreError};
use crate::model::Customer;

pub fn login_partition(email: &str) -> String {
    format!("email:{email}")
}

/// The email lookup documents: id = the address, partition key = `email:<address>`.
pub const EMAIL: UniqueValue = UniqueValue {
    kind: "login",
    partition_key: "customerId",
    owner_property: "emailAddress",
    locate: |email| (email.to_owned(), login_partition(email)),
    normalize: |email| email.trim().to_lowercase(),
};

pub async fn create_customer(db: &Db, customer: Customer) -> Result<Customer> {
    let email = customer.email_address.clone();
    EMAIL
        .claim(&db.customer, &email, &customer.customer_id)
        .await
        .map_err(|e| match e {
            ClaimError::Taken => StoreError::Taken(super::EMAIL_TAKEN),
            ClaimError::Engine(e) => e.into(),
        })?;
    match db
        .customer
        .create_item(&customer, None, None)
        .labelled("[C1] create customer")
        .await
    {
        Ok(r) => Ok(r.resource.unwrap_or(customer)),
        Err(e) => {
            // Give the address back; if this fails too, it is taken over once abandoned.
            EMAIL
                .release(&db.customer, &email, &customer.customer_id)
                .await;
            Err(e.into())
        }
    }
}
