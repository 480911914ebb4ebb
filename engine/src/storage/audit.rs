//! Cross-checks of what a scan read against what the engine counts (issue 34).
//!
//! LMDB keeps no page checksums: a damaged branch page, or a leaf whose key count shrank, makes a
//! cursor end early, skip a subtree or jump back, all without an error. A scan that covers a
//! whole scope (a physical partition, a logical partition, a hierarchical prefix's range)
//! therefore counts the keys it visits, checks that they only ever advance inside the scope's
//! bounds, and compares the count with the counter kept for that scope by every write (in other
//! pages: the partition map in `meta`, a logical partition's entry in `lps`). A difference is
//! damage, reported as such, never a short answer.

use heed::RoTxn;

use super::keys;
use super::Store;
use crate::error::{Error, Result};

/// Corrupt data: the data file named, what was found, and what to do.
pub fn damaged(store: &Store, what: impl std::fmt::Display) -> Error {
    Error::Corrupt(format!(
        "the data file {} is damaged: {what}; run `engine check`, restore it from a backup",
        store.data_file().display()
    ))
}

/// A scan went back, or outside its bounds: keys come in order inside them on a sound B-tree.
pub fn went_back(store: &Store, container: &str) -> Error {
    damaged(
        store,
        format!("a scan of container '{container}' went back to an earlier key or left its range"),
    )
}

/// What a walk of `lps` in the coordinate range `[start, end)` of container `rid` finds: the
/// logical partitions, their items and bytes summed, the walk's keys checked to advance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LpTotals {
    pub partitions: u64,
    pub items: u64,
    pub bytes: u64,
}

pub fn lp_totals(
    store: &Store,
    rtxn: &RoTxn,
    rid: u32,
    start: u64,
    end: Option<u64>,
    container: &str,
) -> Result<LpTotals> {
    Ok(lp_totals_within(store, rtxn, rid, start, end, container, u64::MAX)?.expect("unbounded"))
}

/// [`lp_totals`], or `None` once the walk passes `max` logical partitions (a check that would
/// cost more than it is worth where it is called).
pub fn lp_totals_within(
    store: &Store,
    rtxn: &RoTxn,
    rid: u32,
    start: u64,
    end: Option<u64>,
    container: &str,
    max: u64,
) -> Result<Option<LpTotals>> {
    let lo = keys::coordinate_key(rid, start);
    let hi = end
        .map(|e| keys::coordinate_key(rid, e).to_vec())
        .unwrap_or_else(|| (rid + 1).to_be_bytes().to_vec());
    let mut totals = LpTotals::default();
    let mut prev: Option<&[u8]> = None;
    for entry in store.lps.range(
        rtxn,
        &(
            std::ops::Bound::Included(lo.as_slice()),
            std::ops::Bound::Excluded(hi.as_slice()),
        ),
    )? {
        let (k, v) = entry?;
        if k < lo.as_slice() || prev.is_some_and(|p| k <= p) {
            return Err(went_back(store, container));
        }
        prev = Some(k);
        if totals.partitions >= max {
            return Ok(None);
        }
        let (bytes, items, _) = crate::storage::keys::decode_lp_stats(v);
        totals.partitions += 1;
        totals.items += items;
        totals.bytes += bytes;
    }
    Ok(Some(totals))
}

/// The items the `lps` entry of one logical partition counts.
pub fn lp_items(store: &Store, rtxn: &RoTxn, prefix: &[u8]) -> Result<u64> {
    Ok(store
        .lps
        .get(rtxn, prefix)?
        .map_or(0, |v| crate::storage::keys::decode_lp_stats(v).1))
}
