//! Sandboxes made ahead of time, off the writer: a procedure or trigger call takes one that no
//! code but the engine's prelude has run in, and hands it back to be freed when it is done.
//!
//! Each is a QuickJS runtime of its own (its heap, memory cap, stack cap and interrupt) with one
//! realm in which `prelude.js` has run. Making the realm, running the prelude and freeing the
//! realm afterwards (its cycles need the garbage collector) cost about three quarters of a
//! short call's JavaScript (`cargo bench -p engine --bench scripts_js`, callgrind); done by a
//! thread of their own, they no longer hold the engine's single writer, which only reads the
//! script's bytecode, calls it and performs its operations. Isolation is as before or
//! stronger: a call's realm is one no script has touched, and now its heap is too.
//!
//! The writer never waits for this thread: with none ready it makes its own.

use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use rquickjs::{qjs, Context, Function, Object, Persistent};

use super::sandbox::{compile, eval_bytecode, Sandbox};

/// Cosmos DB's server-side API, given to every realm before its script runs.
const PRELUDE: &str = include_str!("prelude.js");
/// The `__` shorthand, read into a realm only when its script touches `__`.
const UNDERSCORE: &str = include_str!("underscore.js");
/// Sandboxes kept ready (a burst of calls beyond this makes its own).
const READY: usize = 4;
/// Used sandboxes waiting to be freed; beyond this a caller frees its own.
const MAX_USED: usize = 32;
/// How long running the prelude may take while a sandbox is made.
const PREPARE_BUDGET: Duration = Duration::from_secs(1);

/// A runtime and its one realm, the prelude run in it.
pub(super) struct Fresh {
    /// The prelude's engine-side functions: held here, never stored where a script can reach
    /// them. Declared first: it is freed before the realm and runtime it lives in.
    host: Option<Persistent<Object<'static>>>,
    pub realm: Context,
    pub sandbox: Sandbox,
}

// SAFETY: every part of a `Fresh` belongs to its own QuickJS runtime, which nothing outside the
// `Fresh` refers to, and the parts move between threads together (the runtime and the realm
// are `Send` with rquickjs's `parallel` feature; the persistent handle is a value of that same
// runtime, only used through `Context::with`, which takes the runtime's lock and resets the
// stack top for the thread that runs it).
unsafe impl Send for Fresh {}

impl Fresh {
    /// A new runtime and realm with the prelude run in it.
    pub fn new() -> Result<Fresh, rquickjs::Error> {
        let sandbox = Sandbox::new()?;
        let realm = sandbox.realm()?;
        let _call = sandbox.begin(Instant::now() + PREPARE_BUDGET);
        let host = realm.with(|js| -> Result<_, rquickjs::Error> {
            let bytes = match PRELUDE_BYTECODE.get() {
                Some(b) => b,
                None => {
                    let b = compile(&js, PRELUDE, true)?;
                    let u = compile(&js, UNDERSCORE, true)?;
                    UNDERSCORE_BYTECODE.get_or_init(|| u);
                    PRELUDE_BYTECODE.get_or_init(|| b)
                }
            };
            let prelude = Function::from_value(eval_bytecode(&js, bytes)?)?;
            // SAFETY: a plain C function of this realm, with no data of its own.
            let load = unsafe {
                let f = qjs::JS_NewCFunction2(
                    js.as_raw().as_ptr(),
                    Some(load_underscore),
                    c"loadUnderscore".as_ptr(),
                    0,
                    qjs::JSCFunctionEnum_JS_CFUNC_generic,
                    0,
                );
                if qjs::JS_IsException(f) {
                    return Err(rquickjs::Error::Exception);
                }
                rquickjs::Value::from_raw(js.clone(), f)
            };
            let host: Object = prelude.call((js.globals(), load))?;
            Ok(Persistent::save(&js, host))
        })?;
        Ok(Fresh {
            host: Some(host),
            realm,
            sandbox,
        })
    }

    /// The prelude's engine-side functions (once).
    pub fn take_host(&mut self) -> Option<Persistent<Object<'static>>> {
        self.host.take()
    }
}

/// The prelude compiled once per process, without its text or line numbers.
static PRELUDE_BYTECODE: OnceLock<Vec<u8>> = OnceLock::new();
/// `underscore.js`, compiled with the prelude.
static UNDERSCORE_BYTECODE: OnceLock<Vec<u8>> = OnceLock::new();

/// `loadUnderscore()` of prelude.js: the function `underscore.js` is, read into the calling
/// realm (its own copy: nothing of it is shared with another realm but the bytes).
unsafe extern "C" fn load_underscore(
    ctx: *mut qjs::JSContext,
    _this: qjs::JSValue,
    _argc: std::ffi::c_int,
    _argv: *mut qjs::JSValue,
) -> qjs::JSValue {
    // Compiled before any realm could call this (Fresh::new).
    let bytes = UNDERSCORE_BYTECODE.get().map_or(&[][..], Vec::as_slice);
    // SAFETY: as `eval_bytecode`: QuickJS's own serialization of code this process compiled;
    // an exception (empty bytes included) is returned as such to the caller.
    unsafe {
        let flags = qjs::JS_READ_OBJ_BYTECODE as i32;
        let f = qjs::JS_ReadObject(ctx, bytes.as_ptr(), bytes.len() as _, flags);
        if qjs::JS_IsException(f) {
            return f;
        }
        qjs::JS_EvalFunction(ctx, f)
    }
}

struct Pool {
    ready: Vec<Fresh>,
    used: Vec<Fresh>,
    started: bool,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    ready: Vec::new(),
    used: Vec::new(),
    started: false,
});
static WAKE: Condvar = Condvar::new();

/// A sandbox for one call: one made ahead of time, or a new one when none is ready.
pub(super) fn take() -> Result<Fresh, rquickjs::Error> {
    let ready = match POOL.lock() {
        Ok(mut pool) => {
            if !pool.started {
                pool.started = std::thread::Builder::new()
                    .name("js-sandboxes".into())
                    .spawn(work)
                    .is_ok();
            }
            let f = pool.ready.pop();
            WAKE.notify_one();
            f
        }
        Err(_) => None,
    };
    match ready {
        Some(f) => Ok(f),
        None => Fresh::new(),
    }
}

/// Hands a used sandbox back to be freed off the caller's thread.
pub(super) fn dispose(f: Fresh) {
    let f = match POOL.lock() {
        Ok(mut pool) if pool.started && pool.used.len() < MAX_USED => {
            pool.used.push(f);
            WAKE.notify_one();
            return;
        }
        _ => f,
    };
    drop(f);
}

/// The pool's thread: frees used sandboxes and keeps [`READY`] made.
fn work() {
    loop {
        let (used, short) = {
            let Ok(mut pool) = POOL.lock() else { return };
            while pool.used.is_empty() && pool.ready.len() >= READY {
                pool = match WAKE.wait(pool) {
                    Ok(p) => p,
                    Err(_) => return,
                };
            }
            (std::mem::take(&mut pool.used), pool.ready.len() < READY)
        };
        drop(used);
        if short {
            match Fresh::new() {
                Ok(f) => match POOL.lock() {
                    Ok(mut pool) => pool.ready.push(f),
                    Err(_) => return,
                },
                // Not expected (a new runtime has nothing in it): callers make their own.
                Err(_) => std::thread::sleep(Duration::from_millis(100)),
            }
        }
    }
}
