//! The access patterns of `000_*`–`003_*`, one file each, holding every engine call the pattern
//! makes. Lay a file beside the article: the query, the container and the partition key it is
//! routed by are all here. Handlers never call the engine themselves.

pub mod add_address;
pub mod all_products;
pub mod cascade_renames;
pub mod create_customer;
pub mod customer_by_email;
pub mod customer_by_id;
pub mod customer_with_orders;
pub mod featured_products;
pub mod list_categories;
pub mod list_tags;
pub mod order_by_id;
pub mod place_order;
pub mod product_by_id;
pub mod products_by_category;
pub mod products_by_tag;
pub mod rename_meta;
pub mod search_products;
pub mod top_customers;

use cosmos::FeedResponse;
use serde::de::DeserializeOwned;

/// The webstore's view of the engine, per request: the containers and the RU ledger.
pub type Db = sitekit::Db<crate::containers::Containers>;

/// Errors an access pattern reports beyond the engine's own.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("An account with this email address already exists.")]
    EmailTaken,
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Engine(#[from] cosmos::Error),
}

impl From<StoreError> for sitekit::WebError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::EmailTaken => sitekit::WebError::BadRequest(e.to_string()),
            StoreError::Invalid(m) => sitekit::WebError::BadRequest(m),
            StoreError::Engine(e) => sitekit::WebError::Engine(e),
        }
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// One page of a listing and where the next one starts.
#[derive(Debug, Clone)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub continuation: Option<String>,
}

impl<T: DeserializeOwned> From<FeedResponse<T>> for Page<T> {
    fn from(r: FeedResponse<T>) -> Self {
        Page {
            items: r.items,
            continuation: r.continuation,
        }
    }
}
