use serde::{Deserialize, Serialize};

/// A product category, in container `productMeta` (partition key `/type`): all categories share
/// `type = "category"`, so the full list is one single-partition query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Category {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub name: String,
    /// When the back office last renamed it (Unix seconds; none for the seeded names).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renamed_at: Option<u64>,
}

/// A product tag, in `productMeta` with `type = "tag"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tag {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub name: String,
    /// When the back office last renamed it (Unix seconds; none for the seeded names).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renamed_at: Option<u64>,
}

/// The home page's curated products, one document in `productMeta` (`type = "featured"`),
/// holding just what the home page shows of each product.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Featured {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub products: Vec<FeaturedProduct>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeaturedProduct {
    pub id: String,
    pub category_id: String,
    pub category_name: String,
    pub name: String,
    pub price: f64,
}
