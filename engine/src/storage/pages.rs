//! A structure check of the LMDB leaf pages a scan enters (issue 34).
//!
//! LMDB keeps no page checksums, and a leaf whose key count (`lower`) shrank, or whose `upper`
//! moved, is walked without an error: the keys past the new count silently drop out of every
//! scan. Where no counter covers a scan (an index range answering `WHERE c.x = 5`), the leaf
//! itself is the only witness: on a sound leaf the nodes its pointers name fill exactly the
//! bytes from `upper` to the page's end (`mdb_node_add` takes each node's even size off
//! `upper`, `mdb_node_del` compacts and gives it back). A scan checks each leaf once, when its
//! first key comes from it: the key's address in the map names the page.
//!
//! Keys a write transaction returns from its dirty pages live outside the map and are not
//! checked; read transactions always return keys inside the map.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use super::{audit, Store};
use crate::error::{Error, Result};

/// LMDB's 64-bit page header: pgno(8) pad(2) flags(2) lower(2) upper(2), then the pointers.
const HEADER: usize = 16;
const NODE_HEADER: usize = 8;
const P_LEAF: u16 = 0x02;
const P_LEAF2: u16 = 0x20;
const P_SUBP: u16 = 0x40;
const F_BIGDATA: u16 = 0x01;

/// Where this process maps the store's data file: LMDB reports no address (`me_mapaddr` is
/// only set with `MDB_FIXEDMAP`), so it is read once from `/proc/self/maps` (the mapping of the
/// data file as long as the map) and again after a resize, which may move it. Elsewhere than
/// Linux no mapping is found and leaves go unchecked.
#[derive(Debug, Default)]
pub struct MapCache(Mutex<Option<Mapped>>);

#[derive(Debug, Clone, Copy)]
struct Mapped {
    /// The map size the lookup was made for.
    size: usize,
    /// The mapping's start, or 0 when none was found.
    base: usize,
}

impl MapCache {
    fn base(&self, file: &Path, size: usize) -> usize {
        let mut cached = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = cached.filter(|m| m.size == size) {
            return m.base;
        }
        let base = find_mapping(file, size).unwrap_or(0);
        *cached = Some(Mapped { size, base });
        base
    }
}

/// The start of the mapping of `file` that is `size` bytes long.
fn find_mapping(file: &Path, size: usize) -> Option<usize> {
    let file = file.canonicalize().ok()?;
    let file = file.to_str()?;
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines().find_map(|line| {
        let mut fields = line.split_whitespace();
        let (range, path) = (fields.next()?, fields.nth(4)?);
        let (start, end) = range.split_once('-')?;
        let start = usize::from_str_radix(start, 16).ok()?;
        let end = usize::from_str_radix(end, 16).ok()?;
        (path == file && end - start == size).then_some(start)
    })
}

/// On unless a benchmark turns it off to measure what it costs (`testing::set_leaf_checks`).
static LEAF_CHECKS: AtomicBool = AtomicBool::new(true);

/// Turns the leaf checks of every scan on or off (benchmarks only: off, damage passes silently).
pub fn set_leaf_checks(on: bool) {
    LEAF_CHECKS.store(on, Ordering::Relaxed);
}

/// Checks the leaves of one scan, each once.
pub struct LeafCheck {
    base: usize,
    len: usize,
    page_size: usize,
    last: Option<usize>,
}

impl LeafCheck {
    /// Call inside the scan's transaction: the map cannot move while one is open.
    pub fn new(store: &Store) -> LeafCheck {
        let len = store.env.info().map_size;
        let base = if LEAF_CHECKS.load(Ordering::Relaxed) {
            store.map.base(&store.data_file(), len)
        } else {
            0
        };
        LeafCheck {
            base,
            len: if base == 0 { 0 } else { len },
            page_size: store.env.unnamed_database_stat().page_size as usize,
            last: None,
        }
    }

