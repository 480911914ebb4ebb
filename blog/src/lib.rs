//! The blogging platform of `004_*` on the engine. The site runs the model the article ends with
//! (V3: `users`, `posts`, `feed`); the same pages also run on its V1 and V2 models (`/v1`, `/v2`)
//! so `/models` can put this engine's figures beside the article's. Every request of the article
//! (C1–C4, Q1–Q6) is one file in `access/` (V3, and what V2 shares), `access/v2/`, `access/v1/`;
//! every page shows what it cost.

pub mod access;
pub mod backfill;
pub mod comparison;
pub mod containers;
pub mod deploy;
pub mod feed_cache;
pub mod markdown;
pub mod model;
pub mod requests;
pub mod routes;
pub mod seed;
pub mod startup;
pub mod versions;
pub mod workers;

pub use startup::{Blog, BlogOptions, SITE};
