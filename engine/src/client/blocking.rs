//! Storage work off the caller's async thread. LMDB reads and query pages are synchronous: run
//! on the caller's thread, one 500 ms fan-out page would hold an actix worker, and every other
//! request on that worker — a 1 RU point read included — would wait for it (measured: a post
//! page at 0.4 ms p99 idle took 8.8–10.3 s while four clients loaded the blog's V1 feed).
//!
//! Two lanes: point reads and queries confined to one logical partition go straight to tokio's
//! blocking pool (never queued behind anything); cross-partition query pages and scans go to a
//! pool of their own at a lower CPU priority (nice 10). Heavy queries then use every idle core,
//! but when a point read or a page render needs a core the kernel gives it one at once instead of
//! sharing it evenly with the scans (measured in BENCHMARKS.md, "A 1 RU page beside heavy ones").
//!
//! Inside that pool, pages of a query whose last page ran long ([`LONG_PAGE`] of CPU time; a
//! heavy page runs to its time budget, 500 ms by default) wait in a queue of their own, and at most one thread per core
//! runs them; the pool has twice as many threads, and every other page (a `TOP 1` fan-out, a
//! query seen for the first time, a scan) is taken first by any free thread. A one-page fan-out
//! beside two clients paging through 500 ms pages no longer waits for one of them to end
//! (issue 33: it waited up to a heavy page, 228 ms p50; "TOP 1 beside heavy fan-outs" in
//! BENCHMARKS.md), while the heavy queries still get every core when nothing else runs.
//! Outside a tokio runtime (a plain thread, a benchmark) the work runs inline, as before.

use std::collections::{HashMap, VecDeque};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

type Job = Box<dyn FnOnce() + Send>;

/// Niceness of the heavy pool's threads (0 normal, 19 lowest).
const HEAVY_NICENESS: i32 = 10;

/// A page that takes longer than this marks its query as long: its next pages queue apart.
pub(crate) const LONG_PAGE: Duration = Duration::from_millis(50);

/// Queries remembered as long (their hashes); forgotten all at once past this many, so the set
/// stays small whatever the callers send.
const REMEMBERED: usize = 4_096;

/// The heavy pool's queues.
#[derive(Default)]
struct Queues {
    /// Pages of queries not known to be long, and scans: any free thread takes these first.
    fresh: VecDeque<Job>,
    /// Pages of queries whose last page ran long.
    long: VecDeque<Job>,
    /// Threads running a `long` job now (at most [`Pool::long_slots`]).
    running_long: usize,
}

struct Pool {
    queues: Mutex<Queues>,
    ready: Condvar,
    /// Threads that may run long pages at once: one per core.
    long_slots: usize,
}

/// Which queue a job waits in.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Lane {
    Fresh,
    Long,
}

impl Pool {
    fn push(&self, lane: Lane, job: Job) -> Result<()> {
        let mut q = self
            .queues
            .lock()
            .map_err(|_| Error::Unavailable("the query pool stopped".into()))?;
        match lane {
            Lane::Fresh => q.fresh.push_back(job),
            Lane::Long => q.long.push_back(job),
        }
        drop(q);
        // Every waiting thread looks: one that may not take a long job goes back to sleep.
        self.ready.notify_all();
        Ok(())
    }

    /// A thread's loop: fresh jobs first, long ones while a long slot is free.
    fn work(&self) {
        let Ok(mut q) = self.queues.lock() else {
            return;
        };
        loop {
            let (job, long) = if let Some(job) = q.fresh.pop_front() {
                (job, false)
            } else if q.running_long < self.long_slots && !q.long.is_empty() {
                q.running_long += 1;
                (q.long.pop_front().expect("not empty"), true)
            } else {
                q = match self.ready.wait(q) {
                    Ok(q) => q,
                    Err(_) => return,
                };
                continue;
            };
            drop(q);
            // A panicking query fails its own request, not the thread.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
            q = match self.queues.lock() {
                Ok(q) => q,
                Err(_) => return,
            };
            if long {
                q.running_long -= 1;
                // A long job may wait for the slot this one freed, and its thread may sleep.
                if !q.long.is_empty() {
                    self.ready.notify_all();
                }
            }
        }
    }
}

/// The heavy pool (its threads start on first use): two per core, one per core for long pages.
fn heavy_pool() -> &'static Pool {
    static POOL: OnceLock<&'static Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let pool: &'static Pool = Box::leak(Box::new(Pool {
            queues: Mutex::new(Queues::default()),
            ready: Condvar::new(),
            long_slots: cores,
        }));
        for i in 0..cores * 2 {
            let spawned = std::thread::Builder::new()
                .name(format!("engine-query-{i}"))
                .spawn(move || {
                    lower_priority();
                    pool.work();
                });
            if let Err(e) = spawned {
                eprintln!("engine: could not start a query thread: {e}");
            }
        }
        pool
    })
}

/// Queries known to be long (their hashes), each with the short pages it has had since its last
/// long one.
fn long_queries() -> &'static Mutex<HashMap<u64, u8>> {
    static LONG: OnceLock<Mutex<HashMap<u64, u8>>> = OnceLock::new();
    LONG.get_or_init(Default::default)
}

