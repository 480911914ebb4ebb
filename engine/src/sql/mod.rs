//! The Cosmos DB for NoSQL query language: lexer, parser, evaluation and functions with Cosmos
//! DB's semantics (including `undefined`), and the reference executor. `plan` and `run` put it
//! on storage: routing, indexes, fan-out, merging and paging.

pub mod ast;
pub mod error;
pub mod eval;
pub mod exec;
pub mod functions;
pub mod lexer;
pub mod parser;
pub mod plan;
pub mod run;
pub mod value;

pub use ast::Query;
pub use error::QueryError;
pub use eval::Params;
pub use exec::execute;
pub use parser::parse;
