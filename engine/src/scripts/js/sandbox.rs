//! Where JavaScript runs: one QuickJS runtime per thread (its heap, memory cap, stack cap and
//! interrupt), and a fresh realm (a QuickJS context: its own global object, `Object.prototype`,
//! `JSON`, …) for every call. Nothing a call does to its globals or built-ins can be seen by the
//! next call, of this database or another: the realm it changed is gone.
//!
//! The runtime itself is kept (making one costs more than a realm) unless a call exhausted its
//! heap or was stopped by the interrupt: then the next call starts on a new runtime, whatever
//! the call that poisoned it left behind.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rquickjs::{Context, Runtime};

use crate::error::{Error, Result};

/// What one script may allocate (Cosmos DB does not publish its figure; this is generous for
/// the documents a transaction of one logical partition can touch).
pub const MEMORY_LIMIT: usize = 64 << 20;
const STACK_LIMIT: usize = 512 << 10;

pub(super) struct Sandbox {
    runtime: Runtime,
    /// The running call's deadline, read by the interrupt handler.
    deadline: Arc<Mutex<Instant>>,
    /// Interrupt-handler calls so far: QuickJS calls it once per 10 000 jumps and calls, so the
    /// count measures a script's work (charged as `ru::rate::SCRIPT_TICK`).
    ticks: Arc<AtomicU64>,
}

/// One call's bookkeeping: its deadline is set, its ticks are counted from here.
pub(super) struct Call {
    ticks_before: u64,
    pub deadline: Instant,
}

impl Sandbox {
    pub fn new() -> std::result::Result<Sandbox, rquickjs::Error> {
        let runtime = Runtime::new()?;
        runtime.set_memory_limit(MEMORY_LIMIT);
        runtime.set_max_stack_size(STACK_LIMIT);
        let deadline = Arc::new(Mutex::new(Instant::now()));
        let ticks = Arc::new(AtomicU64::new(0));
        let (d, t) = (deadline.clone(), ticks.clone());
        runtime.set_interrupt_handler(Some(Box::new(move || {
            t.fetch_add(1, Ordering::Relaxed);
            d.lock().map(|d| Instant::now() > *d).unwrap_or(true)
        })));
        Ok(Sandbox {
            runtime,
            deadline,
            ticks,
        })
    }

    /// A realm no earlier call has touched.
    pub fn realm(&self) -> std::result::Result<Context, rquickjs::Error> {
        Context::full(&self.runtime)
    }

    /// Starts a call that must end by `deadline`.
    pub fn begin(&self, deadline: Instant) -> Call {
        if let Ok(mut d) = self.deadline.lock() {
            *d = deadline;
        }
        Call {
            ticks_before: self.ticks.load(Ordering::Relaxed),
            deadline,
        }
    }

    /// The interrupt ticks a call has used. The first is free: where QuickJS's countdown stands
    /// when a call starts depends on the calls before it, so a short script costs nothing for
    /// its own code.
    pub fn ticks(&self, call: &Call) -> u64 {
        self.ticks
            .load(Ordering::Relaxed)
            .saturating_sub(call.ticks_before)
            .saturating_sub(1)
    }
}

thread_local! {
    static SANDBOX: RefCell<Option<Sandbox>> = const { RefCell::new(None) };
}

/// Runs `f` in this thread's sandbox (a sandbox of its own when the thread's is in use: a UDF
/// called while a script runs). After a call that was stopped or ran out of memory the runtime
/// is dropped, so the next call starts clean.
pub(super) fn with_sandbox<R>(id: &str, f: impl FnOnce(&Sandbox) -> Result<R>) -> Result<R> {
    SANDBOX.with(|cell| {
        let Ok(mut slot) = cell.try_borrow_mut() else {
            let own = Sandbox::new().map_err(|e| setup_failed(id, e))?;
            return f(&own);
        };
        if slot.is_none() {
            *slot = Some(Sandbox::new().map_err(|e| setup_failed(id, e))?);
        }
        let out = f(slot.as_ref().expect("just made"));
        if poisons(&out) {
            *slot = None;
        }
        out
    })
}

/// Whether a call's outcome leaves the runtime unfit for the next call.
fn poisons<R>(out: &Result<R>) -> bool {
    match out {
        Err(Error::RequestTimeout(_)) => true,
        Err(e) => e.to_string().contains("out of memory"),
        Ok(_) => false,
    }
}

pub(super) fn setup_failed(id: &str, e: rquickjs::Error) -> Error {
    Error::Unavailable(format!(
        "script '{id}': the JavaScript runtime did not start: {e}"
    ))
}

/// A deadline `budget` from now.
pub(super) fn after(budget: Duration) -> Instant {
    Instant::now() + budget
}

/// A script's exception as Cosmos DB reports it (400 with the script's message), or, when the
/// interrupt stopped it, the budget's 408.
pub(super) fn script_error(
    id: &str,
    js: &rquickjs::Ctx<'_>,
    e: rquickjs::Error,
    deadline: Instant,
    failures: &std::cell::RefCell<Vec<Error>>,
) -> Error {
    let message = match e {
        rquickjs::Error::Exception => {
            let v = js.catch();
            let index = v
                .as_object()
                .and_then(|o| o.get::<_, Option<f64>>("__failure").ok().flatten());
            if let Some(i) = index {
                let mut f = failures.borrow_mut();
                if (i as usize) < f.len() {
                    return std::mem::replace(&mut f[i as usize], Error::bad("script", "rethrown"));
                }
            }
            // Out of memory, QuickJS cannot even build its error: the exception is `null`.
            if v.is_null() {
                return Error::bad(
                    "script",
                    format!(
                        "script '{id}' ran out of memory (limit {} MB) or threw null; everything it did was rolled back",
                        MEMORY_LIMIT >> 20
                    ),
                );
            }
            exception_text(js, v)
        }
        other => other.to_string(),
    };
    if Instant::now() > deadline || message.contains("interrupted") {
        return Error::RequestTimeout(format!(
            "script '{id}' ran past its time budget and was stopped; everything it did was rolled back"
        ));
    }
    if message.contains("out of memory") {
        return Error::bad(
            "script",
            format!(
                "script '{id}' ran out of memory (limit {} MB); everything it did was rolled back",
                MEMORY_LIMIT >> 20
            ),
        );
    }
    Error::bad(
        "script",
        format!("Encountered exception while executing function '{id}'. Exception = {message}"),
    )
}

/// The pending exception as `Name: message` (or its JSON when a script threw a non-Error).
pub(super) fn exception_text<'js>(js: &rquickjs::Ctx<'js>, v: rquickjs::Value<'js>) -> String {
    if let Some(x) = v.as_exception() {
        let name = x
            .get::<_, String>("name")
            .unwrap_or_else(|_| "Error".into());
        return format!("{name}: {}", x.message().unwrap_or_default());
    }
    js.json_stringify(v)
        .ok()
        .flatten()
        .and_then(|s| s.to_string().ok())
        .unwrap_or_else(|| "an exception".into())
}

/// Cosmos DB runs scripts as plain (sloppy-mode) JavaScript, as browsers run a `<script>`;
/// rquickjs evaluates in strict mode unless told otherwise.
pub(super) fn sloppy() -> rquickjs::context::EvalOptions {
    let mut o = rquickjs::context::EvalOptions::default();
    o.strict = false;
    o
}
