//! User-defined functions: JavaScript functions a query calls as `udf.name(args)`, once per row,
//! on the thread that runs the query page.
//!
//! The query engine evaluates expressions without knowing the container, so the container's
//! functions are set for the thread while one of its query pages runs ([`with_functions`],
//! which installs [`call`] as the query language's hook, `sql::udf`).
//! The page's first call makes a sandbox of its own (a runtime and one realm, `sandbox.rs`),
//! which its later calls share and which goes when the page ends: what a function does to its
//! realm (a polluted `Object.prototype`, a full heap) ends with its page, and no other page, of
//! this container or another, sees it. The calls and their CPU (interrupt ticks) are counted
//! for the page's charge, and the page's deadline stops a function that runs too long.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use rquickjs::{Context, Function, Persistent};
use serde_json::Value;

use super::sandbox::{script_error, setup_failed, sloppy, Call, Sandbox};
use super::JavaScript;
use crate::error::Error;
use crate::sql::error::QueryError;

/// A container's user-defined functions, by id.
pub type Functions = Arc<HashMap<String, JavaScript>>;

/// What a page's functions used: their calls and interrupt ticks (both charged).
#[derive(Debug, Default, Clone, Copy)]
pub struct Usage {
    pub calls: u64,
    pub ticks: u64,
}

struct Page {
    functions: Functions,
    deadline: Instant,
    usage: Usage,
    realm: Option<Realm>,
}

struct Realm {
    // Field order is drop order: the values of a realm go before it, and it before its runtime.
    compiled: HashMap<String, Persistent<Function<'static>>>,
    context: Context,
    call: Call,
    sandbox: Sandbox,
}

thread_local! {
    static PAGE: RefCell<Option<Page>> = const { RefCell::new(None) };
}

/// Runs `f` (a query page that must end by `deadline`) with `functions` callable; returns its
/// result and what the functions used.
pub fn with_functions<R>(
    functions: Functions,
    deadline: Instant,
    f: impl FnOnce() -> R,
) -> (R, Usage) {
    let page = Page {
        functions,
        deadline,
        usage: Usage::default(),
        realm: None,
    };
    let before = PAGE.with(|c| c.replace(Some(page)));
    let out = crate::sql::udf::with_caller(call, f);
    let page = PAGE.with(|c| c.replace(before)).expect("set above");
    let mut usage = page.usage;
    if let Some(realm) = &page.realm {
        usage.ticks = realm.sandbox.ticks(&realm.call);
    }
    (out, usage)
}

/// `udf.id(args)`: undefined arguments are passed as `undefined`, an undefined result is
/// undefined; a throw is the query's 400 naming the function, a run past the page's deadline
/// its 408.
pub fn call(id: &str, args: &[Option<Value>]) -> Result<Option<Value>, QueryError> {
    PAGE.with(|cell| {
        let mut slot = cell.borrow_mut();
        let not_found = || {
            QueryError::Semantic(format!(
                "udf.{id} is not a user-defined function of this container"
            ))
        };
        let page = slot.as_mut().ok_or_else(not_found)?;
        let function = page.functions.get(id).cloned().ok_or_else(not_found)?;
        page.usage.calls += 1;
        if page.realm.is_none() {
            let sandbox = Sandbox::new().map_err(|e| in_udf(id, setup_failed(id, e)))?;
            let context = sandbox
                .realm()
                .map_err(|e| in_udf(id, setup_failed(id, e)))?;
            let call = sandbox.begin(page.deadline);
            page.realm = Some(Realm {
                compiled: HashMap::new(),
                context,
                call,
                sandbox,
            });
        }
        let realm = page.realm.as_mut().expect("just made");
        let deadline = realm.call.deadline;
        let compiled = &mut realm.compiled;
        realm
            .context
            .with(|js| -> Result<Option<Value>, Error> {
                let failures = Default::default();
                let caught = |e: rquickjs::Error| script_error(id, &js, e, deadline, &failures);
                let f = match compiled.get(id) {
                    Some(f) => f.clone().restore(&js).map_err(caught)?,
                    None => {
                        let f: Function = js
                            .eval_with_options(format!("({}\n)", function.body()), sloppy())
                            .map_err(caught)?;
                        compiled.insert(id.to_owned(), Persistent::save(&js, f.clone()));
                        f
                    }
                };
                let mut call_args = rquickjs::function::Args::new(js.clone(), args.len());
                for a in args {
                    let v = match a {
                        Some(v) => js.json_parse(v.to_string()).map_err(caught)?,
                        None => rquickjs::Value::new_undefined(js.clone()),
                    };
                    call_args.push_arg(v).map_err(caught)?;
                }
                let result: rquickjs::Value = f.call_arg(call_args).map_err(caught)?;
                if result.is_undefined() {
                    return Ok(None);
                }
                let json = js.json_stringify(result).map_err(caught)?;
                json.map(|s| {
                    let s = s.to_string().map_err(caught)?;
                    serde_json::from_str(&s).map_err(|e| Error::bad("udf", e.to_string()))
                })
                .transpose()
            })
            .map_err(|e| in_udf(id, e))
    })
}

fn in_udf(id: &str, e: Error) -> QueryError {
    match e {
        Error::RequestTimeout(m) => QueryError::Timeout(format!(
            "udf.{id}: {m}; the query page's time limit is spent"
        )),
        e => QueryError::Semantic(format!("udf.{id}: {e}")),
    }
}
