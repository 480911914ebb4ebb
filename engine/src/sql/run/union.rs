//! An index union: the entries of a long `IN` list (a long `OR` of equalities is one) in one
//! physical partition, found by leapfrogging between the sorted values and the index instead of
//! one seek per value or a walk over every entry between the least and the greatest value.
//!
//! The values are encoded, sorted and deduplicated once per page ([`Terms`]), whatever the number
//! of partitions. In a partition, two cursors stand in the path's entries and in its term
//! counters (`index::terms`, issue 34); the least term either stands at is looked up among the
//! values (a binary search), and each cursor moves on to the next wanted value (a few steps, else
//! a seek). A value is read only where an entry or a counter of it exists, so 50 000 values of
//! which 50 are present cost about a hundred seeks per partition, not 50 000 (or 15 000 entries
//! walked and counted).
//!
//! The damage checks are those of one range per value: each value with an entry or a counter
//! has its entries counted per term and compared with its counters (`Tally::settle`), so an entry
//! or a counter lost is found, as before. A value with neither has nothing to compare: its range
//! holds no entry and no counter (both cursors went past it).

use std::collections::BTreeSet;
use std::ops::Bound;

use heed::types::Bytes;
use serde_json::Value;

use super::super::plan::Predicate;
use super::{Run, Target};
use crate::error::Result;
use crate::index::{self, scan, terms};
use crate::storage::pages::LeafCheck;

/// Past this many values an `IN` is read as a union (fewer: one seek per value).
pub(super) const MIN_VALUES: usize = 64;

/// Steps a cursor takes towards the next wanted value before it seeks instead: a seek costs
/// about what reading a few entries in order does.
const STEPS: usize = 8;

/// The encoded values of an `IN` list, sorted and distinct, in one buffer.
#[derive(Debug, Default)]
pub(super) struct Terms {
    bytes: Vec<u8>,
    /// `bytes[start..end]` of each value, in order.
    spans: Vec<(u32, u32)>,
}

impl Terms {
    /// The values' index encodings (arrays and objects have none: no entry equals them), sorted,
    /// each once. A value whose range lies inside another's (a prefix encoding) is dropped: the
    /// outer range reads its entries too.
    pub(super) fn of(values: &[Value]) -> Terms {
        let mut bytes = Vec::new();
        let mut spans = Vec::with_capacity(values.len());
        for v in values {
            let start = bytes.len();
            if index::encoding::encode_into(v, &mut bytes) {
                spans.push((start as u32, bytes.len() as u32));
            } else {
                bytes.truncate(start);
            }
        }
        let at = |(s, e): (u32, u32)| &bytes[s as usize..e as usize];
        spans.sort_unstable_by(|a, b| at(*a).cmp(at(*b)));
        let mut kept: Vec<(u32, u32)> = Vec::with_capacity(spans.len());
        for s in spans {
            if kept.last().is_some_and(|k| at(s).starts_with(at(*k))) {
                continue;
            }
            kept.push(s);
        }
        Terms { bytes, spans: kept }
    }

    pub(super) fn len(&self) -> usize {
        self.spans.len()
    }

    fn get(&self, i: usize) -> &[u8] {
        let (s, e) = self.spans[i];
        &self.bytes[s as usize..e as usize]
    }

