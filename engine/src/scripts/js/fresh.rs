//! Hardened realms, made ahead of time off the writer and kept per database: a procedure or
//! trigger call takes the realm its database's last clean call left, else one made ahead of
//! time, and hands it back to be kept or retired.
//!
//! Each is a QuickJS runtime of its own (its heap, memory cap, stack cap and interrupt) with one
//! realm in which `prelude.js` has run and which `harden.js` then froze: every object a script
//! can reach, the intrinsics only syntax reaches included, is frozen, and the global object's
//! own properties are permanent, so no call can change what a later call of the realm sees.
//! What a call could still leave behind — a new global, a `let` declared by code compiled at
//! run time, a pending Promise job — is checked after it, and such a call retires its realm
//! (call.rs), as does any failure. Making a realm (~1 M instructions with the hardening) is
//! then paid once per many calls instead of once per call.
//!
//! Realms are kept per database: a realm only ever serves one database's calls (defence in
//! depth, should a channel the hardening misses exist). The writer never waits for this
//! module's thread: with none ready it makes its own.

use std::collections::{HashMap, VecDeque};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use rquickjs::{qjs, Context, Function, Object, Persistent};

use super::compiled::{compile, eval_bytecode, Compiled};
use super::freeze::freeze_reachable;
use super::sandbox::Sandbox;

/// Cosmos DB's server-side API, given to every realm before its script runs.
const PRELUDE: &str = include_str!("prelude.js");
/// The `__` shorthand, read into a realm only when its script touches `__`.
const UNDERSCORE: &str = include_str!("underscore.js");
/// The realm's hardening, run once the prelude has run.
const HARDEN: &str = include_str!("harden.js");
/// Sandboxes kept ready (a burst of calls beyond this makes its own).
const READY: usize = 4;
/// Used sandboxes waiting to be freed; beyond this a caller frees its own.
const MAX_USED: usize = 32;
/// Realms kept for the next call of their owner — a database, or a container's user-defined
/// function set (`udf.rs`) — a few hundred KB each: ~20 MB at most.
const MAX_KEPT: usize = 64;
/// How long running the prelude and hardening may take while a realm is made (a few
/// milliseconds; generous, as it is the engine's own code: a slow machine or valgrind must not
/// fail it).
const PREPARE_BUDGET: Duration = Duration::from_secs(10);

/// A runtime and its one realm, the prelude run in it and the realm hardened.
pub(super) struct Fresh {
    /// The prelude's engine-side functions: held here, never stored where a script can reach
    /// them. Declared first: they are freed before the realm and runtime they live in.
    host: Persistent<Object<'static>>,
    /// harden.js's after-call check.
    clean: Persistent<Function<'static>>,
    /// The code of the scripts this realm ran (values of the realm: freed before it).
    pub compiled: Compiled,
    /// For a realm of user-defined functions: the function set it serves (`udf.rs`), held so
    /// the address it is kept under is never another set's while it is kept.
    pub functions: Option<super::udf::Functions>,
    pub realm: Context,
    pub sandbox: Sandbox,
    /// Calls run in this realm so far.
    pub calls: u32,
    /// How many own properties the hardened global object has.
    pub globals: u32,
}

// SAFETY: every part of a `Fresh` belongs to its own QuickJS runtime, which nothing outside the
// `Fresh` refers to, and the parts move between threads together (the runtime and the realm
// are `Send` with rquickjs's `parallel` feature; the persistent handles are values of that same
// runtime, only used through `Context::with`, which takes the runtime's lock and resets the
// stack top for the thread that runs it).
unsafe impl Send for Fresh {}

