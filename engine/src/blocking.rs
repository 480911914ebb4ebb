//! Storage work off the caller's async thread. LMDB reads and query pages are synchronous: run
//! on the caller's thread, one 500 ms fan-out page would hold an actix worker, and every other
//! request on that worker — a 1 RU point read included — would wait for it (measured: a post
//! page at 0.4 ms p99 idle took 8.8–10.3 s while four clients loaded the blog's V1 feed).
//!
//! Nothing runs on the caller's async thread, small reads included. Running known-small reads
//! there was measured (issue 36, BENCHMARKS.md "Small reads on the caller's thread": a 25-item
//! query 1.11–1.12× SQLite's time inline against 1.21–1.37× through the blocking pool) and not
//! kept: a read that meets an LMDB page not in memory waits for the disk, and every request of
//! that actix worker would wait with it. The hand-off is the price of that guarantee.
//!
//! The work goes in two lanes: point reads, queries confined to one logical partition, and pages
//! of a query whose pages of the same text (its *shape*, parameters left out) used under
//! [`CHEAP_LIMIT`] of CPU go straight to tokio's
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

/// A cross-partition page whose shape's pages used less CPU than this goes to the blocking pool
/// as a single-partition page does, never queued behind heavy pages (a 25-item page takes
/// ~0.1 ms).
pub(crate) const CHEAP_LIMIT: Duration = Duration::from_millis(1);

/// Cheap pages in a row after which a shape that once ran long counts as cheap again: a text
/// whose cost depends on its parameters (one large logical partition among small ones) must not
/// take an unqueued thread for a long page every few calls.
const CHEAP_PAGES_AFTER_LONG: u16 = 64;

/// What is known of a query shape's pages.
#[derive(Clone, Copy, Default)]
struct Shape {
    /// Pages in a row under [`CHEAP_LIMIT`].
    cheap: u16,
    /// Some page of this shape ran past [`CHEAP_LIMIT`].
    was_long: bool,
}

impl Shape {
    fn cheap(&self) -> bool {
        self.cheap
            >= if self.was_long {
                CHEAP_PAGES_AFTER_LONG
            } else {
                1
            }
    }
}

fn shapes() -> &'static Mutex<HashMap<u64, Shape>> {
    static SHAPES: OnceLock<Mutex<HashMap<u64, Shape>>> = OnceLock::new();
    SHAPES.get_or_init(Default::default)
}

/// The shape of a query: its container and text, not its parameters (the same statement runs
/// with other values, and costs about the same).
pub(crate) fn shape_of(database: &str, container: &str, sql: &str) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for part in [database, container, sql] {
        h.update(part.as_bytes());
        h.update(&[0]);
    }
    h.digest()
}

fn known_cheap(shape: u64) -> bool {
    shapes()
        .lock()
        .is_ok_and(|s| s.get(&shape).is_some_and(Shape::cheap))
}

/// Remembers what a page of `shape` cost, wherever it ran.
fn remember_shape(shape: u64, took: Duration) {
    let Ok(mut s) = shapes().lock() else {
        return;
    };
    if s.len() >= REMEMBERED && !s.contains_key(&shape) {
        s.clear();
    }
    let known = s.entry(shape).or_default();
    if took > CHEAP_LIMIT {
        *known = Shape {
            cheap: 0,
            was_long: true,
        };
    } else {
        known.cheap = known.cheap.saturating_add(1);
    }
}

/// A short read (a point read, a page within one logical partition or of a shape known cheap):
/// on tokio's blocking pool, never queued.
/// Generic over the error, so work that fails with its charge (`Failed`) keeps it.
pub(crate) async fn light<R: Send + 'static, E: From<Error> + Send + 'static>(
    f: impl FnOnce() -> Result<R, E> + Send + 'static,
) -> Result<R, E> {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => match handle.spawn_blocking(f).await {
            Ok(r) => r,
            Err(e) if e.is_panic() => Err(stopped(e.into_panic()).into()),
            Err(e) => Err(Error::Unavailable(format!("a storage task failed: {e}")).into()),
        },
        Err(_) => f(),
    }
}

