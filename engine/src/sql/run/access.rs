//! Where a page's candidate items come from: routed logical partitions, index ranges, scans.

use std::collections::BTreeSet;

use serde_json::Value;

use super::super::plan::Predicate;
use super::audit::Scope;
use super::{union, Run, Target};
use crate::error::Result;
use crate::index::{self, scan};
use crate::partition::Epk;
use crate::storage::keys;
use crate::storage::pages::LeafCheck;

impl<'a> Run<'a> {
    /// The index predicate used for candidates, when the policy indexes its path.
    pub(super) fn access(&self) -> Option<&'a Predicate> {
        if !self.index_ready {
            return None;
        }
        self.plan.predicates.iter().find(|p| self.serves(p))
    }

    /// Whether the container's policy has the index `p` reads.
    fn serves(&self, p: &Predicate) -> bool {
        let policy = self.def.policy();
        match p {
            Predicate::Spatial(path, _) => policy.spatially_indexes(path),
            _ => policy.indexes(p.path()),
        }
    }

    /// The index predicate candidates come from: within known logical partitions, an equality
    /// (or IN) on another indexed path narrows further, and exactly (entries of one value are
    /// ordered by EPK, so each logical partition's are one contiguous range); otherwise the
    /// best indexed predicate.
    pub(super) fn access_for(&self, routed: bool, pk_path: &[String]) -> Option<&'a Predicate> {
        if routed {
            self.access_besides(pk_path)
                .filter(|p| matches!(p, Predicate::Eq(..) | Predicate::In(..)))
        } else {
            self.access()
        }
    }

    /// The best indexed predicate on a path other than `path` (the partition key, which routing
    /// already used).
    pub(super) fn access_besides(&self, path: &[String]) -> Option<&'a Predicate> {
        if !self.index_ready {
            return None;
        }
        self.plan
            .predicates
            .iter()
            .find(|p| p.path() != path && self.serves(p))
    }

    /// Whether the candidates of the equality (or IN) access predicate, after the other
    /// index-answerable conjuncts, number at most `limit` (counted on index keys only, stopping
    /// past the limit, uncharged). When they are that few, sorting them beats an ORDER BY merge, which walks
    /// the order index of every partition (its keys are value-first) to find them: a logical
    /// partition's comments, or one user's posts across a container partitioned otherwise.
    pub(super) fn few_candidates(&mut self, targets: &[Target], limit: usize) -> Result<bool> {
        let pk_path = super::routing_path(self.def)?;
        let routed = targets.iter().any(|t| t.epks.is_some());
        let Some(p) = self
            .access_for(routed, &pk_path)
            .filter(|p| matches!(p, Predicate::Eq(..) | Predicate::In(..)))
        else {
            return Ok(false);
        };
        let mut n = 0usize;
        for t in targets {
            self.visit(t.pp);
            let ranges = match &t.epks {
                Some(epks) => routed_ranges(self.def.rid, t.pp, p, epks),
                None => equal_ranges(self.def.rid, t.pp, p),
            };
            for r in ranges {
                let range = (
                    std::ops::Bound::Included(r.from.as_slice()),
                    std::ops::Bound::Excluded(r.to.as_slice()),
                );
                for entry in self.store.index.range(self.rtxn, &range)? {
                    let (k, _) = entry?;
                    // A planning probe: not charged (the run that follows reads these again).
                    if t.excludes(&index::epk_of_entry(k)?)
                        || !self.passes_index_checks(k, Some(p))?
                    {
                        continue;
                    }
                    n += 1;
                    if n > limit {
                        return Ok(false);
                    }
                }
            }
        }
        Ok(true)
    }

    /// The values of access predicate `p` read as an index union in target `t` (an `IN` of more
    /// than [`union::MIN_VALUES`] values, not confined to logical partitions), encoded and sorted
    /// once per page.
    fn union_terms(
        &mut self,
        t: &Target,
        p: Option<&'a Predicate>,
    ) -> Option<(&'a Predicate, std::sync::Arc<union::Terms>)> {
        match p? {
            Predicate::In(_, values) if t.epks.is_none() && values.len() > union::MIN_VALUES => {
                let terms = self
                    .union_terms
                    .get_or_insert_with(|| std::sync::Arc::new(union::Terms::of(values)));
                Some((p?, terms.clone()))
            }
            _ => None,
        }
    }

    /// Calls `f` with every candidate item of one target after `after`, in key order: its
    /// logical partitions, the index predicate's matches, or every item of its range. Scans
    /// stream straight from the B-tree; `f` returns false to stop (and so does this).
    pub(super) fn each_candidate(
        &mut self,
        t: &Target,
        after: Option<&[u8]>,
        mut f: impl FnMut(&mut Self, &[u8], &'a [u8]) -> Result<bool>,
    ) -> Result<bool> {
        let (store, rtxn, rid) = (self.store, self.rtxn, self.def.rid);
        let pk_path = super::routing_path(self.def)?;
        let access = self.access_for(t.epks.is_some(), &pk_path);
        if let (Some(epks), None) = (&t.epks, access) {
            // Each logical partition is a scope of its own, checked against its `lps` counter.
            for epk in epks {
                let prefix = keys::partition_prefix(rid, epk);
                let resumes = after.is_some_and(|a| a.starts_with(&prefix));
                // Wholly before the cursor: read and checked by an earlier page.
                if !resumes && after.is_some_and(|a| a > prefix.as_slice()) {
                    continue;
                }
                let scope = Scope::Logical(*epk);
                let mut tally = self.tally(t, &scope, resumes);
                let end = scan::successor(&prefix);
                let (from, lo) = match after {
                    Some(a) if resumes => (std::ops::Bound::Excluded(a), a),
                    _ => (std::ops::Bound::Included(&prefix[..]), &prefix[..]),
                };
                let mut prev: Option<&[u8]> = None;
                for entry in store
                    .docs
                    .range(rtxn, &(from, std::ops::Bound::Excluded(end.as_slice())))?
                {
                    let (k, v) = entry?;
                    self.in_order(k, prev.or(resumes.then_some(lo)), lo)?;
                    prev = Some(k);
                    if !f(self, k, v)? {
                        self.carry(tally);
                        return Ok(false);
                    }
                    tally.n += 1;
                }
                self.settle(t, &scope, &tally)?;
            }
        } else if let Some((p, terms)) = self.union_terms(t, access) {
            // A long IN list (or OR chain) on an indexed path: an index union (`union.rs`).
            let mut found = BTreeSet::new();
            let counters = index::terms::known(store, rtxn)?;
            self.union(t, p, &terms, counters, after, &mut found)?;
            for k in found {
                let v = self.indexed_item(&k)?;
                if !f(self, &k, v)? {
                    return Ok(false);
                }
            }
        } else if let Some(p) = access {
            let prefix = scan::path_prefix(rid, t.pp, p.path());
            let values: &[Value] = match p {
                Predicate::Eq(_, v) => std::slice::from_ref(v),
                Predicate::In(_, vs) => vs,
                _ => &[],
            };
            let counters = index::terms::known(store, rtxn)?;
            // A `value · epk` range is compared with its logical partition's term counter.
            let routed = matches!(p, Predicate::Eq(..) | Predicate::In(..)) && t.epks.is_some();
            let ranges: Vec<scan::KeyRange> = match (p, &t.epks) {
                (Predicate::Eq(..) | Predicate::In(..), Some(epks)) => {
                    routed_ranges(rid, t.pp, p, epks)
                }
                (Predicate::Eq(..) | Predicate::In(..), None) => values
                    .iter()
                    .filter_map(|v| scan::equal(&prefix, v))
                    .collect(),
                (Predicate::Range(_, lo, hi), _) => scan::range(&prefix, lo.as_ref(), hi.as_ref())
                    .into_iter()
                    .collect(),
                (Predicate::StartsWith(_, s), _) => vec![scan::starts_with(&prefix, s)],
                (Predicate::Spatial(path, cells), _) => spatial_ranges(rid, t.pp, path, cells),
            };
            // Index matches come in value order and may repeat (arrays, IN): sort them by key.
            let mut keys_found = BTreeSet::new();
            // No counter gives a value range's length: the leaves it enters are checked instead.
            let mut leaves = LeafCheck::new(store);
            // Each range is also compared with its terms' counters.
            for r in ranges {
                let mut tally = index::terms::Tally::default();
                let range = (
                    std::ops::Bound::Included(r.from.as_slice()),
                    std::ops::Bound::Excluded(r.to.as_slice()),
                );
                let mut prev: Option<&[u8]> = None;
                let mut read = 0u64;
                for entry in store.index.range(rtxn, &range)? {
                    let (k, id_key) = entry?;
                    read += 1;
                    // A filter narrows the scan, so no counter gives its length; its keys must
                    // still advance inside the range (a jump back would read other partitions').
                    self.in_order(k, prev, &r.from)?;
                    leaves.check(store, k)?;
                    tally.count(k);
                    prev = Some(k);
                    self.take(t, p, k, id_key, after, &mut keys_found)?;
                }
                if counters && routed {
                    index::terms::settle_logical(store, rtxn, rid, &r, read, &self.def.full_id())?;
                } else if counters {
                    tally.settle(store, rtxn, rid, t.pp, &r, &self.def.full_id())?;
                }
            }
            for k in keys_found {
                let v = self.indexed_item(&k)?;
                if !f(self, &k, v)? {
                    return Ok(false);
                }
            }
        } else {
            // The target's range (a physical partition, or a prefix's share of one): one scope.
            let lo = keys::coordinate_key(rid, t.start);
            let hi = t
                .end
                .map(|e| keys::coordinate_key(rid, e).to_vec())
                .unwrap_or_else(|| (rid + 1).to_be_bytes().to_vec());
            let resumes = after.is_some_and(|a| a > lo.as_slice());
            let (from, low) = match after {
                Some(a) if resumes => (std::ops::Bound::Excluded(a), a),
                _ => (std::ops::Bound::Included(lo.as_slice()), lo.as_slice()),
            };
            let scope = Scope::Range;
            let mut tally = self.tally(t, &scope, resumes);
            let mut prev: Option<&[u8]> = resumes.then_some(low);
            for entry in store
                .docs
                .range(rtxn, &(from, std::ops::Bound::Excluded(hi.as_slice())))?
            {
                let (k, v) = entry?;
                self.in_order(k, prev, low)?;
                prev = Some(k);
                if !f(self, k, v)? {
                    self.carry(tally);
                    return Ok(false);
                }
                tally.n += 1;
            }
            self.settle(t, &scope, &tally)?;
        }
        Ok(true)
    }
}

