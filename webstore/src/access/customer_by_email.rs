//! Sign-in by email without a fan-out: the address's lookup document (see `create_customer`) is
//! read by id and partition key, then the customer it names, by id and partition key: two point
//! reads, whatever the number of customers.

use super::create_customer::login_partition;
use super::{Db, Result};
use crate::model::{Customer, EmailLogin};

pub async fn customer_by_email(db: &Db, email: &str) -> Result<Option<Customer>> {
    let login = match db
        .customer
        .read_item::<EmailLogin>(email, login_partition(email).as_str(), None)
        .await
    {
        Ok(r) => {
            db.ru.item("read email lookup", &db.customer, &r);
            r.resource
        }
        Err(engine::Error::NotFound { .. }) => None,
        Err(e) => return Err(e.into()),
    };
    let Some(login) = login else {
        return Ok(None);
    };
    super::customer_by_id::find_customer(db, &login.owner_id).await
}
