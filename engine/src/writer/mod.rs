//! The writer: one thread owns every LMDB write transaction.
//!
//! Requests arrive on a channel; the writer drains what is queued (up to `max_group`), applies
//! each in one transaction, commits once (one fsync) and only then answers them all. Write
//! throughput therefore grows with load. A request is acknowledged only after its commit is
//! durable. If the map fills mid-group the transaction is aborted, the map grown and the whole
//! group re-applied, which is why operations are data, not closures.

pub mod apply;
pub mod atomic;
pub mod ops;
mod purge;
mod reindex;
mod resources;
pub mod script;
mod settings;
mod split;

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::Arc;
use std::thread::JoinHandle;

use tokio::sync::{mpsc, oneshot};

use crate::catalog::{self, Catalog, ContainerDef, DatabaseDef};
use crate::error::{Error, Result};
use crate::storage::Store;
use crate::ttl;
use apply::{Ctx, Limits};
use ops::{BatchFailure, Failure, ItemOpKind, WriteOp, WriteOutput};

pub struct Job {
    pub op: WriteOp,
    pub reply: oneshot::Sender<Result<WriteOutput>>,
}

#[derive(Debug, Clone)]
pub struct WriterOptions {
    pub max_group: usize,
    pub limits: Limits,
    /// A physical partition splits when its items exceed this many bytes.
    pub split_threshold_bytes: u64,
}

/// The writer's authoritative copy of the catalog; published to readers after each commit.
pub struct State {
    pub databases: HashMap<String, DatabaseDef>,
    pub containers: HashMap<u32, ContainerDef>,
    pub next_rid: u32,
}

impl State {
    pub fn load(store: &Store) -> Result<State> {
        let (dbs, cts, next_rid) = store.read(|rtxn| catalog::load_all(store, rtxn))?;
        Ok(State {
            databases: dbs.into_iter().map(|d| (d.id.clone(), d)).collect(),
            containers: cts.into_iter().map(|c| (c.rid, c)).collect(),
            next_rid,
        })
    }

    pub fn container_mut(&mut self, rid: u32) -> Result<&mut ContainerDef> {
        self.containers
            .get_mut(&rid)
            .ok_or_else(|| container_gone(rid))
    }

    pub fn rid_of(&self, db: &str, id: &str) -> Option<u32> {
        self.containers
            .values()
            .find(|c| c.database == db && c.id == id)
            .map(|c| c.rid)
    }
}

pub struct WriterHandle {
    pub tx: mpsc::Sender<Job>,
    pub thread: Option<JoinHandle<()>>,
}

/// Loads the stored definitions and publishes them to readers.
pub fn load_catalog(store: &Store, catalog: &Catalog) -> Result<State> {
    let state = State::load(store)?;
    for d in state.databases.values() {
        catalog.publish_database(d.clone());
    }
    for c in state.containers.values() {
        catalog.publish_container(c.clone());
    }
    Ok(state)
}

pub fn spawn(
    store: Arc<Store>,
    catalog: Arc<Catalog>,
    opts: WriterOptions,
) -> Result<WriterHandle> {
    // Stores written before the index's term counters get them once (index/terms.rs).
    crate::index::terms::ensure(&store)?;
    let state = load_catalog(&store, &catalog)?;
    let (tx, rx) = mpsc::channel(8192);
    let thread = std::thread::Builder::new()
        .name("engine-writer".into())
        .spawn(move || {
            Writer {
                store,
                catalog,
                opts,
                state,
                unsplittable: HashMap::new(),
            }
            .run(rx)
        })
        .map_err(|e| Error::Storage(heed::Error::Io(e)))?;
    Ok(WriterHandle {
        tx,
        thread: Some(thread),
    })
}

struct Writer {
    store: Arc<Store>,
    catalog: Arc<Catalog>,
    opts: WriterOptions,
    state: State,
    /// Partitions a split could not divide (one logical partition), with their size then:
    /// retried only after they grow by a quarter.
    unsplittable: HashMap<(u32, u32), u64>,
}

/// What applying a group changed, to persist and publish after commit.
#[derive(Default)]
struct Dirty {
    containers: BTreeSet<u32>,
    removed_containers: Vec<(String, String, u32)>,
    databases: BTreeSet<String>,
    removed_databases: Vec<String>,
    next_rid: bool,
}

