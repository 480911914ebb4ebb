//! Storage work off the caller's async thread. LMDB reads and query pages are synchronous: run
//! on the caller's thread, one 500 ms fan-out page would hold an actix worker, and every other
//! request on that worker — a 1 RU point read included — would wait for it (measured: a post
//! page at 0.4 ms p99 idle took 8.8–10.3 s while four clients loaded the blog's V1 feed).
//!
//! Two lanes: point reads and queries confined to one logical partition go straight to tokio's
//! blocking pool (never queued behind anything); cross-partition query pages and scans go to a
//! pool of their own, one thread per
//! core at a lower CPU priority (nice 10). Heavy queries then use every idle core, but when a
//! point read or a page render needs a core the kernel gives it one at once instead of sharing
//! it evenly with the scans (measured in BENCHMARKS.md, "A 1 RU page beside heavy ones").
//! Outside a tokio runtime (a plain thread, a benchmark) the work runs inline, as before.

use std::sync::{mpsc, Arc, Mutex, OnceLock};

use crate::error::{Error, Result};

type Job = Box<dyn FnOnce() + Send>;

/// Niceness of the heavy pool's threads (0 normal, 19 lowest).
const HEAVY_NICENESS: i32 = 10;

/// The heavy pool's queue (its threads start on first use).
fn heavy_pool() -> &'static Mutex<mpsc::Sender<Job>> {
    static POOL: OnceLock<Mutex<mpsc::Sender<Job>>> = OnceLock::new();
    POOL.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        for i in 0..threads {
            let rx = rx.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("engine-query-{i}"))
                .spawn(move || {
                    lower_priority();
                    loop {
                        // The lock is held only while waiting for the next job.
                        let job = match rx.lock() {
                            Ok(rx) => rx.recv(),
                            Err(_) => return,
                        };
                        match job {
                            // A panicking query fails its own request, not the thread.
                            Ok(job) => {
                                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                            }
                            Err(_) => return,
                        }
                    }
                });
            if let Err(e) = spawned {
                eprintln!("engine: could not start a query thread: {e}");
            }
        }
        Mutex::new(tx)
    })
}

/// This thread at [`HEAVY_NICENESS`] (Linux sets niceness per thread); elsewhere unchanged.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority on this thread's own id only changes its scheduling priority.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, HEAVY_NICENESS);
    }
}

/// A point read (or other short read): on tokio's blocking pool, never queued. Generic over
/// the error, so work that fails with its charge (`Failed`) keeps it.
pub(crate) async fn light<R: Send + 'static, E: From<Error> + Send + 'static>(
    f: impl FnOnce() -> Result<R, E> + Send + 'static,
) -> Result<R, E> {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => handle
            .spawn_blocking(f)
            .await
            .map_err(|e| Error::Unavailable(format!("a storage task failed: {e}")))?,
        Err(_) => f(),
    }
}

/// A query page or a scan: queued for the heavy pool (one low-priority thread per core).
pub(crate) async fn heavy<R: Send + 'static>(
    f: impl FnOnce() -> Result<R> + Send + 'static,
) -> Result<R> {
    heavy_charged(f).await
}

/// [`heavy`] for work that fails with its charge.
async fn heavy_charged<R: Send + 'static, E: From<Error> + Send + 'static>(
    f: impl FnOnce() -> Result<R, E> + Send + 'static,
) -> Result<R, E> {
    if tokio::runtime::Handle::try_current().is_err() {
        return f();
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let _ = tx.send(f());
    });
    let stopped = || Error::Unavailable("the query pool stopped".into());
    heavy_pool()
        .lock()
        .map_err(|_| stopped())?
        .send(job)
        .map_err(|_| stopped())?;
    rx.await
        .map_err(|_| Error::Unavailable("a query task failed".into()))?
}

/// [`light`] when `light_work`, else [`heavy`]; the error is the work's own (a query page's
/// `Failed` keeps its charge).
pub(crate) async fn by_weight<R: Send + 'static, E: From<Error> + Send + 'static>(
    light_work: bool,
    f: impl FnOnce() -> Result<R, E> + Send + 'static,
) -> Result<R, E> {
    if light_work {
        light(f).await
    } else {
        heavy_charged(f).await
    }
}
