//! User-defined functions: JavaScript functions a query calls as `udf.name(args)`, once per row,
//! on the thread that runs the query (each such thread keeps its own QuickJS runtime).
//!
//! The query engine evaluates expressions without knowing the container, so the container's
//! functions are set for the thread while one of its query pages runs ([`with_functions`]),
//! and the calls made are counted for the page's charge.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::JavaScript;
use crate::sql::error::QueryError;

/// A container's user-defined functions, by id.
pub type Functions = Arc<HashMap<String, JavaScript>>;

thread_local! {
    static FUNCTIONS: RefCell<Option<Functions>> = const { RefCell::new(None) };
    static CALLS: Cell<u64> = const { Cell::new(0) };
}

/// Runs `f` (a query page) with `functions` callable; returns its result and the calls made.
pub fn with_functions<R>(functions: Functions, f: impl FnOnce() -> R) -> (R, u64) {
    let before = FUNCTIONS.with(|c| c.replace(Some(functions)));
    let calls_before = CALLS.with(|c| c.replace(0));
    let out = f();
    let calls = CALLS.with(|c| c.replace(calls_before));
    FUNCTIONS.with(|c| *c.borrow_mut() = before);
    (out, calls)
}

/// `udf.id(args)`: undefined arguments are passed as `undefined`, an undefined result is
/// undefined; a throw is the query's 400 naming the function.
pub fn call(id: &str, args: &[Option<Value>]) -> Result<Option<Value>, QueryError> {
    let function = FUNCTIONS
        .with(|c| c.borrow().as_ref().and_then(|f| f.get(id).cloned()))
        .ok_or_else(|| {
            QueryError::Semantic(format!(
                "udf.{id} is not a user-defined function of this container"
            ))
        })?;
    CALLS.with(|c| c.set(c.get() + 1));
    super::call_function(id, function.body(), args)
        .map_err(|e| QueryError::Semantic(format!("udf.{id}: {e}")))
}
