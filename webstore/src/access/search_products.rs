//! Name search: a case-insensitive substring match over every category, so a fan-out that reads
//! every product. Fine for an occasional search box; a busy one would want a search index beside
//! the store (Azure AI Search is the Cosmos DB answer), not a different partition key.

use cosmos::Labelled;
use cosmos::QueryOptions;
use serde_json::json;

use super::{Db, Page, Result};
use crate::model::Product;

pub async fn search_products(
    db: &Db,
    text: &str,
    continuation: Option<String>,
) -> Result<Page<Product>> {
    let r = db
        .product
        .query_items::<Product>(
            "SELECT * FROM p WHERE CONTAINS(p.name, @text, true)",
            &[("@text", json!(text))],
            QueryOptions {
                max_item_count: Some(24),
                continuation,
                ..Default::default()
            },
        )
        .labelled("[Q6] search products by name")
        .await?;
    Ok(r.into())
}
