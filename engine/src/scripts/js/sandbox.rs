//! Where JavaScript runs: a QuickJS runtime (its heap, memory cap, stack cap and interrupt) and
//! a realm (a QuickJS context: its own global object, `Object.prototype`, `JSON`, …).
//!
//! Procedures and triggers run in hardened realms, one runtime each, kept per database
//! (`fresh.rs`); a query page's user-defined functions in one kept for its container's function
//! set (`udf.rs`). The checks of new script texts keep one runtime per thread (making one costs
//! more than a realm) unless a check exhausted its heap or was stopped by the interrupt: then
//! the next starts on a new runtime, whatever the one that poisoned it left behind.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rquickjs::context::intrinsic;
use rquickjs::{Context, Runtime};

use crate::error::{Error, Result};

/// What one script may allocate (Cosmos DB does not publish its figure; this is generous for
/// the documents a transaction of one logical partition can touch).
pub const MEMORY_LIMIT: usize = 64 << 20;
const STACK_LIMIT: usize = 512 << 10;

/// What a realm has: the language and its standard library (no typed arrays, weak references
/// or `Performance`, which no Cosmos DB script uses; making a realm is then a third cheaper).
type Intrinsics = (
    intrinsic::Date,
    intrinsic::Eval,
    intrinsic::RegExpCompiler,
    intrinsic::RegExp,
    intrinsic::Json,
    intrinsic::MapSet,
    intrinsic::Proxy,
    intrinsic::Promise,
);

/// How much of a call's own JavaScript is counted on the monotonic clock before the count moves
/// to the thread's CPU clock. The CPU clock leaves out time the machine gave to others (a
/// script is not stopped for a neighbour's load), but reading it is a system call (~0.8 µs
/// here, ~4% of a short procedure's call when read at every stretch); the monotonic clock is a
/// vDSO read (~25 ns) that counts a little more than the script's own time. Below this line a
/// call never reads the CPU clock; past it, the rest of its budget is counted in CPU time. The
/// articles' scripts stay well below it.
const WALL_COUNTED: Duration = Duration::from_millis(5);

/// When the interrupt stops the running JavaScript: a wall-clock deadline, and the call's own
/// JavaScript budget (see [`WALL_COUNTED`] for the clock it is counted on).
#[derive(Debug, Clone, Copy)]
struct Stop {
    at: Instant,
    /// The call's JavaScript budget (`None`: only the deadline bounds it).
    budget: Option<Duration>,
    /// JavaScript time counted before the running stretch.
    counted: Duration,
    /// The running stretch's start, on the clock it is counted on.
    stretch: Stretch,
}

#[derive(Debug, Clone, Copy)]
enum Stretch {
    /// No JavaScript of a budgeted call runs (an operation runs in the engine), or the call has
    /// no budget.
    None,
    Wall(Instant),
    Cpu(Duration),
}

impl Stop {
    fn new(at: Instant, budget: Option<Duration>) -> Stop {
        Stop {
            at,
            budget,
            counted: Duration::ZERO,
            stretch: Stretch::None,
        }
    }

    /// Whether the call must stop now. A stretch counted on the monotonic clock that crosses
    /// [`WALL_COUNTED`] goes on on the CPU clock, what it counted so far kept.
    fn reached(&mut self) -> bool {
        let now = Instant::now();
        if now > self.at {
            return true;
        }
        let Some(budget) = self.budget else {
            return false;
        };
        match self.stretch {
            Stretch::None => false,
            Stretch::Wall(since) => {
                let counted = self.counted + now.saturating_duration_since(since);
                if counted < WALL_COUNTED.min(budget) {
                    return false;
                }
                self.counted = counted;
                self.stretch = Stretch::Cpu(thread_cpu());
                counted >= budget
            }
            Stretch::Cpu(since) => self.counted + thread_cpu().saturating_sub(since) > budget,
        }
    }

    /// A stretch of JavaScript starts (already running, the count goes on).
    fn enter(&mut self) {
        if self.budget.is_none() || !matches!(self.stretch, Stretch::None) {
            return;
        }
        self.stretch = if self.counted < WALL_COUNTED {
            Stretch::Wall(Instant::now())
        } else {
            Stretch::Cpu(thread_cpu())
        };
    }

    /// The running stretch ends: its time is counted.
    fn leave(&mut self) {
        self.counted += match self.stretch {
            Stretch::None => Duration::ZERO,
            Stretch::Wall(since) => since.elapsed(),
            Stretch::Cpu(since) => thread_cpu().saturating_sub(since),
        };
        self.stretch = Stretch::None;
    }
}

/// CPU time this thread has used.
fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write; CLOCK_THREAD_CPUTIME_ID needs nothing else.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

pub(super) struct Sandbox {
    runtime: Runtime,
    /// When the running call stops, read by the interrupt handler.
    stop: Arc<Mutex<Stop>>,
    /// Interrupt-handler calls so far: QuickJS calls it once per 10 000 jumps and calls, so the
    /// count measures a script's work (charged as `ru::rate::SCRIPT_TICK`).
    ticks: Arc<AtomicU64>,
}

/// One call's bookkeeping: its deadline is set, its ticks are counted from here, and, on the
/// writer, the time its JavaScript ran is counted against a budget of its own.
pub(super) struct Call {
    ticks_before: u64,
    pub deadline: Instant,
    /// Whether the call's JavaScript budget was spent, as its last stretch left it.
    javascript_spent: bool,
}

impl Call {
    /// Whether the JavaScript budget, not the deadline, is what ran out.
    pub fn javascript_spent(&self) -> bool {
        self.javascript_spent && Instant::now() < self.deadline
    }
}