impl Fresh {
    /// A new runtime and realm with the prelude run in it, then hardened (harden.js).
    pub fn new() -> Result<Fresh, rquickjs::Error> {
        let sandbox = Sandbox::new()?;
        let realm = sandbox.realm()?;
        let _call = sandbox.begin(Instant::now() + PREPARE_BUDGET);
        let (host, clean, globals) = realm.with(|js| -> Result<_, rquickjs::Error> {
            let bytes = match PRELUDE_BYTECODE.get() {
                Some(b) => b,
                None => {
                    let b = compile(&js, PRELUDE, true)?;
                    let u = compile(&js, UNDERSCORE, true)?;
                    let h = compile(&js, HARDEN, true)?;
                    UNDERSCORE_BYTECODE.get_or_init(|| u);
                    HARDEN_BYTECODE.get_or_init(|| h);
                    PRELUDE_BYTECODE.get_or_init(|| b)
                }
            };
            let prelude = Function::from_value(eval_bytecode(&js, bytes)?)?;
            let load = c_function(&js, load_underscore, c"loadUnderscore")?;
            let host: Object = prelude.call((js.globals(), load))?;
            let harden_bytes = HARDEN_BYTECODE.get().ok_or(rquickjs::Error::Unknown)?;
            let harden = Function::from_value(eval_bytecode(&js, harden_bytes)?)?;
            let random = c_function(&js, random, c"random")?;
            let dynamic: Function = host.get("dynamicCode")?;
            let checks: Object = harden.call((js.globals(), random, dynamic))?;
            let clean: Function = checks.get("clean")?;
            let mut roots = class_prototypes(&js)?;
            let originals: rquickjs::Array = checks.get("originals")?;
            for v in originals.iter::<rquickjs::Value>() {
                roots.push(v?);
            }
            let global = js.globals().into_value();
            roots.push(global.clone());
            freeze_reachable(&js, &global, &roots)?;
            let globals = global_keys(&js).ok_or(rquickjs::Error::Unknown)?;
            Ok((
                Persistent::save(&js, host),
                Persistent::save(&js, clean),
                globals,
            ))
        })?;
        Ok(Fresh {
            host,
            clean,
            compiled: Compiled::default(),
            functions: None,
            realm,
            sandbox,
            calls: 0,
            globals,
        })
    }

    /// The prelude's engine-side functions, in `js` (this realm).
    pub fn host<'js>(&self, js: &rquickjs::Ctx<'js>) -> rquickjs::Result<Object<'js>> {
        self.host.clone().restore(js)
    }

    /// harden.js's check that a call left the realm as it found it.
    pub fn clean<'js>(&self, js: &rquickjs::Ctx<'js>) -> rquickjs::Result<Function<'js>> {
        self.clean.clone().restore(js)
    }
}

/// How many own properties (string and symbol keys) `js`'s global object has: the after-call
/// check compares it with the hardened realm's count before it looks any closer (a JavaScript
/// `Reflect.ownKeys` of the global object was ~45 K instructions a call, this ~3 K).
pub(super) fn global_keys(js: &rquickjs::Ctx<'_>) -> Option<u32> {
    let global = js.globals();
    let mut tab: *mut qjs::JSPropertyEnum = std::ptr::null_mut();
    let mut len: u32 = 0;
    let flags = (qjs::JS_GPN_STRING_MASK | qjs::JS_GPN_SYMBOL_MASK) as i32;
    let ctx = js.as_raw().as_ptr();
    // SAFETY: `global` is a live object of this realm; the table QuickJS allocates is freed
    // with its atoms right away.
    unsafe {
        if qjs::JS_GetOwnPropertyNames(ctx, &mut tab, &mut len, global.as_raw(), flags) < 0 {
            return None;
        }
        qjs::JS_FreePropertyEnum(ctx, tab, len);
    }
    Some(len)
}

/// A C function of `js`'s realm with no data of its own.
fn c_function<'js>(
    js: &rquickjs::Ctx<'js>,
    f: unsafe extern "C" fn(
        *mut qjs::JSContext,
        qjs::JSValue,
        std::ffi::c_int,
        *mut qjs::JSValue,
    ) -> qjs::JSValue,
    name: &std::ffi::CStr,
) -> rquickjs::Result<rquickjs::Value<'js>> {
    // SAFETY: a plain C function of this realm, with no data of its own.
    unsafe {
        let v = qjs::JS_NewCFunction2(
            js.as_raw().as_ptr(),
            Some(f),
            name.as_ptr(),
            0,
            qjs::JSCFunctionEnum_JS_CFUNC_generic,
            0,
        );
        if qjs::JS_IsException(v) {
            return Err(rquickjs::Error::Exception);
        }
        Ok(rquickjs::Value::from_raw(js.clone(), v))
    }
}