/// Short pages in a row after which a long query is fresh again: one short page (its last, a
/// lucky one) must not let every client of a heavy query jump the queue.
const SHORT_PAGES_TO_FORGET: u8 = 4;

fn is_long(query: u64) -> bool {
    long_queries().lock().is_ok_and(|s| s.contains_key(&query))
}

/// Remembers how long `query`'s page took: long, its next pages queue apart; short
/// [`SHORT_PAGES_TO_FORGET`] times in a row, it is fresh again.
fn remember(query: u64, took: Duration) {
    let Ok(mut s) = long_queries().lock() else {
        return;
    };
    if took > LONG_PAGE {
        if s.len() >= REMEMBERED {
            s.clear();
        }
        s.insert(query, 0);
    } else if let Some(short) = s.get_mut(&query) {
        *short += 1;
        if *short >= SHORT_PAGES_TO_FORGET {
            s.remove(&query);
        }
    }
}

/// CPU time this thread has used: what a page cost, whatever else ran beside it (wall time
/// would call a page long because heavy ones shared its core).
fn thread_cpu_time() -> Duration {
    #[cfg(target_os = "linux")]
    {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime writes the timespec it is given, which lives on this stack.
        if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0 {
            return Duration::new(t.tv_sec as u64, t.tv_nsec as u32);
        }
    }
    // Elsewhere: wall time since the process's first call, as a fallback.
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
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
    heavy_charged(Lane::Fresh, f).await
}

/// [`heavy`] for work that fails with its charge, in `lane`.
async fn heavy_charged<R: Send + 'static, E: From<Error> + Send + 'static>(
    lane: Lane,
    f: impl FnOnce() -> Result<R, E> + Send + 'static,
) -> Result<R, E> {
    if tokio::runtime::Handle::try_current().is_err() {
        return f();
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let _ = tx.send(f());
    });
    heavy_pool().push(lane, job)?;
    rx.await
        .map_err(|_| Error::Unavailable("a query task failed".into()))?
}

/// A cross-partition page of the query hashed `query`: in the long queue when its last page ran
/// long, else taken first; its own time decides for its next page.
async fn query_page_off_thread<R: Send + 'static, E: From<Error> + Send + 'static>(
    query: u64,
    f: impl FnOnce() -> Result<R, E> + Send + 'static,
) -> Result<R, E> {
    let lane = if is_long(query) {
        Lane::Long
    } else {
        Lane::Fresh
    };
    heavy_charged(lane, move || {
        let started = thread_cpu_time();
        let r = f();
        remember(query, thread_cpu_time().saturating_sub(started));
        r
    })
    .await
}

/// A query page: [`light`] when `light_work` (one logical partition), else a cross-partition
/// page of the query hashed `query` on the heavy pool (see the module's lanes); the error is the
/// work's own (a query page's `Failed` keeps its charge).
pub(crate) async fn query_page<R: Send + 'static, E: From<Error> + Send + 'static>(
    light_work: bool,
    query: u64,
    f: impl FnOnce() -> Result<R, E> + Send + 'static,
) -> Result<R, E> {
    if light_work {
        light(f).await
    } else {
        query_page_off_thread(query, f).await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{mpsc, Arc, Mutex};
    use std::time::Duration;

    use super::*;

    fn running_long() -> usize {
        heavy_pool().queues.lock().unwrap().running_long
    }

    /// Pages of a long query hold every long slot (more wait behind them); a page of another
    /// query is still taken at once, and the long ones never hold more than their slots. With
    /// one queue (before) the fresh page waited for the long ones: it timed out here.
    #[test]
    fn a_fresh_page_does_not_wait_for_long_ones() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let long = 0x7e57_1ade_0000_0001;
            remember(long, LONG_PAGE * 2);
            assert!(is_long(long));
            let slots = heavy_pool().long_slots;
            let (release, held) = mpsc::channel::<()>();
            let held = Arc::new(Mutex::new(held));
            let pages: Vec<_> = (0..slots * 2)
                .map(|_| {
                    let held = held.clone();
                    tokio::spawn(query_page(false, long, move || {
                        let _ = held.lock().unwrap().recv();
                        Ok::<_, Error>(())
                    }))
                })
                .collect();
            for _ in 0..400 {
                if running_long() == slots {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            assert_eq!(running_long(), slots);
            let fresh = tokio::time::timeout(
                Duration::from_secs(10),
                query_page(false, 0x7e57_1ade_0000_0002, || Ok::<_, Error>(42)),
            )
            .await
            .expect("the fresh page ran while the long ones held their slots");
            assert_eq!(fresh.unwrap(), 42);
            assert_eq!(running_long(), slots);
            for _ in 0..slots * 2 {
                release.send(()).unwrap();
            }
            for page in pages {
                page.await.unwrap().unwrap();
            }
            // Short pages in a row make its query fresh again (the held pages used no CPU:
            // they were short, and may have done it already).
            remember(long, LONG_PAGE * 2);
            for _ in 0..SHORT_PAGES_TO_FORGET {
                assert!(is_long(long));
                remember(long, Duration::ZERO);
            }
            assert!(!is_long(long));
        });
    }
}