    /// The leaf holding `key` (a slice LMDB returned) is sound, or the file is damaged.
    pub fn check(&mut self, store: &Store, key: &[u8]) -> Result<()> {
        let at = key.as_ptr() as usize;
        if self.page_size < 64 || at < self.base || at >= self.base + self.len {
            return Ok(());
        }
        let page = (at - self.base) / self.page_size;
        if self.last == Some(page) {
            return Ok(());
        }
        // Safety: LMDB returned `key` from this page of its map, inside the file, and a page
        // a read transaction sees is never written while it lives.
        let bytes = unsafe {
            std::slice::from_raw_parts(
                (self.base + page * self.page_size) as *const u8,
                self.page_size,
            )
        };
        if let Err(what) = leaf_fault(bytes) {
            return Err(damaged_leaf(store, page, &what));
        }
        self.last = Some(page);
        Ok(())
    }
}

fn damaged_leaf(store: &Store, page: usize, what: &str) -> Error {
    audit::damaged(store, format!("leaf page {page} {what}"))
}

/// Why `page` is not a sound leaf, if it is not.
fn leaf_fault(page: &[u8]) -> std::result::Result<(), String> {
    let u16_at = |at: usize| usize::from(u16::from_le_bytes([page[at], page[at + 1]]));
    let flags = u16_at(10) as u16;
    if flags & P_LEAF == 0 || flags & (P_LEAF2 | P_SUBP) != 0 {
        return Err(format!("holds a key but is not a leaf (flags {flags:#x})"));
    }
    let (lower, upper, size) = (u16_at(12), u16_at(14), page.len());
    if lower < HEADER || !lower.is_multiple_of(2) || upper < lower || upper > size {
        return Err(format!(
            "has impossible bounds (lower {lower}, upper {upper})"
        ));
    }
    let mut used = 0;
    for p in (HEADER..lower).step_by(2) {
        let at = u16_at(p);
        if at < upper || at + NODE_HEADER > size {
            return Err(format!("points outside its nodes ({at})"));
        }
        let data = u16_at(at) | u16_at(at + 2) << 16;
        let (node_flags, key) = (u16_at(at + 4) as u16, u16_at(at + 6));
        let data = if node_flags & F_BIGDATA != 0 { 8 } else { data };
        let node = (NODE_HEADER + key + data).next_multiple_of(2);
        if at + node > size {
            return Err(format!("has a node running past its end ({at})"));
        }
        used += node;
    }
    if used != size - upper {
        return Err(format!(
            "lost keys: its {} keys fill {used} bytes of the {} its nodes take",
            (lower - HEADER) / 2,
            size - upper
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A leaf of 4 096 bytes with nodes of the given (key, data) sizes, packed from the end.
    fn leaf(nodes: &[(usize, usize)]) -> Vec<u8> {
        let mut p = vec![0u8; 4096];
        p[10..12].copy_from_slice(&P_LEAF.to_le_bytes());
        let mut upper = 4096;
        for (i, (k, d)) in nodes.iter().enumerate() {
            upper -= (NODE_HEADER + k + d).next_multiple_of(2);
            p[upper..upper + 2].copy_from_slice(&(*d as u16).to_le_bytes());
            p[upper + 6..upper + 8].copy_from_slice(&(*k as u16).to_le_bytes());
            p[HEADER + 2 * i..HEADER + 2 * i + 2].copy_from_slice(&(upper as u16).to_le_bytes());
        }
        let lower = HEADER + 2 * nodes.len();
        p[12..14].copy_from_slice(&(lower as u16).to_le_bytes());
        p[14..16].copy_from_slice(&(upper as u16).to_le_bytes());
        p
    }

    #[test]
    fn a_sound_leaf_passes_and_one_that_lost_a_key_does_not() {
        let sound = leaf(&[(16, 21), (16, 22), (17, 0), (40, 300)]);
        assert_eq!(leaf_fault(&sound), Ok(()));
        let mut cut = sound.clone();
        cut[12..14].copy_from_slice(&((HEADER + 6) as u16).to_le_bytes());
        assert!(leaf_fault(&cut).unwrap_err().contains("lost keys"));
        let mut branch = sound.clone();
        branch[10] = 0x01;
        assert!(leaf_fault(&branch).is_err());
        let mut moved = sound;
        moved[14] ^= 0x10;
        assert!(leaf_fault(&moved).is_err());
    }
}
