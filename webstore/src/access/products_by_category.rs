//! "Retrieve all the products in a given category" (`000_*`): `product` is partitioned by
//! `categoryId`, so this is a single-partition query; the composite indexes of the container serve
//! both sorts, and the page is read with a continuation like the SDK's iterator.

use cosmos::Labelled;
use cosmos::QueryOptions;
use serde_json::json;

use super::{Db, Page, Result};
use crate::model::Product;

pub const PAGE_SIZE: usize = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    PriceAscending,
    PriceDescending,
    Name,
}

impl Sort {
    pub fn parse(s: Option<&str>) -> Sort {
        match s {
            Some("price_desc") => Sort::PriceDescending,
            Some("name") => Sort::Name,
            _ => Sort::PriceAscending,
        }
    }

    pub fn key(&self) -> &'static str {
        match self {
            Sort::PriceAscending => "price",
            Sort::PriceDescending => "price_desc",
            Sort::Name => "name",
        }
    }

    fn order_by(&self) -> &'static str {
        match self {
            Sort::PriceAscending => "ORDER BY p.price ASC, p.name ASC",
            Sort::PriceDescending => "ORDER BY p.price DESC, p.name DESC",
            Sort::Name => "ORDER BY p.name ASC, p.price ASC",
        }
    }
}

pub async fn products_by_category(
    db: &Db,
    category_id: &str,
    sort: Sort,
    continuation: Option<String>,
) -> Result<Page<Product>> {
    let sql = format!(
        "SELECT * FROM p WHERE p.categoryId = @categoryId {}",
        sort.order_by()
    );
    let r = db
        .product
        .query_items::<Product>(
            &sql,
            &[("@categoryId", json!(category_id))],
            QueryOptions {
                partition_key: Some(category_id.into()),
                max_item_count: Some(PAGE_SIZE),
                continuation,
                ..Default::default()
            },
        )
        .labelled("[Q3] query products by category")
        .await?;
    Ok(r.into())
}
