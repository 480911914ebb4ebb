//! The engine handle: one LMDB environment in a directory (Cosmos DB's account/client).

use std::collections::HashSet;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;

use tokio::sync::{mpsc, oneshot};

use super::options::EngineOptions;
use crate::catalog::{Catalog, DatabaseDef};
use crate::error::{Error, Result};
use crate::storage::Store;
use crate::writer::apply::Limits;
use crate::writer::ops::{WriteOp, WriteOutput};
use crate::writer::{self, Job, WriterOptions};

/// Directories open in this process: LMDB must not open one environment twice.
fn open_paths() -> &'static Mutex<HashSet<PathBuf>> {
    static PATHS: OnceLock<Mutex<HashSet<PathBuf>>> = OnceLock::new();
    PATHS.get_or_init(Default::default)
}

pub(crate) struct Inner {
    pub store: Arc<Store>,
    pub catalog: Arc<Catalog>,
    pub opts: EngineOptions,
    /// The change-feed processors built on this engine (for status pages).
    pub processors: super::registry::Registry,
    writer: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
    path: PathBuf,
    /// Held for the engine's life: one process writes a directory at a time (none when
    /// read-only: any number of processes may read beside the writer).
    _lock: Option<std::fs::File>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Closing the channel ends the writer after it answered everything queued.
        self.writer.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        open_paths()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.path);
    }
}

/// An open engine. Cheap to clone; the last clone dropped closes the store.
#[derive(Clone)]
pub struct Engine {
    pub(crate) inner: Arc<Inner>,
}

impl Engine {
    /// Opens (or creates) the engine stored in `dir`.
    pub fn open(dir: impl AsRef<Path>, opts: EngineOptions) -> Result<Engine> {
        if opts.storage.no_lock && !opts.storage.read_only {
            return Err(Error::bad_request(
                "no_lock is for reading only: a writer must hold LMDB's lock",
            ));
        }
        if !opts.storage.read_only {
            std::fs::create_dir_all(dir.as_ref())
                .map_err(|e| Error::Storage(heed::Error::Io(e)))?;
        }
        let path = dir.as_ref().canonicalize().map_err(|e| match e.kind() {
            // Only a reader gets here without the directory: it holds no engine data.
            std::io::ErrorKind::NotFound => Error::NotFound {
                what: format!(
                    "engine data in {} (no such directory)",
                    dir.as_ref().display()
                ),
            },
            _ => Error::Storage(heed::Error::Io(e)),
        })?;
        // Before anything is created in the directory (the lock file, LMDB's lock).
        crate::storage::validate_data_file(&path)?;
        if !open_paths()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(path.clone())
        {
            return Err(Error::bad_request(format!(
                "{} is already open in this process; clone the Engine instead",
                path.display()
            )));
        }
        let opened = (|| {
            let read_only = opts.storage.read_only;
            let lock = if read_only {
                None
            } else {
                Some(lock_directory(&path)?)
            };
            let store = Arc::new(Store::open(&path, &opts.storage)?);
            let catalog = Arc::new(Catalog::default());
            let wopts = WriterOptions {
                max_group: opts.max_group.max(1),
                limits: Limits {
                    max_logical_partition_bytes: opts.max_logical_partition_bytes,
                },
                split_threshold_bytes: opts.split_threshold_bytes,
            };
            let handle = if read_only {
                writer::load_catalog(&store, &catalog)?;
                None
            } else {
                Some(writer::spawn(store.clone(), catalog.clone(), wopts)?)
            };
            Ok::<_, Error>((store, catalog, handle, lock))
        })();
        let (store, catalog, handle, lock) = match opened {
            Ok(x) => x,
            Err(e) => {
                open_paths()
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&path);
                return Err(e);
            }
        };
        let (writer, thread) = match handle {
            Some(mut h) => {
                spawn_purger(h.tx.downgrade());
                (Some(h.tx.clone()), h.thread.take())
            }
            None => (None, None),
        };
        Ok(Engine {
            inner: Arc::new(Inner {
                store,
                catalog,
                opts,
                processors: Default::default(),
                writer,
                thread,
                path,
                _lock: lock,
            }),
        })
    }

    /// Why this read-only engine reads without LMDB's lock file, when it does (see
    /// `StorageOptions::no_lock`): a writer changing the files meanwhile may go unnoticed.
    pub fn read_without_lock(&self) -> Option<&str> {
        self.inner.store.without_lock.as_deref()
    }

    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    pub async fn delete_database(&self, id: &str) -> Result<()> {
        self.submit(WriteOp::DeleteDatabase { id: id.to_owned() })
            .await
            .map(|_| ())
    }

    pub fn databases(&self) -> Vec<DatabaseDef> {
        self.inner.catalog.databases()
    }

    /// Bytes the LMDB memory map currently spans (it grows on demand).
    pub fn map_size(&self) -> usize {
        self.inner.store.map_size()
    }

    /// Sends `op` to the writer; resolves once its transaction is durable.
    pub(crate) fn submit(
        &self,
        op: WriteOp,
    ) -> impl Future<Output = Result<WriteOutput>> + Send + 'static {
        let sender = self.inner.writer.clone();
        async move {
            let sender =
                sender.ok_or_else(|| Error::Unavailable("the engine is open read-only".into()))?;
            let (reply, rx) = oneshot::channel();
            sender
                .send(Job { op, reply })
                .await
                .map_err(|_| Error::Unavailable("the writer has stopped".into()))?;
            rx.await
                .map_err(|_| Error::Unavailable("the writer stopped before answering".into()))?
        }
    }
}

/// Takes the directory's lock file exclusively. A second process writing the same files would
/// reuse LSNs and overwrite counters (the engine keeps them in memory between commits), so it is
/// refused with a clear error instead. The OS releases the lock when the process dies.
fn lock_directory(dir: &Path) -> Result<std::fs::File> {
    let path = dir.join("engine.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|e| {
            if crate::storage::lock_refused(&e) {
                Error::Unavailable(format!(
                    "{} cannot be written ({e}): this process may only read the directory (commands that read work); writing needs write access",
                    path.display()
                ))
            } else {
                Error::Storage(heed::Error::Io(e))
            }
        })?;
    match file.try_lock() {
        Ok(()) => {
            use std::io::Write;
            let _ = file.set_len(0);
            let _ = (&file).write_all(format!("{}\n", std::process::id()).as_bytes());
            Ok(file)
        }
        Err(std::fs::TryLockError::WouldBlock) => {
            let holder = std::fs::read_to_string(&path).unwrap_or_default();
            Err(Error::Unavailable(format!(
                "{} is open in another process (pid {}); stop it first",
                dir.display(),
                holder.trim()
            )))
        }
        Err(std::fs::TryLockError::Error(e)) => Err(Error::Storage(heed::Error::Io(e))),
    }
}

/// Asks the writer to purge expired items and old change-log records once a second. It holds
/// only a weak sender, so it never keeps a closing engine alive, and ends with the writer.
fn spawn_purger(writer: mpsc::WeakSender<Job>) {
    let spawned = std::thread::Builder::new()
        .name("engine-ttl".into())
        .spawn(move || loop {
            std::thread::sleep(std::time::Duration::from_secs(1));
            let Some(tx) = writer.upgrade() else { return };
            let (reply, _ignored) = oneshot::channel();
            if tx
                .blocking_send(Job {
                    op: WriteOp::Purge,
                    reply,
                })
                .is_err()
            {
                return;
            }
        });
    if let Err(e) = spawned {
        eprintln!("engine: TTL purge thread not started: {e}");
    }
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("path", &self.inner.path)
            .finish()
    }
}