    /// The first value at or after `from` whose range does not end at or before `t` (a value
    /// part of a key: the range of `w` is every key part starting with `w`).
    fn first_not_before(&self, from: usize, t: &[u8]) -> usize {
        let (mut lo, mut hi) = (from, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            let w = self.get(mid);
            if t > w && !t.starts_with(w) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

/// A cursor over one key space (the path's entries, or its counters) that can move forward to a
/// key: a few steps, else a new range from that key.
struct Cursor<'t> {
    store: &'t crate::storage::Store,
    rtxn: &'t heed::RoTxn<'t>,
    iter: heed::RoRange<'t, Bytes, Bytes>,
    end: Vec<u8>,
    /// Where the current range began (keys must not come before it).
    from: Vec<u8>,
    at: Option<(&'t [u8], &'t [u8])>,
    prev: Option<&'t [u8]>,
    /// Bytes of a key before its value part.
    skip: usize,
}

impl<'t> Cursor<'t> {
    fn open(
        store: &'t crate::storage::Store,
        rtxn: &'t heed::RoTxn<'t>,
        from: Vec<u8>,
        end: Vec<u8>,
        skip: usize,
    ) -> Result<Self> {
        let iter = store.index.range(
            rtxn,
            &(
                Bound::Included(from.as_slice()),
                Bound::Excluded(end.as_slice()),
            ),
        )?;
        Ok(Cursor {
            store,
            rtxn,
            iter,
            end,
            from,
            at: None,
            prev: None,
            skip,
        })
    }

    /// The value part of the current key.
    fn value(&self) -> Option<&'t [u8]> {
        self.at.map(|(k, _)| k.get(self.skip..).unwrap_or_default())
    }

    /// Moves to the next key, checking that keys advance inside the range (a damaged B-tree
    /// could lead a cursor back over itself or out of the range).
    fn next(&mut self, run: &Run, leaves: Option<&mut LeafCheck>) -> Result<()> {
        if let Some((k, _)) = self.at {
            self.prev = Some(k);
        }
        self.at = self.iter.next().transpose()?;
        if let Some((k, _)) = self.at {
            run.in_order(k, self.prev, &self.from)?;
            if let Some(leaves) = leaves {
                leaves.check(self.store, k)?;
            }
        }
        Ok(())
    }

    /// Moves to the first key at or after `key`.
    fn advance_to(
        &mut self,
        key: &[u8],
        run: &Run,
        mut leaves: Option<&mut LeafCheck>,
    ) -> Result<()> {
        for _ in 0..STEPS {
            match self.at {
                Some((k, _)) if k < key => self.next(run, leaves.as_deref_mut())?,
                _ => return Ok(()),
            }
        }
        if self.at.is_none_or(|(k, _)| k >= key) {
            return Ok(());
        }
        if let Some((k, _)) = self.at {
            self.prev = Some(k);
        }
        self.from = key.to_vec();
        self.iter = self.store.index.range(
            self.rtxn,
            &(Bound::Included(key), Bound::Excluded(self.end.as_slice())),
        )?;
        self.at = None;
        self.next(run, leaves)
    }
}

impl<'a> Run<'a> {
    /// The candidates of `IN` predicate `p` (values `terms`) in target `t` after `after`, into
    /// `found` (item keys), each value's entries compared with its counters when `counters`.
    pub(super) fn union(
        &mut self,
        t: &Target,
        p: &Predicate,
        terms: &Terms,
        counters: bool,
        after: Option<&[u8]>,
        found: &mut BTreeSet<Vec<u8>>,
    ) -> Result<()> {
        if terms.len() == 0 {
            return Ok(());
        }
        let (store, rtxn, rid) = (self.store, self.rtxn, self.def.rid);
        let prefix = scan::path_prefix(rid, t.pp, p.path());
        let key = |w: &[u8]| [prefix.as_slice(), w].concat();
        let last = scan::successor(&key(terms.get(terms.len() - 1)));
        let mut leaves = LeafCheck::new(store);
        let mut entries = Cursor::open(store, rtxn, key(terms.get(0)), last, prefix.len())?;
        entries.next(self, Some(&mut leaves))?;
        // Counter keys are `rid · mark · partition · path-hash · value`.
        let count_key = |w: &[u8]| terms::count_key(rid, t.pp, &key(w)[8..]);
        let mut counted = if counters {
            let from = count_key(terms.get(0));
            let end = scan::successor(&count_key(terms.get(terms.len() - 1)));
            let skip = from.len() - terms.get(0).len();
            let mut c = Cursor::open(store, rtxn, from, end, skip)?;
            c.next(self, None)?;
            Some(c)
        } else {
            None
        };
        let mut i = 0;
        loop {
            let c = counted.as_ref().and_then(Cursor::value);
            let least = match (entries.value(), c) {
                (Some(e), Some(c)) => e.min(c),
                (Some(e), None) => e,
                (None, Some(c)) => c,
                (None, None) => break,
            };
            i = terms.first_not_before(i, least);
            if i == terms.len() {
                break;
            }
            let w = terms.get(i);
            if !least.starts_with(w) {
                // Between wanted values: each cursor moves on to the next one.
                if entries.value().is_some_and(|e| e < w) {
                    entries.advance_to(&key(w), self, Some(&mut leaves))?;
                }
                if let Some(c) = counted
                    .as_mut()
                    .filter(|c| c.value().is_some_and(|v| v < w))
                {
                    c.advance_to(&count_key(w), self, None)?;
                }
                continue;
            }
            // A wanted value with entries or counters: its entries are taken and counted.
            let range = scan::KeyRange {
                from: key(w),
                to: scan::successor(&key(w)),
            };
            let mut tally = terms::Tally::default();
            while let Some((k, id_key)) = entries.at.filter(|(k, _)| *k < range.to.as_slice()) {
                tally.count(k);
                self.take(t, p, k, id_key, after, found)?;
                entries.next(self, Some(&mut leaves))?;
            }
            if let Some(c) = counted.as_mut() {
                tally.settle(store, rtxn, rid, t.pp, &range, &self.def.full_id())?;
                let to = scan::successor(&count_key(w));
                while c.at.is_some_and(|(k, _)| k < to.as_slice()) {
                    c.next(self, None)?;
                }
            }
            i += 1;
        }
        Ok(())
    }

