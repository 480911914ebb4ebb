//! The LMDB environment: a fixed set of named databases, a read gate, and map growth.
//!
//! Containers are key prefixes, not LMDB databases: opening a named database is a linear search
//! and their number is fixed at open, so the layout uses nine and never more (see `keys`, and
//! `users` for its own table).

pub mod audit;
pub mod feed_entry;
pub mod keys;
pub mod pages;

use std::path::Path;

use heed::types::{Bytes, Str};
use heed::{CommitOrAbort, Database, Env, EnvOpenOptions, RoTxn, WithoutTls};
use parking_lot::RwLock;

use crate::error::{Error, Result};

/// The table of users and permissions (`users::table` says what it holds).
pub const USERS: &str = "users";

/// Options for the storage layer.
#[derive(Debug, Clone)]
pub struct StorageOptions {
    /// Initial size of the memory map. It grows by doubling when a write group finds it 3/4 full.
    pub initial_map_size: usize,
    /// The map never grows past this; writes then fail with 507 (Insufficient Storage).
    pub max_map_size: usize,
    /// LMDB reader slots: the bound on concurrent readers.
    pub max_readers: u32,
    /// Open an existing store for reading only, beside the process that writes it.
    pub read_only: bool,
    /// With `read_only`: read without LMDB's lock file (`lock.mdb`), for a copy this process may
    /// read but not write. Only safe when no process writes the directory meanwhile. A reader
    /// that is refused `lock.mdb` (EACCES, EPERM) falls back to this by itself.
    pub no_lock: bool,
}

impl Default for StorageOptions {
    fn default() -> Self {
        StorageOptions {
            initial_map_size: 256 << 20,
            max_map_size: 1 << 40,
            max_readers: 1024,
            read_only: false,
            no_lock: false,
        }
    }
}

pub struct Store {
    pub env: Env<WithoutTls>,
    /// Resource definitions (databases, containers with their partition maps), by string key.
    pub meta: Database<'static, Str, Bytes>,
    /// Items: `rid | epk | id` → header + JSON.
    pub docs: Database<'static, Bytes, Bytes>,
    /// Logical partition statistics: `rid | epk` → bytes, items, partition key value.
    pub lps: Database<'static, Bytes, Bytes>,
    /// Latest-version change feed: `rid | partition | lsn` → `epk | id`.
    pub feed: Database<'static, Bytes, Bytes>,
    /// All-versions-and-deletes change log: `rid | partition | lsn` → `epk | ts | JSON`.
    pub log: Database<'static, Bytes, Bytes>,
    /// The query index: `rid | partition | term | epk | id-hash` → `id-key` (see `index`).
    pub index: Database<'static, Bytes, Bytes>,
    /// TTL expiry index: `rid | expires-at | epk | id` → nothing.
    pub expiry: Database<'static, Bytes, Bytes>,
    /// Unique keys: `rid | epk | key number | hash of the values` → the id holding them.
    pub unique: Database<'static, Bytes, Bytes>,
    /// False when a read-only open found no `unique` table (a store written before unique keys,
    /// or one whose table was dropped): `unique` is then another table's handle, never read.
    pub has_unique_table: bool,
    /// Users and permissions (`users`); `None` only in a read-only open of a store written
    /// before them (which then has none).
    pub users: Option<Database<'static, Bytes, Bytes>>,
    /// Readers hold it shared for the life of their read transaction; growing the map takes it
    /// exclusively, because LMDB may only resize with no transaction open in the process.
    gate: RwLock<()>,
    max_map_size: usize,
    /// The data directory, named by "insufficient storage" errors.
    dir: std::path::PathBuf,
    /// Why the store is read without LMDB's lock, when it is.
    pub without_lock: Option<String>,
    /// Where the data file is mapped, for the leaf checks of scans (`pages`).
    pub(crate) map: pages::MapCache,
}

