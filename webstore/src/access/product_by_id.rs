//! The product page: id and partition key (`categoryId`) are both in the URL, so it is a point
//! read, the cheapest request there is (1 RU for a 1 KB item), carrying the denormalized category
//! and tag names with it.

use super::{Db, Result};
use crate::model::Product;
use cosmos::Labelled;

pub async fn product_by_id(db: &Db, category_id: &str, product_id: &str) -> Result<Product> {
    let r = db
        .product
        .read_item::<Product>(product_id, category_id, None)
        .labelled(format!("[Q4] read product (categoryId {category_id})"))
        .await?;
    r.resource.ok_or_else(|| {
        cosmos::Error::NotFound {
            what: format!("product {product_id}"),
        }
        .into()
    })
}
