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

/// The webstore's view of the engine, per request: the containers and the RU ledger.
pub type Db = sitekit::Db<crate::containers::Containers>;

/// What an access pattern refuses beyond the engine's own errors (shared with the blog).
pub use sitekit::data::access::{AccessError as StoreError, Page};

/// A sign-up with an email that has an account ([`StoreError::Taken`]).
pub const EMAIL_TAKEN: &str = "An account with this email address already exists.";

pub type Result<T, E = StoreError> = std::result::Result<T, E>;