impl Store {
    pub fn open(dir: &Path, opts: &StorageOptions) -> Result<Store> {
        if opts.read_only {
            return Self::open_read_only(dir, opts);
        }
        std::fs::create_dir_all(dir).map_err(|e| Error::Storage(heed::Error::Io(e)))?;
        let page = page_size();
        let initial = round_up(opts.initial_map_size.max(page * 64), page);
        // Safety: the engine opens one `Env` per directory (the caller guards that) and never
        // uses the unsafe sync flags: every commit is durable.
        let env = unsafe {
            EnvOpenOptions::new()
                .read_txn_without_tls()
                .map_size(initial)
                .max_dbs(9)
                .max_readers(opts.max_readers)
                .open(dir)
                .map_err(|e| open_error(dir, e))?
        };
        check_not_truncated(dir, &env)?;
        // A data file larger than the requested map (a reopened, grown store) keeps its size.
        let info = env.info();
        let used = (info.last_page_number + 1) * page;
        if used * 4 > info.map_size * 3 {
            unsafe { env.resize(round_up(used * 2, page))? };
        }
        let wtxn = env.write_txn()?;
        let (meta, docs, lps, feed, log, index, expiry, unique, users) = env
            .create_databases_and_commit(wtxn, |dbo, wtxn| -> heed::Result<_> {
                Ok(CommitOrAbort::<_, ()>::Commit((
                    dbo.create_database::<Str, Bytes>(wtxn, Some("meta"))?,
                    dbo.create_database::<Bytes, Bytes>(wtxn, Some("docs"))?,
                    dbo.create_database::<Bytes, Bytes>(wtxn, Some("lps"))?,
                    dbo.create_database::<Bytes, Bytes>(wtxn, Some("feed"))?,
                    dbo.create_database::<Bytes, Bytes>(wtxn, Some("log"))?,
                    dbo.create_database::<Bytes, Bytes>(wtxn, Some("index"))?,
                    dbo.create_database::<Bytes, Bytes>(wtxn, Some("expiry"))?,
                    dbo.create_database::<Bytes, Bytes>(wtxn, Some("unique"))?,
                    dbo.create_database::<Bytes, Bytes>(wtxn, Some(USERS))?,
                )))
            })?
            .unwrap_commit();
        Ok(Store {
            env,
            meta,
            docs,
            lps,
            feed,
            log,
            index,
            expiry,
            unique,
            has_unique_table: true,
            users: Some(users),
            gate: RwLock::new(()),
            max_map_size: opts.max_map_size,
            dir: dir.to_path_buf(),
            without_lock: None,
            map: Default::default(),
        })
    }