/// The index key ranges of an equality (or IN) predicate in one physical partition.
fn equal_ranges(rid: u32, pp: u32, p: &Predicate) -> Vec<scan::KeyRange> {
    let prefix = scan::path_prefix(rid, pp, p.path());
    let values: &[Value] = match p {
        Predicate::Eq(_, v) => std::slice::from_ref(v),
        Predicate::In(_, vs) => vs,
        _ => &[],
    };
    values
        .iter()
        .filter_map(|v| scan::equal(&prefix, v))
        .collect()
}

/// The index key ranges of an equality (or IN) predicate inside given logical partitions:
/// `value · epk` prefixes, one per value and partition.
fn routed_ranges(rid: u32, pp: u32, p: &Predicate, epks: &[Epk]) -> Vec<scan::KeyRange> {
    equal_ranges(rid, pp, p)
        .into_iter()
        .flat_map(|r| {
            epks.iter().map(move |e| {
                let mut from = r.from.clone();
                from.extend_from_slice(&e.0);
                scan::KeyRange {
                    to: scan::successor(&from),
                    from,
                }
            })
        })
        .collect()
}

/// The index key ranges of a spatial predicate: the points in each cell range, and every other
/// geometry on the path.
fn spatial_ranges(rid: u32, pp: u32, path: &[String], cells: &[(u64, u64)]) -> Vec<scan::KeyRange> {
    use crate::index::spatial::{hash, TAG_OTHER, TAG_POINT};
    let prefix = scan::hash_prefix(rid, pp, &hash(path));
    let mut out: Vec<scan::KeyRange> = cells
        .iter()
        .map(|&(lo, hi)| {
            let mut from = prefix.clone();
            from.push(TAG_POINT);
            from.extend_from_slice(&lo.to_be_bytes());
            let mut last = prefix.clone();
            last.push(TAG_POINT);
            last.extend_from_slice(&hi.to_be_bytes());
            scan::KeyRange {
                from,
                to: scan::successor(&last),
            }
        })
        .collect();
    let mut other = prefix;
    other.push(TAG_OTHER);
    out.push(scan::KeyRange {
        to: scan::successor(&other),
        from: other,
    });
    out
}