impl Writer {
    fn run(mut self, mut rx: mpsc::Receiver<Job>) {
        // Scripts wait here while plain writes go first. A script holds the writer for as long
        // as its JavaScript runs (up to `ScriptBudget::max_javascript`), so it runs alone, in a
        // transaction of its own, and only when no plain write is waiting: a write waits for
        // one script at most, however many are queued, and never shares a commit with one.
        let mut scripts: VecDeque<Job> = VecDeque::new();
        let mut open = true;
        while open || !scripts.is_empty() {
            let busy = !scripts.is_empty() || self.rebuild_pending();
            let mut plain = Vec::new();
            let mut take = |job: Job, plain: &mut Vec<Job>| match job.op {
                WriteOp::Script { .. } => scripts.push_back(job),
                _ => plain.push(job),
            };
            if open {
                // Index rebuilds and queued scripts advance whenever the writer would wait.
                let first = if busy {
                    match rx.try_recv() {
                        Ok(j) => Some(j),
                        Err(mpsc::error::TryRecvError::Empty) => None,
                        Err(mpsc::error::TryRecvError::Disconnected) => {
                            open = false;
                            None
                        }
                    }
                } else {
                    let j = rx.blocking_recv();
                    open = j.is_some();
                    j
                };
                if let Some(j) = first {
                    take(j, &mut plain);
                    while plain.len() < self.opts.max_group {
                        match rx.try_recv() {
                            Ok(j) => take(j, &mut plain),
                            Err(_) => break,
                        }
                    }
                }
            }
            if !plain.is_empty() {
                self.process(plain);
            } else if let Some(script) = scripts.pop_front() {
                self.process(vec![script]);
            } else if self.rebuild_pending() {
                self.rebuild_step();
                continue;
            }
            // ...and after every group, so a busy writer still makes progress on them.
            if self.rebuild_pending() {
                self.rebuild_step();
            }
        }
    }

    fn rebuild_pending(&self) -> bool {
        self.state
            .containers
            .values()
            .any(|c| c.index_rebuild.is_some())
    }

