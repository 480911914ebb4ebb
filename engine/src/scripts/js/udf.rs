//! User-defined functions: JavaScript functions a query calls as `udf.name(args)`, once per row,
//! on the thread that runs the query page.
//!
//! The query engine evaluates expressions without knowing the container, so the container's
//! functions are set for the thread while one of its query pages runs ([`with_functions`],
//! which installs [`call`] as the query language's hook, `sql::udf`).
//!
//! A page's first call takes a hardened realm (`fresh.rs`, the same kind procedures run in),
//! kept for the container's function set — pages of one container, never another container's
//! or another database's — and makes the page's state new in it (the prelude's `begin`). The
//! page's calls share the realm and the functions it evaluated from their kept code
//! (`compiled.rs`). When the page ends the realm goes back as a procedure call's does: kept for
//! the set's next page only when nothing can have been left in it (no error, no new global,
//! no code compiled at run time, no Promise job), else retired. So what a function does to its
//! realm (a polluted `Object.prototype` is refused by the frozen realm; a full heap retires it)
//! ends with its page, and no other page, of this container or another, sees it. The calls and
//! their CPU (interrupt ticks) are counted for the page's charge, and the page's deadline stops
//! a function that runs too long.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use rquickjs::{Function, Object, Persistent};
use serde_json::Value;

use super::fresh::{self, Fresh};
use super::plain::{to_js, Plain};
use super::sandbox::{script_error, setup_failed, Call};
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
    /// The functions this page evaluated, by id (values of the realm: dropped before it goes
    /// back).
    evaluated: HashMap<String, Persistent<Function<'static>>>,
    fresh: Fresh,
    call: Call,
    /// Whether every call so far ended without an error.
    ok: bool,
}

thread_local! {
    static PAGE: RefCell<Option<Page>> = const { RefCell::new(None) };
}

/// The pool's key of a function set's realms: its address, which cannot be a database's id
/// (those have no `/`) and which no other set has while a realm is kept under it (the realm
/// holds the set, [`Fresh::functions`]).
fn owner(functions: &Functions) -> String {
    format!("{OWNERS}{:p}", Arc::as_ptr(functions))
}

/// How the pool's keys of function sets begin.
pub(super) const OWNERS: &str = "/udf/";

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
    if let Some(realm) = page.realm {
        usage.ticks = realm.fresh.sandbox.ticks(&realm.call);
        give_back(&page.functions, realm);
    }
    (out, usage)
}

/// The realm of a page that ended: kept for its function set when the page left it clean.
fn give_back(functions: &Functions, realm: Realm) {
    let Realm {
        evaluated,
        mut fresh,
        ok,
        ..
    } = realm;
    drop(evaluated);
    let clean = ok
        && fresh
            .realm
            .with(|js| -> rquickjs::Result<bool> {
                let host: Object = fresh.host(&js)?;
                let compiled: bool = host.get::<_, Function>("compiledCode")?.call(())?;
                let added = fresh::global_keys(&js) != Some(fresh.globals);
                fresh.clean(&js)?.call((compiled, added))
            })
            .unwrap_or(false);
    fresh.functions = Some(functions.clone());
    fresh::give_back(&owner(functions), fresh, clean);
}

/// A hardened realm for `page`'s calls, its prelude state made new.
fn take(page: &Page, id: &str) -> Result<Realm, Error> {
    let mut fresh = fresh::take(&owner(&page.functions)).map_err(|e| setup_failed(id, e))?;
    fresh.calls += 1;
    let call = fresh.sandbox.begin(page.deadline);
    fresh
        .realm
        .with(|js| -> rquickjs::Result<()> {
            let host: Object = fresh.host(&js)?;
            host.get::<_, Function>("begin")?
                .call(("", "", (), (), (), ()))
        })
        .map_err(|e| setup_failed(id, e))?;
    Ok(Realm {
        evaluated: HashMap::new(),
        fresh,
        call,
        ok: true,
    })
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
            page.realm = Some(take(page, id).map_err(|e| in_udf(id, e))?);
        }
        let realm = page.realm.as_mut().expect("just made");
        let deadline = realm.call.deadline;
        let Realm {
            evaluated, fresh, ..
        } = realm;
        let out = fresh.realm.with(|js| -> Result<Option<Value>, Error> {
            let failures = Default::default();
            let caught = |e: rquickjs::Error| script_error(id, &js, e, deadline, &failures);
            let f = match evaluated.get(id) {
                Some(f) => f.clone().restore(&js).map_err(caught)?,
                None => {
                    let f = fresh
                        .compiled
                        .function(&js, function.body())
                        .and_then(Function::from_value)
                        .map_err(caught)?;
                    evaluated.insert(id.to_owned(), Persistent::save(&js, f.clone()));
                    f
                }
            };
            let mut call_args = rquickjs::function::Args::new(js.clone(), args.len());
            for a in args {
                let v = match a {
                    Some(v) => to_js(&js, v).map_err(caught)?,
                    None => rquickjs::Value::new_undefined(js.clone()),
                };
                call_args.push_arg(v).map_err(caught)?;
            }
            let result: rquickjs::Value = f.call_arg(call_args).map_err(caught)?;
            if result.is_undefined() {
                return Ok(None);
            }
            // Plain data is read as it is; anything else as JSON.stringify writes it.
            if let Some(v) = Plain::of(&js)
                .and_then(|p| p.read(&result))
                .map_err(caught)?
            {
                return Ok(Some(v));
            }
            let json = js.json_stringify(result).map_err(caught)?;
            json.map(|s| {
                let s = s.to_string().map_err(caught)?;
                serde_json::from_str(&s).map_err(|e| Error::bad("udf", e.to_string()))
            })
            .transpose()
        });
        if out.is_err() {
            realm.ok = false;
        }
        out.map_err(|e| in_udf(id, e))
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
