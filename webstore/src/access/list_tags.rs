//! The tag list: like categories, one logical partition (`type = "tag"`) of `productMeta`.

use engine::QueryOptions;

use super::{Db, Result};
use crate::model::Tag;

pub async fn list_tags(db: &Db) -> Result<Vec<Tag>> {
    let r = db
        .product_meta
        .query_all::<Tag>(
            "SELECT * FROM c WHERE c.type = 'tag' ORDER BY c.name",
            engine::NO_PARAMS,
            QueryOptions {
                partition_key: Some("tag".into()),
                ..Default::default()
            },
        )
        .await?;
    db.ru.query("query tags", &db.product_meta, &r);
    Ok(r.items)
}
