use serde::{Deserialize, Serialize};

/// A product, in container `product` (partition key `/categoryId`): every product of a category
/// lives in one logical partition, so a category page is a single-partition query. The category
/// and tag names are copies (denormalized), kept in step by the rename worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Product {
    pub id: String,
    pub category_id: String,
    pub category_name: String,
    pub sku: String,
    pub name: String,
    pub description: String,
    pub price: f64,
    pub tags: Vec<TagRef>,
}

/// A tag as a product carries it: the id to find it, the name to show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TagRef {
    pub id: String,
    pub name: String,
}