    /// Opens an existing store for reading only, beside the process that writes it (LMDB lets
    /// any number of processes read while one writes).
    fn open_read_only(dir: &Path, opts: &StorageOptions) -> Result<Store> {
        if !dir.join("data.mdb").exists() {
            return Err(Error::NotFound {
                what: format!("engine data in {}", dir.display()),
            });
        }
        let open = |flags: heed::EnvFlags| {
            // Safety: READ_ONLY is a safe flag and the map size adopts the file's at open.
            // NO_LOCK is asked for (or fallen back to) only where the lock cannot be taken: the
            // caller is told the reads are then unprotected from a concurrent writer.
            unsafe {
                let mut options = EnvOpenOptions::new().read_txn_without_tls();
                options
                    .max_dbs(9)
                    .max_readers(opts.max_readers)
                    .flags(flags);
                options.open(dir)
            }
        };
        let lockless = heed::EnvFlags::READ_ONLY | heed::EnvFlags::NO_LOCK;
        let (env, without_lock) = if opts.no_lock {
            let env = open(lockless).map_err(|e| open_error(dir, e))?;
            (env, Some("asked for (--no-lock)".to_owned()))
        } else {
            match open(heed::EnvFlags::READ_ONLY) {
                Ok(env) => (env, None),
                Err(heed::Error::Io(e)) if lock_refused(&e) => {
                    let env = open(lockless).map_err(|e| open_error(dir, e))?;
                    let why = format!("{} cannot be written ({e})", dir.join("lock.mdb").display());
                    (env, Some(why))
                }
                Err(e) => return Err(open_error(dir, e)),
            }
        };
        check_not_truncated(dir, &env)?;
        let rtxn = env.read_txn()?;
        let dbs = env
            .open_databases_and_commit(rtxn, |dbo, rtxn| -> heed::Result<_> {
                let o = |name: &'static str| dbo.open_database::<Bytes, Bytes>(rtxn, Some(name));
                Ok(CommitOrAbort::<_, ()>::Commit((
                    dbo.open_database::<Str, Bytes>(rtxn, Some("meta"))?,
                    o("docs")?,
                    o("lps")?,
                    o("feed")?,
                    o("log")?,
                    o("index")?,
                    o("expiry")?,
                    o("unique")?,
                    o(USERS)?,
                )))
            })?
            .unwrap_commit();
        let missing = || Error::Corrupt(format!("{} lacks the engine's databases", dir.display()));
        let (meta, docs, lps, feed, log, index, expiry, unique, users) = dbs;
        let index = index.ok_or_else(missing)?;
        Ok(Store {
            meta: meta.ok_or_else(missing)?,
            docs: docs.ok_or_else(missing)?,
            lps: lps.ok_or_else(missing)?,
            feed: feed.ok_or_else(missing)?,
            log: log.ok_or_else(missing)?,
            index,
            expiry: expiry.ok_or_else(missing)?,
            // A store written before unique keys has none; reading never consults them, so the
            // index's handle stands in (never written: this store is read-only), and `check`
            // says the table is missing instead of reading it.
            has_unique_table: unique.is_some(),
            unique: unique.unwrap_or(index),
            users,
            env,
            gate: RwLock::new(()),
            max_map_size: opts.max_map_size,
            dir: dir.to_path_buf(),
            without_lock,
            map: Default::default(),
        })
    }

    /// Runs `f` in a fresh, short read transaction.
    pub fn read<R>(&self, f: impl FnOnce(&RoTxn<'_, WithoutTls>) -> Result<R>) -> Result<R> {
        let _gate = self.gate.read();
        let rtxn = self.env.read_txn()?;
        f(&rtxn)
    }

    /// Called by the writer before each write group, with no write transaction open: doubles the
    /// map when it is three quarters used, so `MapFull` stays the rare case it handles by growing.
    pub fn ensure_headroom(&self) -> Result<()> {
        let info = self.env.info();
        let used = (info.last_page_number + 1) * page_size();
        // At the configured maximum, the remaining quarter is still usable: writes go on until
        // LMDB itself reports the map full.
        if used * 4 > info.map_size * 3 && info.map_size < self.max_map_size {
            self.grow()?;
        }
        Ok(())
    }

    /// Doubles the map size (writer thread only, no write transaction open).
    pub fn grow(&self) -> Result<()> {
        let current = self.env.info().map_size;
        if current >= self.max_map_size {
            return Err(Error::StorageFull(format!(
                "the store in {} reached its configured maximum of {} bytes",
                self.dir.display(),
                self.max_map_size
            )));
        }
        let next = round_up((current * 2).min(self.max_map_size), page_size());
        let _exclusive = self.gate.write();
        // Safety: the gate excludes every reader and the caller (the writer) has no txn open.
        unsafe { self.env.resize(next)? };
        Ok(())
    }

    pub fn map_size(&self) -> usize {
        self.env.info().map_size
    }
}

fn page_size() -> usize {
    4096
}

fn round_up(n: usize, to: usize) -> usize {
    n.div_ceil(to) * to
}

/// Errors that mean this process may not write the lock file (a read-only copy, another user's
/// directory): a reader then opens without it. (A read-only file system, EROFS, LMDB handles.)
pub fn lock_refused(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::PermissionDenied
        || matches!(
            e.raw_os_error(),
            Some(libc::EACCES | libc::EPERM | libc::EROFS)
        )
}

/// LMDB's errors at open, with the file they are about.
fn open_error(dir: &Path, e: heed::Error) -> Error {
    let file = dir.join("data.mdb");
    match e {
        heed::Error::Mdb(
            heed::MdbError::Invalid | heed::MdbError::Corrupted | heed::MdbError::VersionMismatch,
        ) => Error::Corrupt(format!(
            "{} is not a readable engine data file ({e}); restore it from a backup (`engine backup`)",
            file.display()
        )),
        heed::Error::Io(io) if lock_refused(&io) => Error::Unavailable(format!(
            "{} cannot be written ({io}): this process may only read the directory (list, get, query, export, check, stats read without LMDB's lock); writing needs write access",
            dir.join("lock.mdb").display()
        )),
        other => Error::Storage(other),
    }
}

impl Store {
    /// A failed write's error: 507 whenever the cause is a full disk (see [`classify`]).
    pub fn classify(&self, e: heed::Error) -> Error {
        classify(e, &self.dir)
    }

