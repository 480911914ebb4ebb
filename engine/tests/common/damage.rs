//! Damaged copies of a real store, shared by the `damage_*` tests (issue 34): LMDB leaf pages
//! found in a data file's bytes, cut the way a bad disk cuts them, a copy opened read-only, and
//! a raw LMDB handle that removes keys from sound pages behind the engine's back.

use std::path::Path;

use engine::{Engine, EngineOptions, StorageOptions};
use heed::types::Bytes;

/// LMDB's page size on the machines the tests run on.
pub const PAGE: usize = 4096;
/// `P_LEAF` in an LMDB page header's flags.
pub const P_LEAF: u16 = 0x02;

fn u16_at(page: &[u8], at: usize) -> usize {
    usize::from(u16::from_le_bytes([page[at], page[at + 1]]))
}

/// Whether page `n` of `bytes` is a leaf.
pub fn is_leaf(bytes: &[u8], n: usize) -> bool {
    let page = &bytes[n * PAGE..(n + 1) * PAGE];
    u16_at(page, 10) as u16 & P_LEAF != 0
}

/// The nodes of an LMDB leaf page: (key size, data bytes).
pub fn nodes(page: &[u8]) -> Vec<(usize, &[u8])> {
    let lower = u16_at(page, 12).min(PAGE);
    (16..lower)
        .step_by(2)
        .filter_map(|p| {
            let at = u16_at(page, p).min(PAGE - 8);
            let (size, ksize) = (
                u16_at(page, at) | u16_at(page, at + 2) << 16,
                u16_at(page, at + 6),
            );
            page.get(at + 8 + ksize..at + 8 + ksize + size)
                .map(|data| (ksize, data))
        })
        .collect()
}

/// The leaf pages of `bytes` whose every node passes `node` (key size, data), at least one.
pub fn leaves_where(bytes: &[u8], node: impl Fn(usize, &[u8]) -> bool) -> Vec<usize> {
    (2..bytes.len() / PAGE)
        .filter(|&n| {
            if !is_leaf(bytes, n) {
                return false;
            }
            let nodes = nodes(&bytes[n * PAGE..(n + 1) * PAGE]);
            !nodes.is_empty() && nodes.iter().all(|(k, d)| node(*k, d))
        })
        .collect()
}

/// Every leaf in `pages` loses its last key (`lower` = 16 + 2 × keys): LMDB walks it without
/// an error.
pub fn cut(bytes: &mut [u8], pages: &[usize]) {
    for n in pages {
        let at = n * PAGE + 12;
        let lower = u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        if lower > 16 + 2 {
            bytes[at..at + 2].copy_from_slice(&(lower - 2).to_le_bytes());
        }
    }
}

/// A copy of a data file in `dir`, opened read-only without a lock (as the CLI reads a copy).
pub fn open_copy(dir: &Path, bytes: &[u8]) -> Engine {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("data.mdb"), bytes).unwrap();
    Engine::open(
        dir,
        EngineOptions {
            storage: StorageOptions {
                read_only: true,
                no_lock: true,
                ..Default::default()
            },
            ..Default::default()
        },
    )
    .unwrap()
}

/// A copy of `bytes` in `dir` from which LMDB itself deletes the keys of table `table` that
/// `lost` picks (given every key in order): sound pages, the engine's counters untouched. Returns
/// the copy's bytes and how many keys were deleted.
pub fn delete_keys(
    dir: &Path,
    bytes: &[u8],
    table: &str,
    lost: impl FnOnce(Vec<Vec<u8>>) -> Vec<Vec<u8>>,
) -> (Vec<u8>, usize) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("data.mdb"), bytes).unwrap();
    let n;
    {
        let (env, db) = raw_table(dir, table);
        let mut wtxn = env.write_txn().unwrap();
        let keys: Vec<Vec<u8>> = db
            .iter(&wtxn)
            .unwrap()
            .map(|e| e.unwrap().0.to_vec())
            .collect();
        let doomed = lost(keys);
        n = doomed.len();
        for k in &doomed {
            db.delete(&mut wtxn, k).unwrap();
        }
        wtxn.commit().unwrap();
    }
    (std::fs::read(dir.join("data.mdb")).unwrap(), n)
}

/// Table `table` of the store in `dir`, opened through LMDB itself behind the engine's back.
/// Safety: the caller's process alone opens the store, once, with the engine closed.
pub fn raw_table(dir: &Path, table: &str) -> (heed::Env, heed::Database<'static, Bytes, Bytes>) {
    // Safety: as the function's contract says.
    let env = unsafe {
        heed::EnvOpenOptions::new()
            .max_dbs(16)
            .map_size(1 << 30)
            .open(dir)
            .unwrap()
    };
    let db = env
        .create_databases_and_commit(env.write_txn().unwrap(), |dbo, wtxn| {
            Ok::<_, heed::Error>(heed::CommitOrAbort::<_, ()>::Commit(
                dbo.create_database::<Bytes, Bytes>(wtxn, Some(table))?,
            ))
        })
        .unwrap()
        .unwrap_commit();
    (env, db)
}

/// Whether an error names the damage and what to do.
pub fn says_damaged(e: &str) -> bool {
    e.contains("is damaged") && e.contains("engine check")
}
