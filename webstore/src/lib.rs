//! WebStore: the online shop of `000_*`–`003_*` on the engine. Nine relational tables become
//! three containers (`customer`, `product`, `productMeta`); every page is an access pattern of
//! the articles, in `access/`, with its RU shown in the footer.

pub mod access;
pub mod cart;
pub mod containers;
pub mod model;
pub mod routes;
pub mod seed;
pub mod startup;

pub use startup::{WebStore, WebStoreOptions, SITE};
