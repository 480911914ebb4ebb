//! The hook through which a query calls user-defined functions (`udf.name(args)`).
//!
//! The query language knows nothing of JavaScript: while one of a container's query pages runs,
//! the layer that runs scripts installs its caller for the thread
//! (`scripts::js::udf::with_functions`), and the evaluator calls through it. So `sql` names
//! nothing above it, and a page run without functions answers every `udf.` call as the service
//! answers an unknown function.

use std::cell::Cell;

use serde_json::Value;

use super::error::QueryError;

/// Calls the user-defined function `id` with the row's arguments (`None`: undefined).
pub type UdfCaller = fn(&str, &[Option<Value>]) -> Result<Option<Value>, QueryError>;

thread_local! {
    static CALLER: Cell<Option<UdfCaller>> = const { Cell::new(None) };
}

/// Runs `f` with `caller` answering `udf.` calls on this thread, then puts back what was there
/// (also when `f` panics).
pub fn with_caller<R>(caller: UdfCaller, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<UdfCaller>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CALLER.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(CALLER.with(|c| c.replace(Some(caller))));
    f()
}

/// `udf.id(args)` through the installed caller.
pub fn call(id: &str, args: &[Option<Value>]) -> Result<Option<Value>, QueryError> {
    match CALLER.with(Cell::get) {
        Some(caller) => caller(id, args),
        None => Err(QueryError::Semantic(format!(
            "udf.{id} is not a user-defined function of this container"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn echo(id: &str, args: &[Option<Value>]) -> Result<Option<Value>, QueryError> {
        Ok(Some(serde_json::json!([id, args.len()])))
    }

    #[test]
    fn a_call_goes_to_the_installed_caller_only_while_it_is_installed() {
        assert!(call("f", &[]).is_err(), "no caller: an unknown function");
        let inside = with_caller(echo, || call("f", &[None, None]).unwrap());
        assert_eq!(inside, Some(serde_json::json!(["f", 2])));
        assert!(call("f", &[]).is_err(), "the caller went with its page");
    }
}
