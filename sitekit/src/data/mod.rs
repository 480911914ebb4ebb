//! How a handler reaches the app's data: the containers handed to access patterns, what access
//! patterns return, and the RU of every engine call on the request's ledger.

pub mod access;
pub mod db;
pub mod ru;