    /// The data file, named when a read finds it damaged.
    pub fn data_file(&self) -> std::path::PathBuf {
        self.dir.join("data.mdb")
    }
}

/// Maps a failed write to 507 "insufficient storage", naming the directory, whenever the disk is
/// full: LMDB reports a full disk as ENOSPC (or EDQUOT) from a write, but as EIO when the kernel's
/// write-back fails at fsync, and as MDB_PANIC on every write after a failed meta page write.
/// Those two are 507 only when the file system is actually (nearly) full; otherwise they stay a
/// storage error (a failing disk is not a full one).
pub fn classify(e: heed::Error, dir: &Path) -> Error {
    classify_given(e, dir, || disk_full(dir))
}

/// `classify` with the file system's state given (tests inject it).
fn classify_given(e: heed::Error, dir: &Path, disk_full: impl Fn() -> bool) -> Error {
    let full = |what: &str| {
        Error::StorageFull(format!(
            "{what} writing {} ({e}); nothing acknowledged is lost: free space, then retry",
            dir.display()
        ))
    };
    match &e {
        heed::Error::Mdb(heed::MdbError::MapFull) => full("the memory map is full"),
        heed::Error::Io(io) if matches!(io.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT)) => {
            full("no space left on the device")
        }
        heed::Error::Io(io) if io.raw_os_error() == Some(libc::EIO) && disk_full() => {
            full("no space left on the device")
        }
        heed::Error::Mdb(heed::MdbError::Panic) if disk_full() => {
            full("no space left on the device")
        }
        _ => Error::Storage(e),
    }
}

/// Whether the file system holding `dir` has (almost) no space left for this process: less
/// than 64 MiB (a write group that failed needed at most its pages; a disk with gigabytes free
/// that answers EIO is failing, not full).
pub fn disk_full(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(path) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // Safety: statvfs writes into the zeroed struct it is given; the path is NUL-terminated.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut st) } != 0 {
        return false;
    }
    (st.f_bavail as u64).saturating_mul(st.f_frsize as u64) < (64 << 20)
}

/// The key range from `lo` (inclusive) to the end of the database.
pub fn from(lo: &[u8]) -> (std::ops::Bound<&[u8]>, std::ops::Bound<&[u8]>) {
    (std::ops::Bound::Included(lo), std::ops::Bound::Unbounded)
}

