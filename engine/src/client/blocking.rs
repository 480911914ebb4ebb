//! Storage work off the caller's async thread. LMDB reads and query pages are synchronous: run
//! on the caller's thread, one 500 ms fan-out page would hold an actix worker, and every other
//! request on that worker — a 1 RU point read included — would wait for it (measured: a post
//! page at 0.4 ms p99 idle took 8.8–10.3 s while four clients loaded the blog's V1 feed).
//!
//! Two lanes: point reads go straight to tokio's blocking pool (microseconds each, never
//! queued behind anything), query pages and scans take a slot of a pool sized to the cores
//! first, so heavy queries queue among themselves instead of crowding out everything else.
//! Outside a tokio runtime (a plain thread, a benchmark) the work runs inline, as before.

use std::sync::OnceLock;

use tokio::sync::Semaphore;

use crate::error::{Error, Result};

/// Slots for query pages and scans: one per core.
fn heavy_slots() -> &'static Semaphore {
    static SLOTS: OnceLock<Semaphore> = OnceLock::new();
    SLOTS
        .get_or_init(|| Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get())))
}

async fn on_blocking_pool<R: Send + 'static>(
    f: impl FnOnce() -> Result<R> + Send + 'static,
) -> Result<R> {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => handle
            .spawn_blocking(f)
            .await
            .map_err(|e| Error::Unavailable(format!("a storage task failed: {e}")))?,
        Err(_) => f(),
    }
}

/// A point read (or other short read): on the blocking pool, never queued.
pub(crate) async fn light<R: Send + 'static>(
    f: impl FnOnce() -> Result<R> + Send + 'static,
) -> Result<R> {
    on_blocking_pool(f).await
}

/// A query page or a scan: waits for one of the per-core slots, then runs on the blocking pool.
pub(crate) async fn heavy<R: Send + 'static>(
    f: impl FnOnce() -> Result<R> + Send + 'static,
) -> Result<R> {
    if tokio::runtime::Handle::try_current().is_err() {
        return f();
    }
    let _slot = heavy_slots()
        .acquire()
        .await
        .map_err(|e| Error::Unavailable(format!("query slots: {e}")))?;
    on_blocking_pool(f).await
}
