//! Bounds on evaluating one query, wherever it runs (a page for the REST API, the CLI or an app;
//! a script's `queryDocuments`): a deadline the evaluator itself looks at while it makes rows,
//! so one item whose JOINs multiply into millions of rows cannot run past it, and a ceiling on
//! the memory the rows of JOINs hold at once.
//!
//! The deadline is the caller's (a page's, a script's), set for the thread while the query runs
//! ([`with_deadline`]); without one (a unit test) nothing is stopped by time.

use std::cell::Cell;
use std::time::Instant;

use super::error::QueryError;

/// Bytes the rows made by JOINs may hold at once, in one item's expansion or in every item's
/// when a query gathers them all (the estimate of [`approx_size`]).
pub const MAX_JOIN_BYTES: usize = 64 << 20;

/// Rows made between two looks at the clock.
const CLOCK_EVERY: u32 = 1024;

thread_local! {
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    static COUNTDOWN: Cell<u32> = const { Cell::new(CLOCK_EVERY) };
}

/// Runs `f` with query evaluation on this thread stopped at `deadline`.
pub fn with_deadline<R>(deadline: Instant, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Instant>);
    impl Drop for Restore {
        fn drop(&mut self) {
            DEADLINE.with(|d| d.set(self.0));
            // The outermost deadline (a page, a script call) ends: what it compiled goes.
            if self.0.is_none() {
                forget_patterns();
            }
        }
    }
    let earlier = DEADLINE.with(|d| d.replace(Some(deadline)));
    // A deadline inside another (a script's query inside its call) keeps the earlier one.
    if let Some(e) = earlier.filter(|e| *e < deadline) {
        DEADLINE.with(|d| d.set(Some(e)));
    }
    let _restore = Restore(earlier);
    f()
}

/// Compiled patterns kept per thread while a page runs (its items reuse them; `RegexMatch` in
/// `functions/string.rs`); the cache is emptied when the page ends ([`forget_patterns`]), so at
/// most this many compiled patterns are held per running page.
pub(crate) const REGEX_CACHE: usize = 4;

type Compiled = Result<regex::Regex, QueryError>;

thread_local! {
    pub(crate) static REGEXES: std::cell::RefCell<std::collections::HashMap<(String, String), Compiled>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// Drops this thread's compiled patterns: called when a page (the outermost deadline) ends.
pub(crate) fn forget_patterns() {
    REGEXES.with(|cache| cache.borrow_mut().clear());
}

/// Called for every row the evaluator makes: past the deadline, the query stops with a 408.
pub fn tick(making: &str) -> Result<(), QueryError> {
    tick_with(|| {
        format!(
            "the query ran past its time budget while making the rows of {making}; \
             narrow it (a filter on the partition key, on an indexed path, or on the joined values)"
        )
    })
}

/// [`tick`] for other repeated work of the evaluator (a call of a costly function), with the
/// 408's message made only when it is needed.
pub fn tick_with(message: impl FnOnce() -> String) -> Result<(), QueryError> {
    let left = COUNTDOWN.with(|c| {
        let n = c.get().saturating_sub(1);
        c.set(if n == 0 { CLOCK_EVERY } else { n });
        n
    });
    if left != 0 {
        return Ok(());
    }
    match DEADLINE.with(Cell::get) {
        Some(d) if Instant::now() > d => Err(QueryError::Timeout(message())),
        _ => Ok(()),
    }
}

/// The memory held by rows made so far, against [`MAX_JOIN_BYTES`].
#[derive(Debug, Default)]
pub struct Held(usize);

impl Held {
    pub fn add(&mut self, bytes: usize, making: &str) -> Result<(), QueryError> {
        self.0 += bytes;
        if self.0 > MAX_JOIN_BYTES {
            return Err(QueryError::Semantic(format!(
                "the rows of {making} would hold more than {} MB at once (the limit of one query's \
                 JOIN rows); filter the joined values in the WHERE clause or use EXISTS or \
                 ARRAY_CONTAINS instead of a JOIN",
                MAX_JOIN_BYTES >> 20
            )));
        }
        Ok(())
    }
}

/// Roughly the bytes `v` takes in memory.
pub fn approx_size(v: &serde_json::Value) -> usize {
    use serde_json::Value;
    32 + match v {
        Value::String(s) => s.len(),
        Value::Array(a) => a.iter().map(approx_size).sum(),
        Value::Object(o) => o.iter().map(|(k, v)| k.len() + 32 + approx_size(v)).sum(),
        _ => 0,
    }
}
