//! One module per subcommand: its arguments and what it does.

pub mod backup;
pub mod check;
pub mod delete_partition;
pub mod export;
pub mod get;
pub mod import;
pub mod list;
pub mod patch;
pub mod query;
pub mod serve;
pub mod stats;
