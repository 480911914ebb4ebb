//! "Users visiting the website will typically want to view the complete list of product
//! categories" (`000_*`): every category has `type = "category"`, the partition key of
//! `productMeta`, so the whole list is one single-partition query.

use cosmos::Labelled;
use cosmos::QueryOptions;

use super::{Db, Result};
use crate::model::Category;

pub async fn list_categories(db: &Db) -> Result<Vec<Category>> {
    let r = db
        .product_meta
        .query_all::<Category>(
            "SELECT * FROM c WHERE c.type = 'category' ORDER BY c.name",
            cosmos::NO_PARAMS,
            QueryOptions {
                partition_key: Some("category".into()),
                ..Default::default()
            },
        )
        .labelled("[Q1] query categories")
        .await?;
    Ok(r.items)
}