/// Refuses a `data.mdb` that cannot be an LMDB file before LMDB opens it: LMDB would take an
/// empty file for a new store (a writer then silently starts over) or fail without naming the
/// file. An LMDB file starts with two meta pages, each with the magic number after the page header.
pub fn validate_data_file(dir: &Path) -> Result<()> {
    use std::io::Read;
    let file = dir.join("data.mdb");
    let mut f = match std::fs::File::open(&file) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(Error::Storage(heed::Error::Io(std::io::Error::new(
                e.kind(),
                format!("{}: {e}", file.display()),
            ))))
        }
    };
    let not_engine = |why: String| {
        Error::Corrupt(format!(
            "{} is not an engine data file: {why}; restore it from a backup (`engine backup`), or move it away to start an empty store",
            file.display()
        ))
    };
    let mut head = vec![0u8; 2 * page_size()];
    let mut len = 0;
    while len < head.len() {
        match f.read(&mut head[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) => return Err(not_engine(format!("it cannot be read ({e})"))),
        }
    }
    if len < head.len() {
        return Err(not_engine(format!(
            "it holds {len} bytes, less than LMDB's two {}-byte meta pages",
            page_size()
        )));
    }
    const MAGIC: u32 = 0xBEEF_C0DE;
    let magic = |page: usize| {
        let at = page * page_size() + 16;
        u32::from_ne_bytes(head[at..at + 4].try_into().expect("4 bytes"))
    };
    if magic(0) != MAGIC && magic(1) != MAGIC {
        return Err(not_engine(
            "neither meta page has LMDB's magic number".into(),
        ));
    }
    Ok(())
}

/// Refuses a data file shorter than its own meta page says it is (a copy cut short by a full
/// disk, a bad backup): mapping it would crash the process with SIGBUS at the first read past
/// the end, so it is reported, naming the file, before any page is read.
fn check_not_truncated(dir: &Path, env: &heed::Env<heed::WithoutTls>) -> Result<()> {
    let file = dir.join("data.mdb");
    let len = std::fs::metadata(&file)
        .map_err(|e| Error::Storage(heed::Error::Io(e)))?
        .len() as usize;
    let needed = (env.info().last_page_number + 1) * page_size();
    if len < needed {
        return Err(Error::Corrupt(format!(
            "{} is truncated: it holds {len} bytes but its last committed page ends at byte {needed}; restore it from a backup (`engine backup`)",
            file.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fallback to a lockless read is taken on exactly the errors that mean "this process
    /// may not write the lock file" (injected here: as root, permission bits never refuse).
    #[test]
    fn a_refused_lock_file_is_told_from_other_errors() {
        for code in [libc::EACCES, libc::EPERM, libc::EROFS] {
            assert!(lock_refused(&std::io::Error::from_raw_os_error(code)));
        }
        for code in [libc::ENOENT, libc::EIO, libc::ENOSPC, libc::EISDIR] {
            assert!(!lock_refused(&std::io::Error::from_raw_os_error(code)));
        }
        let dir = Path::new("/x");
        let e = open_error(
            dir,
            heed::Error::Io(std::io::Error::from_raw_os_error(libc::EACCES)),
        );
        assert_eq!(e.status_code(), 503);
        assert!(
            e.to_string().contains("/x/lock.mdb cannot be written"),
            "{e}"
        );
    }

    /// A full disk is 507 naming the directory, however LMDB reports it; EIO and MDB_PANIC only
    /// when the file system really is full (injected: this one is not).
    #[test]
    fn a_full_disk_is_always_507() {
        let dir = Path::new("/srv/data");
        let io = |code| heed::Error::Io(std::io::Error::from_raw_os_error(code));
        for full in [false, true] {
            for e in [
                io(libc::ENOSPC),
                io(libc::EDQUOT),
                heed::Error::Mdb(heed::MdbError::MapFull),
            ] {
                let e = classify_given(e, dir, || full);
                assert_eq!(e.status_code(), 507, "{e}");
                assert!(e.to_string().contains("/srv/data"), "{e}");
            }
        }
        for e in [io(libc::EIO), heed::Error::Mdb(heed::MdbError::Panic)] {
            assert_eq!(classify_given(e, dir, || false).status_code(), 500);
        }
        for e in [io(libc::EIO), heed::Error::Mdb(heed::MdbError::Panic)] {
            let e = classify_given(e, dir, || true);
            assert_eq!(e.status_code(), 507, "{e}");
            assert!(e.to_string().contains("/srv/data"), "{e}");
        }
    }
}
