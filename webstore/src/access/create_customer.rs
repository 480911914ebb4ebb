//! Sign-up. Emails must be unique, but `customer` is partitioned by `customerId`: checking every
//! partition for the address would be a fan-out on every sign-up. Instead each address owns a
//! small lookup document in its own logical partition (`customerId = "email:<address>"`), created
//! first: the engine refuses a second create of the same id and partition key (409), which makes
//! the address unique without a fan-out, and sign-in a point read. The two writes are in
//! different partitions, so no transaction spans them: a lookup whose customer was never written
//! (a crash in between) is reclaimed by the next sign-up for that address.

use engine::ItemOptions;
use serde_json::Value;

use super::{Db, Result, StoreError};
use crate::model::{Customer, EmailLogin};

pub fn login_partition(email: &str) -> String {
    format!("email:{email}")
}

pub async fn create_customer(db: &Db, customer: Customer) -> Result<Customer> {
    let email = customer.email_address.clone();
    let login = EmailLogin {
        id: email.clone(),
        kind: "login".into(),
        customer_id: login_partition(&email),
        owner_id: customer.customer_id.clone(),
    };
    match db.customer.create_item(&login, None, None).await {
        Ok(r) => db.ru.item("create email lookup", &db.customer, &r),
        Err(engine::Error::Conflict { .. }) => reclaim_login(db, &login).await?,
        Err(e) => return Err(e.into()),
    }
    match db.customer.create_item(&customer, None, None).await {
        Ok(r) => {
            db.ru.item("create customer", &db.customer, &r);
            Ok(r.resource.unwrap_or(customer))
        }
        Err(e) => {
            // Give the address back; if this fails too, the next sign-up reclaims it.
            let _ = db
                .customer
                .delete_item(&login.id, login.customer_id.as_str(), None)
                .await;
            Err(e.into())
        }
    }
}

/// The address has a lookup: taken, unless the customer it names does not exist.
async fn reclaim_login(db: &Db, login: &EmailLogin) -> Result<()> {
    let existing = db
        .customer
        .read_item::<EmailLogin>(&login.id, login.customer_id.as_str(), None)
        .await?;
    db.ru.item("read email lookup", &db.customer, &existing);
    let etag = existing.etag.clone();
    let owner = existing.resource.map(|l| l.owner_id).unwrap_or_default();
    match db
        .customer
        .read_item::<Value>(&owner, owner.as_str(), None)
        .await
    {
        Ok(r) => {
            db.ru.item("read customer", &db.customer, &r);
            Err(StoreError::EmailTaken)
        }
        Err(engine::Error::NotFound { .. }) => {
            let r = db
                .customer
                .replace_item(
                    login,
                    &login.id,
                    Some(login.customer_id.as_str().into()),
                    etag.map(ItemOptions::if_match),
                )
                .await
                .map_err(|e| match e {
                    // Someone else reclaimed it first.
                    engine::Error::PreconditionFailed { .. } => StoreError::EmailTaken,
                    e => e.into(),
                })?;
            db.ru.item("reclaim email lookup", &db.customer, &r);
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}