/// The prototype of every class the runtime knows (QuickJS's own and rquickjs's), for
/// freeze.rs: among them the intrinsics only syntax reaches (generator and async function
/// prototypes, the iterators of arrays, maps, sets, strings and regular expressions, the
/// iterator helpers, the async-from-sync iterator), whether or not a path from the global object
/// leads to them.
fn class_prototypes<'js>(js: &rquickjs::Ctx<'js>) -> rquickjs::Result<Vec<rquickjs::Value<'js>>> {
    let mut out = Vec::new();
    // SAFETY: `JS_GetClassProto` is only asked for registered class ids (which are below the
    // runtime's class count, the bound it asserts); it returns a new reference, owned by the
    // `Value` made from it.
    unsafe {
        let ctx = js.as_raw().as_ptr();
        let rt = qjs::JS_GetRuntime(ctx);
        for id in 1..MAX_CLASS_ID {
            if !qjs::JS_IsRegisteredClass(rt, id) {
                continue;
            }
            let v = rquickjs::Value::from_raw(js.clone(), qjs::JS_GetClassProto(ctx, id));
            if v.is_object() {
                out.push(v);
            }
        }
        out.push(rquickjs::Value::from_raw(
            js.clone(),
            qjs::JS_GetFunctionProto(ctx),
        ));
    }
    Ok(out)
}

/// Above every class id QuickJS (about 70) and rquickjs register.
const MAX_CLASS_ID: qjs::JSClassID = 1024;

/// `Math.random()` of a hardened realm: from a generator outside it (`rand`'s, per thread), so
/// no call can learn where another left the realm's own.
unsafe extern "C" fn random(
    _ctx: *mut qjs::JSContext,
    _this: qjs::JSValue,
    _argc: std::ffi::c_int,
    _argv: *mut qjs::JSValue,
) -> qjs::JSValue {
    qjs::JS_NewFloat64(rand::random::<f64>())
}

/// The prelude compiled once per process, without its text or line numbers.
static PRELUDE_BYTECODE: OnceLock<Vec<u8>> = OnceLock::new();
/// `underscore.js`, compiled with the prelude.
static UNDERSCORE_BYTECODE: OnceLock<Vec<u8>> = OnceLock::new();
/// `harden.js`, compiled with the prelude.
static HARDEN_BYTECODE: OnceLock<Vec<u8>> = OnceLock::new();

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
    /// Hardened realms that ended their last call clean, with the database they serve.
    kept: VecDeque<(String, Fresh)>,
    /// Per database: calls that ran in a kept realm, realms retired after a call.
    counts: Option<HashMap<String, RealmCounts>>,
    started: bool,
}

/// How a database's realms were used (for tests: reuse is otherwise invisible by design).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct RealmCounts {
    /// Calls that ran in a realm an earlier call of the database left clean.
    pub reused: u64,
    /// Realms retired after a call (an error, a change to the global object, dynamic code, a
    /// pending job, hygiene).
    pub retired: u64,
    /// Calls that read their script's code into their realm (the realm had not kept it:
    /// `compiled.rs`).
    pub read: u64,
}

/// [`RealmCounts`] of `database`.
pub(super) fn counts(database: &str) -> RealmCounts {
    POOL.lock()
        .ok()
        .and_then(|p| p.counts.as_ref()?.get(database).copied())
        .unwrap_or_default()
}

/// The [`RealmCounts`] of every owner whose key starts with `prefix`, summed.
pub(super) fn counts_of_all(prefix: &str) -> RealmCounts {
    let mut sum = RealmCounts::default();
    if let Some(counts) = POOL.lock().ok().as_ref().and_then(|p| p.counts.as_ref()) {
        for (_, c) in counts.iter().filter(|(k, _)| k.starts_with(prefix)) {
            sum.reused += c.reused;
            sum.retired += c.retired;
            sum.read += c.read;
        }
    }
    sum
}

