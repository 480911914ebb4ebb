//! Per physical partition and term (`path-hash · encoded value`), the number of index entries of
//! the term: what an index range (`WHERE c.x = 5`, `IN`, `c.x > 5`, `STARTSWITH`, spatial cells)
//! is checked against (issue 34).
//!
//! An index range reads part of a path's entries, which the per-path counters (`count_key`) do
//! not describe: entries lost from sound leaves (a damaged branch page sending the cursor past a
//! leaf, a leaf dropped from the tree) left such an answer short without an error. Each write
//! adjusts, in its own transaction, a counter for every term it adds or removes, kept under
//! `rid · FFFFFFFE · partition · term` (no physical partition has that id, so no entry scan sees
//! it). Counters sort as their entries' terms do, so the counters of a key range are one
//! contiguous walk: a scan compares the entries it read per term with the counters found in the
//! same range, and any difference (an entry lost, or a counter lost) is damage.
//!
//! A routed equality (`c.pk = 'p' AND c.x = 5`) reads `value · epk` ranges, a logical
//! partition's share of a term, which the partition's counter does not describe: each write also
//! keeps a counter per logical partition and term, under `rid · FFFFFFFD · epk · term` (no
//! physical partition in the key, so a split moves none of them; EPK first, so one item's
//! counters are neighbours and a write dirties a page or two for them, not one per term), and
//! each such range is compared with it ([`settle_logical`]).
//!
//! Stores written before the counters (or before the logical partitions' counters) get them
//! built from their entries the first time the writer opens them (`ensure`); until then (a
//! read-only open of such a store) the counters are unknown and index ranges are checked by their
//! leaves only.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

use heed::{RoTxn, RwTxn};

use super::scan::KeyRange;
use crate::error::Result;
use crate::partition::Epk;
use crate::storage::{audit, Store};

/// The partition id that marks a term counter (see the module header).
const MARK: [u8; 4] = 0xFFFF_FFFEu32.to_be_bytes();

/// The partition id that marks a logical partition's term counter.
const LP_MARK: [u8; 4] = 0xFFFF_FFFDu32.to_be_bytes();

/// The `meta` key present once every container's term counters, per physical and per logical
/// partition, are complete (`index/term-counts` marked the physical ones alone).
const READY: &str = "index/term-counts/2";
const READY_V1: &str = "index/term-counts";

/// On unless a benchmark turns the counters off to measure what they cost: neither kept by
/// writes nor compared by scans, and a second equality's missing entries not read for (`checking`) (`testing::set_term_counts`; a store written meanwhile has
/// wrong counters, so only for a benchmark's throw-away store).
static ON: AtomicBool = AtomicBool::new(true);

#[doc(hidden)]
pub fn set_term_counts(on: bool) {
    ON.store(on, Ordering::Relaxed);
}

/// Whether the index checks are on (always, but in a benchmark measuring them).
pub fn checking() -> bool {
    ON.load(Ordering::Relaxed)
}

/// `rid · FFFFFFFE · partition · term`.
pub fn count_key(rid: u32, partition: u32, term: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(12 + term.len());
    k.extend_from_slice(&rid.to_be_bytes());
    k.extend_from_slice(&MARK);
    k.extend_from_slice(&partition.to_be_bytes());
    k.extend_from_slice(term);
    k
}

/// Whether an index key is a term counter.
pub fn is_count_key(key: &[u8]) -> bool {
    key.len() > 12 && key[4..8] == MARK
}

/// `rid · FFFFFFFD · epk · term`: the entries of `term` in logical partition `epk`.
pub fn lp_count_key(rid: u32, term: &[u8], epk: &Epk) -> Vec<u8> {
    let mut k = Vec::with_capacity(24 + term.len());
    k.extend_from_slice(&rid.to_be_bytes());
    k.extend_from_slice(&LP_MARK);
    k.extend_from_slice(&epk.0);
    k.extend_from_slice(term);
    k
}

/// Whether an index key is a logical partition's term counter.
pub fn is_lp_count_key(key: &[u8]) -> bool {
    key.len() > 24 && key[4..8] == LP_MARK
}

/// The term and logical partition of a logical partition's term counter key.
pub fn of_lp_count_key(key: &[u8]) -> (&[u8], [u8; 16]) {
    (&key[24..], key[8..24].try_into().expect("checked length"))
}

/// The partition and term of a term counter key.
pub fn of_count_key(key: &[u8]) -> (u32, &[u8]) {
    (
        u32::from_be_bytes(key[8..12].try_into().expect("checked length")),
        &key[12..],
    )
}

fn value(v: &[u8]) -> u64 {
    v.try_into().map(u64::from_be_bytes).unwrap_or(u64::MAX)
}

/// Adds `delta` to the counter of `term` in partition `pp` (removed at zero).
pub fn adjust(
    store: &Store,
    wtxn: &mut RwTxn,
    rid: u32,
    pp: u32,
    term: &[u8],
    delta: i64,
) -> heed::Result<()> {
    if delta == 0 || !ON.load(Ordering::Relaxed) {
        return Ok(());
    }
    add(store, wtxn, &count_key(rid, pp, term), delta)
}

/// Adds `delta` to the counter of `term` in logical partition `epk` (removed at zero). Kept
/// beside [`adjust`] wherever an item's entries are written or removed; a split leaves it be.
pub fn adjust_logical(
    store: &Store,
    wtxn: &mut RwTxn,
    rid: u32,
    epk: &Epk,
    term: &[u8],
    delta: i64,
) -> heed::Result<()> {
    if delta == 0 || !ON.load(Ordering::Relaxed) {
        return Ok(());
    }
    add(store, wtxn, &lp_count_key(rid, term, epk), delta)
}