    /// One bounded step of the first pending index rebuild, in its own transaction.
    fn rebuild_step(&mut self) {
        let Some(rid) = self
            .state
            .containers
            .values()
            .find(|c| c.index_rebuild.is_some())
            .map(|c| c.rid)
        else {
            return;
        };
        let mut next = self.state.containers[&rid].clone();
        match reindex::step(&self.store, &mut next) {
            Ok(_) => {
                self.catalog.publish_container(next.clone());
                self.state.containers.insert(rid, next);
            }
            Err(e) => {
                eprintln!("engine: index rebuild of container {rid} failed, retrying: {e}");
                if matches!(e, Error::Storage(heed::Error::Mdb(heed::MdbError::MapFull))) {
                    let _ = self.store.grow();
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        }
    }

    fn process(&mut self, jobs: Vec<Job>) {
        loop {
            if let Err(e) = self.store.ensure_headroom() {
                return fail_all(jobs, &storage_error(&self.store, e));
            }
            match self.try_group(&jobs) {
                Ok((results, dirty)) => {
                    self.publish(&dirty);
                    for (job, r) in jobs.into_iter().zip(results) {
                        let _ = job.reply.send(r);
                    }
                    self.split_if_needed(&dirty);
                    return;
                }
                Err(e) => {
                    // Nothing of the group committed: reload the in-memory state it changed.
                    if let Ok(s) = State::load(&self.store) {
                        self.state = s;
                    }
                    let map_full =
                        matches!(e, Error::Storage(heed::Error::Mdb(heed::MdbError::MapFull)));
                    if map_full {
                        if let Err(g) = self.store.grow() {
                            return fail_all(jobs, &storage_error(&self.store, g));
                        }
                        continue;
                    }
                    return fail_all(jobs, &storage_error(&self.store, e));
                }
            }
        }
    }

    /// Applies every job in one transaction and commits it. `Err` only for storage failures,
    /// which abort the whole group; a request's own failure is its `Ok(Err(..))` result.
    fn try_group(&mut self, jobs: &[Job]) -> Result<(Vec<Result<WriteOutput>>, Dirty)> {
        let store = self.store.clone();
        let mut wtxn = store.env.write_txn()?;
        let mut dirty = Dirty::default();
        let now = ttl::now();
        let mut results = Vec::with_capacity(jobs.len());
        let limits = self.opts.limits.clone();
        for job in jobs {
            let mut ctx = Ctx {
                store: &store,
                wtxn: &mut wtxn,
                now,
                limits: &limits,
                batch: None,
            };
            let r = self.apply(&mut ctx, &job.op, &mut dirty);
            if let Err(Error::Storage(_)) = &r {
                return Err(r.unwrap_err());
            }
            results.push(r);
        }
        for rid in &dirty.containers {
            if let Some(def) = self.state.containers.get(rid) {
                catalog::put_container(&store, &mut wtxn, def)?;
            }
        }
        if dirty.next_rid {
            store.meta.put(
                &mut wtxn,
                catalog::NEXT_RID_KEY,
                &self.state.next_rid.to_be_bytes(),
            )?;
        }
        wtxn.commit()?;
        Ok((results, dirty))
    }

    fn apply(&mut self, ctx: &mut Ctx, op: &WriteOp, dirty: &mut Dirty) -> Result<WriteOutput> {
        match op {
            WriteOp::Item { rid, op, index } => {
                let def = self.state.container_mut(*rid)?;
                let mut meter = crate::ru::Meter::default();
                let out = match apply::apply_item_metered(ctx, def, op, *index, &mut meter) {
                    Ok(out) => out,
                    // Storage failures abort the group (`try_group`).
                    Err(e @ Error::Storage(_)) => return Err(e),
                    // Refused, with nothing written: answered with what the refusal cost.
                    Err(error) => return Ok(WriteOutput::Failed(Failure { error, meter })),
                };
                if !matches!(op.kind, ItemOpKind::Read { .. }) {
                    dirty.containers.insert(*rid);
                }
                Ok(WriteOutput::Item(out))
            }
            WriteOp::Batch {
                rid,
                partition_key,
                ops,
            } => {
                let def = self.state.container_mut(*rid)?;
                let out = resources::apply_batch(ctx, def, partition_key, ops)?;
                if out.is_ok() {
                    dirty.containers.insert(*rid);
                }
                Ok(WriteOutput::Batch(out))
            }
            WriteOp::Script { rid, script } => {
                let def = self.state.container_mut(*rid)?;
                match script.run(ctx, def)? {
                    Ok(out) => {
                        dirty.containers.insert(*rid);
                        Ok(out)
                    }
                    Err(failure) => Ok(WriteOutput::Failed(failure)),
                }
            }
            WriteOp::Users(op) => {
                crate::users::table::apply(ctx, &self.state.databases, op).map(WriteOutput::Users)
            }
            WriteOp::Purge => {
                purge::run(ctx, &mut self.state, dirty)?;
                Ok(WriteOutput::Done)
            }
            other => resources::apply_resource(ctx, &mut self.state, other, dirty),
        }
    }

    fn publish(&self, dirty: &Dirty) {
        for id in &dirty.removed_databases {
            self.catalog.remove_database(id);
        }
        for (db, id, _) in &dirty.removed_containers {
            self.catalog.remove_container(db, id);
        }
        for id in &dirty.databases {
            if let Some(d) = self.state.databases.get(id) {
                self.catalog.publish_database(d.clone());
            }
        }
        for rid in &dirty.containers {
            if let Some(c) = self.state.containers.get(rid) {
                self.catalog.publish_container(c.clone());
            }
        }
    }

    /// Splits every touched physical partition that outgrew the threshold, one transaction each.
    fn split_if_needed(&mut self, dirty: &Dirty) {
        for rid in &dirty.containers {
            while let Some(def) = self.state.containers.get(rid) {
                let threshold = self.opts.split_threshold_bytes;
                let skip = |p: &crate::partition::PhysicalPartition| {
                    self.unsplittable
                        .get(&(*rid, p.id))
                        .is_some_and(|b| p.bytes < b + b / 4)
                };
                // Throughput past what the partitions serve splits the widest one in half.
                let wanted = def.throughput.map_or(0, crate::throughput::partitions_for);
                if def.partitions.len() < wanted {
                    let widest = (0..def.partitions.len())
                        .max_by_key(|&i| {
                            let (s, e) = def.partitions.range_of(i);
                            (
                                e.map_or(u64::MAX as u128 + 1, u128::from) - s as u128,
                                usize::MAX - i,
                            )
                        })
                        .map(|i| def.partitions.partitions[i].id);
                    let mut next = def.clone();
                    match widest.map(|id| split::split_for_throughput(&self.store, &mut next, id)) {
                        Some(Ok(true)) => {
                            self.state.containers.insert(*rid, next.clone());
                            self.catalog.publish_container(next);
                            continue;
                        }
                        Some(Err(e)) => eprintln!("engine: throughput split of {rid} failed: {e}"),
                        _ => {}
                    }
                }
                let Some(pp) = def
                    .partitions
                    .partitions
                    .iter()
                    .find(|p| p.bytes > threshold && !skip(p))
                else {
                    break;
                };
                let (pp_id, pp_bytes) = (pp.id, pp.bytes);
                let mut next = def.clone();
                match split::split(&self.store, &mut next, pp_id) {
                    Ok(true) => {
                        self.state.containers.insert(*rid, next.clone());
                        self.catalog.publish_container(next);
                    }
                    Ok(false) => {
                        self.unsplittable.insert((*rid, pp_id), pp_bytes);
                    }
                    Err(e) => {
                        eprintln!(
                            "engine: split of partition {pp_id} of container {rid} failed: {e}"
                        );
                        break;
                    }
                }
            }
        }
    }
}

fn container_gone(rid: u32) -> Error {
    Error::NotFound {
        what: format!("container with rid {rid} (deleted)"),
    }
}

fn storage_error(store: &Store, e: Error) -> Error {
    match e {
        Error::Storage(h) => store.classify(h),
        other => other,
    }
}

fn fail_all(jobs: Vec<Job>, e: &Error) {
    for job in jobs {
        let copy = match e {
            Error::StorageFull(m) => Error::StorageFull(m.clone()),
            other => Error::Unavailable(other.to_string()),
        };
        let _ = job.reply.send(Err(copy));
    }
}

pub(crate) fn batch_failure(
    index: usize,
    error: Error,
    meter: crate::ru::Meter,
    partition: u32,
) -> BatchFailure {
    BatchFailure {
        index,
        error,
        meter,
        partition,
    }
}