fn count(pool: &mut Pool, database: &str, f: impl FnOnce(&mut RealmCounts)) {
    let counts = pool.counts.get_or_insert_with(HashMap::new);
    match counts.get_mut(database) {
        Some(c) => f(c),
        None => f(counts.entry(database.to_owned()).or_default()),
    }
}

/// Adds the script reads of `f`'s calls since the last count to `database`'s.
fn count_reads(pool: &mut Pool, database: &str, f: &mut Fresh) {
    let reads = std::mem::take(&mut f.compiled.reads);
    if reads > 0 {
        count(pool, database, |c| c.read += reads);
    }
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    ready: Vec::new(),
    used: Vec::new(),
    kept: VecDeque::new(),
    counts: None,
    started: false,
});
static WAKE: Condvar = Condvar::new();

/// A realm for one call of `database`'s: one its earlier calls left clean, else one made ahead
/// of time, else a new one.
pub(super) fn take(database: &str) -> Result<Fresh, rquickjs::Error> {
    let ready = match POOL.lock() {
        Ok(mut pool) => {
            if !pool.started {
                pool.started = std::thread::Builder::new()
                    .name("js-sandboxes".into())
                    .spawn(work)
                    .is_ok();
            }
            match pool.kept.iter().rposition(|(db, _)| db == database) {
                Some(i) => {
                    count(&mut pool, database, |c| c.reused += 1);
                    pool.kept.remove(i).map(|(_, f)| f)
                }
                None => {
                    let f = pool.ready.pop();
                    WAKE.notify_one();
                    f
                }
            }
        }
        Err(_) => None,
    };
    match ready {
        Some(f) => Ok(f),
        None => Fresh::new(),
    }
}

/// Calls a realm serves before it is retired, however clean they were.
const MAX_CALLS: u32 = 1000;
/// Every this many calls, the realm's heap is measured ...
const MEMORY_EVERY: u32 = 64;
/// ... and the realm retired when it holds more than this (a hardened realm holds ~0.3 MB, and
/// stays there over calls that leave nothing behind).
const MEMORY_KEPT: i64 = 8 << 20;

/// Hands back the realm a call of `owner`'s ran in (`clean`: the call ended without an error
/// and harden.js's check found the realm as it was). The realm serves the owner's next call
/// only after a clean call: no error (a throw, a timeout, memory exhausted), nothing changed on
/// the global object, no code compiled at run time, no Promise job left to run (it would run
/// in a later call), and fewer than MAX_CALLS calls (hygiene: whatever a realm's heap holds
/// after many calls is let go).
pub(super) fn give_back(owner: &str, f: Fresh, clean: bool) {
    let reusable = clean
        && !f.sandbox.job_pending()
        && f.calls < MAX_CALLS
        && (!f.calls.is_multiple_of(MEMORY_EVERY) || f.sandbox.memory_used() < MEMORY_KEPT);
    if reusable {
        keep(owner, f);
    } else {
        retire(owner, f);
    }
}

/// Keeps a realm whose call ended clean for `database`'s next call; the oldest kept realm
/// beyond [`MAX_KEPT`] is freed.
fn keep(database: &str, mut f: Fresh) {
    if let Ok(mut pool) = POOL.lock() {
        count_reads(&mut pool, database, &mut f);
        pool.kept.push_back((database.to_owned(), f));
        if pool.kept.len() > MAX_KEPT {
            if let Some((_, old)) = pool.kept.pop_front() {
                if pool.started && pool.used.len() < MAX_USED {
                    pool.used.push(old);
                    WAKE.notify_one();
                } else {
                    drop(pool);
                    drop(old);
                }
            }
        }
    }
}

/// Retires the realm of a call of `database`'s that did not end clean.
fn retire(database: &str, mut f: Fresh) {
    if let Ok(mut pool) = POOL.lock() {
        count(&mut pool, database, |c| c.retired += 1);
        count_reads(&mut pool, database, &mut f);
    }
    dispose(f);
}

/// Hands a realm back to be freed off the caller's thread.
fn dispose(f: Fresh) {
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