fn add(store: &Store, wtxn: &mut RwTxn, key: &[u8], delta: i64) -> heed::Result<()> {
    let current = store.index.get(wtxn, key)?.map_or(0, value);
    let next = (current as i64).saturating_add(delta).max(0) as u64;
    if next == 0 {
        store.index.delete(wtxn, key)?;
    } else {
        store.index.put(wtxn, key, &next.to_be_bytes())?;
    }
    Ok(())
}

/// Whether the store's term counters are complete (see the module header).
pub fn known(store: &Store, rtxn: &RoTxn) -> Result<bool> {
    Ok(ON.load(Ordering::Relaxed) && store.meta.get(rtxn, READY)?.is_some())
}

/// Builds the term counters of a store written before them, from its entries, in one
/// transaction: stale counters are dropped, every entry counted. Damage already in the entries
/// is counted as it is (`engine check` still finds it).
pub fn ensure(store: &Store) -> Result<()> {
    let rtxn = store.env.read_txn()?;
    if known(store, &rtxn)? {
        return Ok(());
    }
    drop(rtxn);
    let mut wtxn = store.env.write_txn()?;
    let mut counts: BTreeMap<Vec<u8>, u64> = BTreeMap::new();
    {
        let mut it = store.index.iter_mut(&mut wtxn)?;
        while let Some((k, _)) = it.next().transpose()? {
            if is_count_key(k) || is_lp_count_key(k) {
                // Safety: `k` is not used after the deletion.
                unsafe { it.del_current()? };
                continue;
            }
            if k.len() < super::MIN_ENTRY_LEN
                || super::is_count_key(k)
                || k[4..8] == u32::MAX.to_be_bytes()
            {
                continue;
            }
            let rid = u32::from_be_bytes(k[..4].try_into().expect("4"));
            let pp = u32::from_be_bytes(k[4..8].try_into().expect("4"));
            let term = super::term_of_entry(k);
            *counts.entry(count_key(rid, pp, term)).or_insert(0) += 1;
            let epk = super::epk_of_entry(k)?;
            *counts.entry(lp_count_key(rid, term, &epk)).or_insert(0) += 1;
        }
    }
    for (k, n) in &counts {
        store.index.put(&mut wtxn, k, &n.to_be_bytes())?;
    }
    store.meta.put(&mut wtxn, READY, &[1])?;
    store.meta.delete(&mut wtxn, READY_V1)?;
    wtxn.commit()?;
    Ok(())
}

/// The entries one index range of partition `pp` read, per term, to be compared with the
/// counters of that range ([`Tally::settle`]).
#[derive(Default)]
pub struct Tally {
    seen: BTreeMap<Vec<u8>, u64>,
}

impl Tally {
    /// Counts entry `k` (an entry key of the scanned range).
    pub fn count(&mut self, k: &[u8]) {
        if k.len() >= super::MIN_ENTRY_LEN {
            *self
                .seen
                .entry(super::term_of_entry(k).to_vec())
                .or_insert(0) += 1;
        }
    }

    /// Compares what was counted with the counters of `range`, an entry key range of partition
    /// `pp` whose bounds cut no term's entries apart (a value, a value range, a string prefix,
    /// spatial cells; not a `value · epk` range). Every counter in the range must equal the
    /// entries read of its term, and every term read must have one.
    pub fn settle(
        self,
        store: &Store,
        rtxn: &RoTxn,
        rid: u32,
        pp: u32,
        range: &KeyRange,
        container: &str,
    ) -> Result<()> {
        let mut seen = self.seen;
        if range.from.len() < 8 || range.to.len() < 8 {
            return Ok(());
        }
        let from = count_key(rid, pp, &range.from[8..]);
        let to = count_key(rid, pp, &range.to[8..]);
        let bounds = (
            std::ops::Bound::Included(from.as_slice()),
            std::ops::Bound::Excluded(to.as_slice()),
        );
        for entry in store.index.range(rtxn, &bounds)? {
            let (k, v) = entry?;
            // A damaged branch can hand out a key outside the bounds: damage, not a panic.
            if k.len() < 12 || k[..12] != from[..12] {
                return Err(audit::went_back(store, container));
            }
            let read = seen.remove(&k[12..]).unwrap_or(0);
            if read != value(v) {
                return Err(short(store, container, pp, read, value(v)));
            }
        }
        if let Some(n) = seen.values().next() {
            return Err(short(store, container, pp, *n, 0));
        }
        Ok(())
    }
}

/// Compares the entries a routed equality read in `range` (one value's entries in one logical
/// partition: `rid · pp · term · epk`) with the logical partition's counter of that term.
pub fn settle_logical(
    store: &Store,
    rtxn: &RoTxn,
    rid: u32,
    range: &KeyRange,
    read: u64,
    container: &str,
) -> Result<()> {
    let Some(at) = range.from.len().checked_sub(16).filter(|at| *at > 8) else {
        return Ok(());
    };
    let epk = Epk(range.from[at..].try_into().expect("16 bytes"));
    let key = lp_count_key(rid, &range.from[8..at], &epk);
    let counted = store.index.get(rtxn, &key)?.map_or(0, value);
    if read != counted {
        return Err(audit::damaged(
            store,
            format!(
                "an index scan of container '{container}' read {read} entries of a value in one \
                 logical partition, whose counter holds {counted}"
            ),
        ));
    }
    Ok(())
}

fn short(store: &Store, container: &str, pp: u32, read: u64, counted: u64) -> crate::error::Error {
    audit::damaged(
        store,
        format!(
            "an index scan of container '{container}' (physical partition {pp}) read {read} \
             entries of a value its counter holds {counted} of"
        ),
    )
}
