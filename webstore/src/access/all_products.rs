//! The back office's product list: every product of every category, a fan-out read page by page.

use cosmos::Labelled;
use cosmos::QueryOptions;

use super::{Db, Page, Result};
use crate::model::Product;

pub async fn all_products(db: &Db, continuation: Option<String>) -> Result<Page<Product>> {
    let r = db
        .product
        .query_items::<Product>(
            "SELECT * FROM p",
            cosmos::NO_PARAMS,
            QueryOptions {
                max_item_count: Some(50),
                continuation,
                ..Default::default()
            },
        )
        .labelled("[Q13] query all products")
        .await?;
    Ok(r.into())
}
