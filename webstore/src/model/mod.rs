//! The documents of the three containers, shaped as in `000_*`–`003_*` and the CosmicWorks sample.
//! Field names are the stored JSON names (camelCase), so a document reads the same here, in the
//! engine's CLI and in Azure Cosmos DB.

mod customer;
mod meta;
mod product;

pub use customer::{Address, Customer, EmailLogin, OrderLine, SalesOrder};
pub use meta::{Category, Featured, FeaturedProduct, Tag};
pub use product::{Product, TagRef};