/// What a storage task that panicked answers. Reading a sound store does not panic; reading a
/// damaged one can (a length or an offset that no longer fits), so the caller is told to check
/// the store, never left with a bare 503 (issue 34's campaign met one).
fn stopped(panic: Box<dyn std::any::Any + Send>) -> Error {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into());
    Error::Corrupt(format!(
        "a storage task stopped on data it could not read ({what}): the data directory may be \
         damaged; run `engine check`"
    ))
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
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
            .unwrap_or_else(|panic| Err(stopped(panic).into()));
        let _ = tx.send(r);
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

/// A query page of `shape` (see [`shape_of`]) hashed `query` (with its parameters): [`light`]
/// when `light_work` (one logical partition) or when the shape's pages are known cheap, else a
/// cross-partition page on the heavy pool (see the module's lanes). Its CPU time decides for
/// the shape's next page. The error is the work's own (a query page's `Failed` keeps its
/// charge).
pub(crate) async fn query_page<R: Send + 'static, E: From<Error> + Send + 'static>(
    light_work: bool,
    query: u64,
    shape: u64,
    f: impl FnOnce() -> Result<R, E> + Send + 'static,
) -> Result<R, E> {
    let timed = move || {
        let started = thread_cpu_time();
        let r = f();
        remember_shape(shape, thread_cpu_time().saturating_sub(started));
        r
    };
    if light_work || known_cheap(shape) {
        light(timed).await
    } else {
        query_page_off_thread(query, timed).await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{mpsc, Arc, Mutex};
    use std::time::Duration;

    use super::*;

    /// A storage task that panics (as reading a damaged page can) answers an error that names
    /// the likely cause and the way to check it, on both lanes; the pool's threads live on.
    #[test]
    fn a_panicking_task_answers_run_engine_check() {
        let rt = runtime(false);
        rt.block_on(async {
            for heavy_lane in [false, true] {
                let job = || -> Result<()> { panic!("index 9 out of range for slice of length 4") };
                let e = if heavy_lane {
                    heavy(job).await.unwrap_err()
                } else {
                    light(job).await.unwrap_err()
                };
                let text = e.to_string();
                assert!(matches!(e, Error::Corrupt(_)), "{text}");
                assert!(
                    text.contains("run `engine check`") && text.contains("out of range"),
                    "{text}"
                );
            }
            assert_eq!(heavy(|| Ok(7)).await.unwrap(), 7, "the pool still answers");
        });
    }

    /// Tests that fill the heavy pool's threads run one at a time.
    static POOL: Mutex<()> = Mutex::new(());

    /// A runtime for a test: two worker threads, or one thread as an actix worker has.
    fn runtime(multi_thread: bool) -> tokio::runtime::Runtime {
        let mut b = if multi_thread {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(2);
            b
        } else {
            tokio::runtime::Builder::new_current_thread()
        };
        b.enable_all().build().unwrap()
    }

    fn running_long() -> usize {
        heavy_pool().queues.lock().unwrap().running_long
    }

    /// Pages of a long query hold every long slot (more wait behind them); a page of another
    /// query is still taken at once, and the long ones never hold more than their slots. With
    /// one queue (before) the fresh page waited for the long ones: it timed out here.
    #[test]
    fn a_fresh_page_does_not_wait_for_long_ones() {
        let _pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        let rt = runtime(true);
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
                    tokio::spawn(query_page(false, long, long, move || {
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
                query_page(false, 0x7e57_1ade_0000_0002, 0x7e57_1ade_0000_0002, || {
                    Ok::<_, Error>(42)
                }),
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

    /// Spins for `cpu` of this thread's CPU time (a page that costs that much).
    fn burn(cpu: Duration) {
        let until = thread_cpu_time() + cpu;
        while thread_cpu_time() < until {
            std::hint::black_box(0u64);
        }
    }

    /// Where a page of `shape` ran: on tokio's blocking pool (`true`, unqueued) or in the heavy
    /// pool (`false`); never on the caller's async thread.
    async fn ran_unqueued(routed: bool, shape: u64, cpu: Duration) -> bool {
        let caller = std::thread::current().id();
        let (ran, name) = query_page(routed, shape, shape, move || {
            burn(cpu);
            let me = std::thread::current();
            Ok::<_, Error>((me.id(), me.name().map(str::to_owned)))
        })
        .await
        .unwrap();
        assert_ne!(
            ran, caller,
            "storage work never runs on the caller's async thread"
        );
        !name.is_some_and(|n| n.starts_with("engine-query-"))
    }

    /// A page within one logical partition is never queued; a cross-partition shape is queued
    /// in the heavy pool until a page of it is known cheap; a page past [`CHEAP_LIMIT`] sends it
    /// back until [`CHEAP_PAGES_AFTER_LONG`] cheap pages in a row. None runs on the caller's
    /// thread (an actix worker).
    #[test]
    fn a_cheap_shape_is_not_queued_and_a_long_page_sends_it_back() {
        let rt = runtime(false);
        rt.block_on(async {
            let routed = 0x7e57_5a4e_0000_0001;
            for _ in 0..3 {
                assert!(ran_unqueued(true, routed, Duration::ZERO).await, "routed");
            }
            let shape = 0x7e57_5a4e_0000_0002;
            assert!(
                !ran_unqueued(false, shape, Duration::ZERO).await,
                "unknown: queued"
            );
            assert!(
                ran_unqueued(false, shape, Duration::ZERO).await,
                "known cheap"
            );
            assert!(
                ran_unqueued(false, shape, CHEAP_LIMIT * 3).await,
                "not known long yet"
            );
            for _ in 0..CHEAP_PAGES_AFTER_LONG {
                assert!(
                    !ran_unqueued(false, shape, Duration::ZERO).await,
                    "was long"
                );
            }
            assert!(
                ran_unqueued(false, shape, Duration::ZERO).await,
                "cheap again"
            );
        });
    }

    /// A page of a known-cheap shape is answered while every thread of the heavy pool is held
    /// by other pages: it goes to the blocking pool, unqueued. Before, it queued behind them
    /// (timed out).
    #[test]
    fn a_cheap_page_does_not_wait_behind_heavy_pages() {
        let _pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        let rt = runtime(true);
        rt.block_on(async {
            let cheap = 0x7e57_5a4e_0000_0003;
            remember_shape(cheap, Duration::ZERO);
            let threads = heavy_pool().long_slots * 2;
            let (release, held) = mpsc::channel::<()>();
            let held = Arc::new(Mutex::new(held));
            let (started, running) = mpsc::channel::<()>();
            let pages: Vec<_> = (0..threads)
                .map(|i| {
                    let (held, started) = (held.clone(), started.clone());
                    let heavy = 0x7e57_4ea0_0000_0000 + i as u64;
                    tokio::spawn(query_page(false, heavy, heavy, move || {
                        started.send(()).unwrap();
                        let _ = held.lock().unwrap().recv();
                        Ok::<_, Error>(())
                    }))
                })
                .collect();
            // Every heavy thread holds a page (one takes the lock, the others wait for it).
            for _ in 0..threads {
                running.recv_timeout(Duration::from_secs(10)).unwrap();
            }
            let answer = tokio::time::timeout(
                Duration::from_secs(5),
                query_page(false, cheap, cheap, || Ok::<_, Error>(7)),
            )
            .await
            .expect("the cheap page ran while the heavy pool was full");
            assert_eq!(answer.unwrap(), 7);
            for _ in 0..threads {
                release.send(()).unwrap();
            }
            for page in pages {
                page.await.unwrap().unwrap();
            }
        });
    }
}