impl Sandbox {
    pub fn new() -> std::result::Result<Sandbox, rquickjs::Error> {
        let runtime = Runtime::new()?;
        runtime.set_memory_limit(MEMORY_LIMIT);
        runtime.set_max_stack_size(STACK_LIMIT);
        let stop = Arc::new(Mutex::new(Stop::new(Instant::now(), None)));
        let ticks = Arc::new(AtomicU64::new(0));
        let (s, t) = (stop.clone(), ticks.clone());
        runtime.set_interrupt_handler(Some(Box::new(move || {
            t.fetch_add(1, Ordering::Relaxed);
            s.lock().map(|mut s| s.reached()).unwrap_or(true)
        })));
        Ok(Sandbox {
            runtime,
            stop,
            ticks,
        })
    }

    /// Whether a Promise job waits to run (it would run in a later call of the runtime).
    pub fn job_pending(&self) -> bool {
        self.runtime.is_job_pending()
    }

    /// The bytes the runtime's heap holds (QuickJS counts them by walking it: not for every
    /// call).
    pub fn memory_used(&self) -> i64 {
        self.runtime.memory_usage().malloc_size
    }

    /// A realm no earlier call has touched.
    pub fn realm(&self) -> std::result::Result<Context, rquickjs::Error> {
        Context::custom::<Intrinsics>(&self.runtime)
    }

    /// Starts a call that must end by `deadline`.
    pub fn begin(&self, deadline: Instant) -> Call {
        self.start(Stop::new(deadline, None))
    }

    /// Starts a call that must end by `deadline` and whose own JavaScript may use `javascript`
    /// in all: the time between [`Sandbox::enter`] and [`Sandbox::leave`], counted as
    /// [`WALL_COUNTED`] says.
    pub fn begin_budgeted(&self, deadline: Instant, javascript: Duration) -> Call {
        self.start(Stop::new(deadline, Some(javascript)))
    }

    fn start(&self, stop: Stop) -> Call {
        if let Ok(mut s) = self.stop.lock() {
            *s = stop;
        }
        Call {
            ticks_before: self.ticks.load(Ordering::Relaxed),
            deadline: stop.at,
            javascript_spent: false,
        }
    }

    /// JavaScript is about to run: the interrupt stops it at the deadline or when its budget is
    /// spent, whichever comes first. Already running (no [`Sandbox::leave`] since the last
    /// stretch), the count goes on.
    pub fn enter(&self) {
        if let Ok(mut s) = self.stop.lock() {
            s.enter();
        }
    }

    /// JavaScript stopped running (an operation runs now, in the engine): its time is counted.
    pub fn leave(&self, call: &mut Call) {
        if let Ok(mut s) = self.stop.lock() {
            s.leave();
            call.javascript_spent = s.budget.is_some_and(|b| s.counted >= b);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn spin(d: Duration) {
        let until = thread_cpu() + d;
        while thread_cpu() < until {}
    }

    #[test]
    fn a_budget_counts_the_first_milliseconds_on_the_wall_then_only_cpu_time() {
        let mut stop = Stop::new(
            Instant::now() + Duration::from_secs(60),
            Some(Duration::from_millis(50)),
        );
        stop.enter();
        assert!(
            matches!(stop.stretch, Stretch::Wall(_)),
            "a call starts on the cheap clock"
        );
        // Time the thread does not run (given to others) counts on the wall clock...
        std::thread::sleep(Duration::from_millis(20));
        assert!(!stop.reached());
        assert!(
            matches!(stop.stretch, Stretch::Cpu(_)),
            "past the line the CPU clock counts"
        );
        assert!(
            stop.counted >= Duration::from_millis(20),
            "what the wall counted is kept"
        );
        // ...and not once the count moved to the CPU clock.
        std::thread::sleep(Duration::from_millis(40));
        assert!(!stop.reached(), "sleeping spends no CPU time");
        stop.leave();
        assert!(
            stop.counted < Duration::from_millis(50),
            "{:?}",
            stop.counted
        );
        // The next stretch starts on the CPU clock and stops the call once its budget is spent.
        stop.enter();
        assert!(matches!(stop.stretch, Stretch::Cpu(_)));
        spin(Duration::from_millis(40));
        assert!(stop.reached());
        stop.leave();
        assert!(stop.counted >= Duration::from_millis(50));
    }

    #[test]
    fn a_budget_below_the_line_is_held_on_the_wall_clock() {
        let mut stop = Stop::new(
            Instant::now() + Duration::from_secs(60),
            Some(Duration::from_millis(1)),
        );
        stop.enter();
        assert!(!stop.reached());
        spin(Duration::from_millis(2));
        assert!(stop.reached());
    }

    #[test]
    fn only_the_deadline_stops_a_call_without_budget_and_between_stretches() {
        let later = Instant::now() + Duration::from_secs(60);
        let mut unbudgeted = Stop::new(later, None);
        unbudgeted.enter();
        spin(Duration::from_millis(10));
        assert!(!unbudgeted.reached());
        let mut budgeted = Stop::new(later, Some(Duration::from_millis(1)));
        budgeted.enter();
        budgeted.leave();
        spin(Duration::from_millis(10));
        assert!(
            !budgeted.reached(),
            "an operation's time is not the script's"
        );
        // The deadline bounds both, in a stretch or between two.
        let soon = Instant::now() + Duration::from_millis(1);
        let (mut a, mut b) = (
            Stop::new(soon, None),
            Stop::new(soon, Some(Duration::from_secs(1))),
        );
        a.enter();
        std::thread::sleep(Duration::from_millis(5));
        assert!(a.reached() && b.reached());
    }
}
