//! Query errors. Syntax errors carry the line and column of the offending token.

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum QueryError {
    #[error("syntax error at line {line}, column {column}: {message}")]
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{0}")]
    Semantic(String),
    /// 408: the query ran past a time budget (a user-defined function that did not return).
    #[error("{0}")]
    Timeout(String),
}

/// A byte offset in the query text.
pub type Pos = usize;

impl QueryError {
    pub fn syntax(src: &str, at: Pos, message: &str) -> Self {
        let before = &src[..at.min(src.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        QueryError::Syntax {
            line,
            column,
            message: message.to_owned(),
        }
    }
}

impl From<QueryError> for crate::error::Error {
    fn from(e: QueryError) -> Self {
        match e {
            QueryError::Timeout(m) => crate::error::Error::RequestTimeout(m),
            e => crate::error::Error::bad("query", e.to_string()),
        }
    }
}

// A query error is one of the engine's errors: the conversions live here, so `error.rs` (the
// lowest layer) names no query type.
impl From<QueryError> for crate::error::Failed {
    fn from(e: QueryError) -> Self {
        crate::error::Error::from(e).into()
    }
}