    /// Index entry `k` (naming item `id_key`) of the access predicate `p`: its item is a
    /// candidate unless the target or another indexed equality excludes it (or an earlier page
    /// returned it: keys at or before `after`).
    pub(super) fn take(
        &mut self,
        t: &Target,
        p: &Predicate,
        k: &[u8],
        id_key: &[u8],
        after: Option<&[u8]>,
        found: &mut BTreeSet<Vec<u8>>,
    ) -> Result<()> {
        self.metrics.index_lookups += 1;
        let epk = index::epk_of_entry(k)?;
        if t.excludes(&epk) || !self.passes_index_checks(k, Some(p))? {
            return Ok(());
        }
        self.index_read(1);
        let mut doc_key = self.def.rid.to_be_bytes().to_vec();
        doc_key.extend_from_slice(&epk.0);
        doc_key.extend_from_slice(id_key);
        if after.is_none_or(|a| doc_key.as_slice() > a) {
            found.insert(doc_key);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn terms_are_sorted_once_each_and_only_scalars() {
        let t = Terms::of(&[
            json!("b"),
            json!(2),
            json!("a"),
            json!(2.0),
            json!([1]),
            json!(null),
        ]);
        let mut want: Vec<Vec<u8>> = [json!(null), json!(2), json!("a"), json!("b")]
            .iter()
            .map(|v| {
                let mut b = Vec::new();
                index::encoding::encode_into(v, &mut b);
                b
            })
            .collect();
        want.sort();
        let got: Vec<Vec<u8>> = (0..t.len()).map(|i| t.get(i).to_vec()).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn the_first_value_not_before_a_key_part() {
        let t = Terms::of(&[json!(1), json!(5), json!(9)]);
        let enc = |v: Value| {
            let mut b = Vec::new();
            index::encoding::encode_into(&v, &mut b);
            b
        };
        // A key part of value 5 (with an EPK and id hash after it) is in 5's range.
        let mut five = enc(json!(5));
        five.extend_from_slice(&[0xAB; 24]);
        assert_eq!(t.first_not_before(0, &five), 1);
        assert_eq!(t.first_not_before(0, &enc(json!(6))), 2);
        assert_eq!(t.first_not_before(0, &enc(json!(0))), 0);
        assert_eq!(t.first_not_before(0, &enc(json!(10))), 3);
        assert_eq!(t.first_not_before(2, &enc(json!(0))), 2);
    }
}
