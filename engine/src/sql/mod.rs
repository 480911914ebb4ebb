//! The Cosmos DB for NoSQL query language: lexer, parser, evaluation and functions with Cosmos
//! DB's semantics (including `undefined`), and the reference executor. `plan` and `run` put it
//! on storage: routing, indexes, fan-out, merging and paging.

pub mod ast;
pub mod bounds;
pub mod computed;
pub mod error;
pub mod eval;
pub mod exec;
pub mod functions;
pub mod lexer;
pub mod parser;
pub mod plan;
pub mod run;
mod single_key;
pub mod udf;
pub mod value;
pub mod value_set;

pub use ast::Query;
pub use error::QueryError;
pub use eval::Params;
pub use exec::execute;
pub use parser::parse;

/// Checks that every `@parameter` the query uses has a value (Cosmos DB refuses the query
/// otherwise, whatever the data).
pub fn check_params(query: &Query, params: &Params) -> Result<(), QueryError> {
    match query.params.iter().find(|p| !params.contains_key(*p)) {
        Some(p) => Err(QueryError::Semantic(format!(
            "the parameter {p} has no value"
        ))),
        None => Ok(()),
    }
}
