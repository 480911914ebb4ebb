//! Products carrying a tag. Tags are many-to-many with products; `000_*` embeds the tag ids (and,
//! denormalized, the names) in each product. The product container is partitioned by category,
//! so a tag's products live in many partitions: this query fans out, and the page says so.

use cosmos::Labelled;
use cosmos::QueryOptions;
use serde_json::json;

use super::{Db, Page, Result};
use crate::model::Product;

pub async fn products_by_tag(
    db: &Db,
    tag_id: &str,
    continuation: Option<String>,
) -> Result<Page<Product>> {
    let r = db
        .product
        .query_items::<Product>(
            "SELECT * FROM p WHERE ARRAY_CONTAINS(p.tags, {\"id\": @tagId}, true)",
            &[("@tagId", json!(tag_id))],
            QueryOptions {
                max_item_count: Some(24),
                continuation,
                ..Default::default()
            },
        )
        .labelled("[Q5] query products by tag")
        .await?;
    Ok(r.into())
}
