//! The tag list: like categories, one logical partition (`type = "tag"`) of `productMeta`.

use cosmos::Labelled;
use cosmos::QueryOptions;

use super::{Db, Result};
use crate::model::Tag;

pub async fn list_tags(db: &Db) -> Result<Vec<Tag>> {
    let r = db
        .product_meta
        .query_all::<Tag>(
            "SELECT * FROM c WHERE c.type = 'tag' ORDER BY c.name",
            cosmos::NO_PARAMS,
            QueryOptions {
                partition_key: Some("tag".into()),
                ..Default::default()
            },
        )
        .labelled("[Q12] query tags")
        .await?;
    Ok(r.items)
}
