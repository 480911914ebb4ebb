//! The index, both ways: entries against the items' terms, and the stored counts of entries.

use std::collections::{BTreeMap, HashSet};

use super::report::Problems;
use super::snapshot::Container;
use crate::error::Result;
use crate::index;
use crate::storage::keys::{self, DocHeader};
use crate::ttl;

/// Index entries per (partition, path) and per (path, logical partition): as the entries are
/// found, and as the store's count keys hold them.
#[derive(Default)]
pub(super) struct IndexCounts {
    pub(super) entries: u64,
    per_pp: BTreeMap<(u32, [u8; 8]), u64>,
    per_lp: BTreeMap<([u8; 8], [u8; 16]), u64>,
    stored_per_pp: BTreeMap<(u32, [u8; 8]), u64>,
    stored_per_lp: BTreeMap<([u8; 8], [u8; 16]), u64>,
    /// Entries per (partition, term), and the term counters (`index::terms`).
    per_term: BTreeMap<(u32, Vec<u8>), u64>,
    stored_per_term: BTreeMap<(u32, Vec<u8>), u64>,
    /// Entries per (term, logical partition), and those term counters.
    per_lp_term: BTreeMap<(Vec<u8>, [u8; 16]), u64>,
    stored_per_lp_term: BTreeMap<(Vec<u8>, [u8; 16]), u64>,
}

impl IndexCounts {
    /// Records `k` if it is a count key (a partition's or a logical partition's count of a
    /// path's entries); false when it is an entry.
    fn record_stored(&mut self, k: &[u8], v: &[u8]) -> bool {
        let count = || v.try_into().map(u64::from_be_bytes).unwrap_or(u64::MAX);
        if index::terms::is_count_key(k) {
            let (pp, term) = index::terms::of_count_key(k);
            self.stored_per_term.insert((pp, term.to_vec()), count());
            return true;
        }
        if index::terms::is_lp_count_key(k) {
            let (term, epk) = index::terms::of_lp_count_key(k);
            self.stored_per_lp_term
                .insert((term.to_vec(), epk), count());
            return true;
        }
        if index::is_count_key(k) {
            let pp = u32::from_be_bytes(k[4..8].try_into().expect("4"));
            self.stored_per_pp
                .insert((pp, k[8..16].try_into().expect("8")), count());
            return true;
        }
        if k.len() == 32 && k[4..8] == u32::MAX.to_be_bytes() {
            self.stored_per_lp.insert(
                (
                    k[8..16].try_into().expect("8"),
                    k[16..32].try_into().expect("16"),
                ),
                count(),
            );
            return true;
        }
        false
    }

    /// Counts entry `k` for its partition and path, and for its path and logical partition.
    fn tally(&mut self, k: &[u8]) -> Result<()> {
        self.entries += 1;
        let pp = u32::from_be_bytes(k[4..8].try_into().expect("4"));
        let term = index::term_of_entry(k);
        let epk = index::epk_of_entry(k)?;
        *self.per_pp.entry((pp, index::term_path(term))).or_insert(0) += 1;
        *self.per_term.entry((pp, term.to_vec())).or_insert(0) += 1;
        *self.per_lp_term.entry((term.to_vec(), epk.0)).or_insert(0) += 1;
        *self
            .per_lp
            .entry((index::term_path(term), epk.0))
            .or_insert(0) += 1;
        Ok(())
    }
}

/// Every index entry points to an item and is one the item should have. Takes the entries found
/// out of `expected` (the live items' entries), leaving those no entry matched; counts the
/// entries for [`check_index_counts`].
pub(super) fn check_entries_point_to_their_items(
    c: &Container,
    expected: &mut HashSet<Vec<u8>>,
    problems: &mut Problems,
) -> Result<IndexCounts> {
    let mut counts = IndexCounts::default();
    for entry in c.store.index.prefix_iter(c.rtxn, &c.prefix)? {
        let (k, v) = entry?;
        if counts.record_stored(k, v) {
            continue;
        }
        if k.len() < index::MIN_ENTRY_LEN {
            problems.note("index", format!("index key {} is too short", keys::show(k)));
            continue;
        }
        counts.tally(k)?;
        check_entry_points_to_its_item(c, k, v, expected, problems)?;
    }
    Ok(counts)
}

