//! The home page's featured products: one curated document in `productMeta` holding just what the
//! home page shows of each product, so the page needs one point read rather than a query over
//! products (it is rewritten when the list changes, like any denormalized copy).

use super::{Db, Result};
use crate::model::{Featured, FeaturedProduct};
use cosmos::Labelled;

pub const FEATURED_ID: &str = "featured";

pub async fn featured_products(db: &Db) -> Result<Vec<FeaturedProduct>> {
    match db
        .product_meta
        .read_item::<Featured>(FEATURED_ID, "featured", None)
        .labelled("[Q2] read featured list")
        .await
    {
        Ok(r) => Ok(r.resource.map(|f| f.products).unwrap_or_default()),
        Err(cosmos::Error::NotFound { .. }) => Ok(Vec::new()),
        Err(e) => Err(e.into()),
    }
}
