//! The explorer through real HTTP on a real engine: every page and action.

mod changefeed;
mod guard;
mod helpers;
mod items;
mod metrics;
mod pages;
mod partitions;
mod query;
mod scripts;
