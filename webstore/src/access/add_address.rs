//! A new address goes into the customer document (one-to-few, embedded): one patch that appends
//! to the array, guarded by the etag read with the page's data so two tabs cannot lose an
//! address, and refused past the limit of embedded addresses.

use cosmos::Labelled;
use cosmos::{ItemOptions, PatchOperation};
use serde_json::json;

use super::{Db, Result, StoreError};
use crate::model::{Address, Customer};

/// Embedding suits one-to-few: the document stays small and bounded.
pub const MAX_ADDRESSES: usize = 10;

pub async fn add_address(db: &Db, customer_id: &str, address: Address) -> Result<Customer> {
    let current = db
        .customer
        .read_item::<Customer>(customer_id, customer_id, None)
        .labelled("[C2] read customer")
        .await?;
    let count = current.resource.as_ref().map_or(0, |c| c.addresses.len());
    if count >= MAX_ADDRESSES {
        return Err(StoreError::Invalid(format!(
            "A customer keeps at most {MAX_ADDRESSES} addresses."
        )));
    }
    let r = db
        .customer
        .patch_item::<Customer>(
            customer_id,
            customer_id,
            &[PatchOperation::add("/addresses/-", json!(address))],
            current.etag.map(ItemOptions::if_match),
        )
        .labelled("[C2] patch customer (add address)")
        .await
        .map_err(|e| match e {
            cosmos::Error::PreconditionFailed { .. } => {
                StoreError::Invalid("Your profile changed meanwhile; please try again.".into())
            }
            e => e.into(),
        })?;
    r.resource.ok_or_else(|| {
        cosmos::Error::NotFound {
            what: format!("customer {customer_id}"),
        }
        .into()
    })
}