/// Entry `k` (valued `v`, its item's id key) points to an item, and to a live item only if the
/// item should have it.
fn check_entry_points_to_its_item(
    c: &Container,
    k: &[u8],
    v: &[u8],
    expected: &mut HashSet<Vec<u8>>,
    problems: &mut Problems,
) -> Result<()> {
    let mut doc_key = c.def.rid.to_be_bytes().to_vec();
    doc_key.extend_from_slice(&index::epk_of_entry(k)?.0);
    doc_key.extend_from_slice(v);
    if c.store.docs.get(c.rtxn, &doc_key)?.is_none() {
        problems.note(
            "index",
            format!("index entry {} points to a missing item", keys::show(k)),
        );
    } else if !c.rebuilding && !expected.remove(k) {
        // An expired item keeps its entries until the purge: only flag live items' entries.
        let live = c
            .store
            .docs
            .get(c.rtxn, &doc_key)?
            .and_then(DocHeader::decode)
            .is_some_and(|(h, _)| !ttl::is_expired(&h, c.def.default_ttl, c.now));
        if live {
            problems.note(
                "index",
                format!(
                    "index entry {} is not one of its item's terms",
                    keys::show(k)
                ),
            );
        }
    }
    Ok(())
}

/// Every live item has each of its index entries: `missing` are those no entry matched.
pub(super) fn check_items_have_their_entries(missing: &HashSet<Vec<u8>>, problems: &mut Problems) {
    for entry in missing {
        problems.note(
            "index",
            format!("an item lacks its index entry {}", keys::show(entry)),
        );
    }
}

/// The stored counts of entries per partition and path, and per logical partition and path,
/// match the entries. Not while the index is rebuilt: the counts follow the rewrite.
pub(super) fn check_index_counts(c: &Container, counts: &IndexCounts, problems: &mut Problems) {
    if c.rebuilding {
        return;
    }
    for (key, n) in &counts.per_pp {
        if counts.stored_per_pp.get(key).copied().unwrap_or(0) != *n {
            problems.note(
                "index count",
                format!(
                    "physical partition {} path {} counts {:?} entries, holds {n}",
                    key.0,
                    keys::show(&key.1),
                    counts.stored_per_pp.get(key)
                ),
            );
        }
    }
    // A store the writer has not opened since the counters came has none yet (`terms::ensure`).
    let known = c.terms_known;
    let mut terms = counts.stored_per_term.clone();
    for (key, n) in counts.per_term.iter().filter(|_| known) {
        let stored = terms.remove(key);
        if stored != Some(*n) {
            problems.note(
                "index count",
                format!(
                    "physical partition {} term {} counts {stored:?} entries, holds {n}",
                    key.0,
                    keys::show(&key.1),
                ),
            );
        }
    }
    for (key, n) in terms.iter().filter(|_| known) {
        problems.note(
            "index count",
            format!(
                "physical partition {} term {} counts {n} entries, holds none",
                key.0,
                keys::show(&key.1),
            ),
        );
    }
    let mut lp_terms = counts.stored_per_lp_term.clone();
    for (key, n) in counts.per_lp_term.iter().filter(|_| known) {
        let stored = lp_terms.remove(key);
        if stored != Some(*n) {
            problems.note(
                "index count",
                format!(
                    "logical partition {} term {} counts {stored:?} entries, holds {n}",
                    keys::show(&key.1),
                    keys::show(&key.0),
                ),
            );
        }
    }
    for (key, n) in lp_terms.iter().filter(|_| known) {
        problems.note(
            "index count",
            format!(
                "logical partition {} term {} counts {n} entries, holds none",
                keys::show(&key.1),
                keys::show(&key.0),
            ),
        );
    }
    for (key, n) in &counts.per_lp {
        if counts.stored_per_lp.get(key).copied().unwrap_or(0) != *n {
            problems.note(
                "index count",
                format!(
                    "logical partition {} path {} counts {:?} entries, holds {n}",
                    keys::show(&key.1),
                    keys::show(&key.0),
                    counts.stored_per_lp.get(key)
                ),
            );
        }
    }
}
