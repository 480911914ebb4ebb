//! The blogging platform of `004_*` on the engine, modeled as the article ends up (V3): `users`,
//! `posts`, `feed`. Every request of the article (C1–C4, Q1–Q6) is one file in `access/`, and
//! every page shows what it cost.

pub mod access;
pub mod containers;
pub mod markdown;
pub mod model;
pub mod routes;
pub mod scripts;
pub mod seed;
pub mod startup;
pub mod workers;

pub use startup::{Blog, BlogOptions, SITE};
