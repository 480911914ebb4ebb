//! ORDER BY as a k-way merge of the partitions' index scans (a path's range index, or a
//! composite index for several keys), stopping when the page or the query has its rows.

use super::{pack, unpack, Run, Target, Token};
use crate::error::{Error, Result};
use crate::index::{self, scan};
use crate::sql::exec;
use crate::storage::pages::LeafCheck;
use crate::storage::{audit, keys};

/// The entries an ORDER BY walk of one partition consumed since it began at the index's start,
/// and the partition's LSN then.
#[derive(Debug, Clone, Copy)]
struct Walked {
    lsn: u64,
    n: u64,
}

/// Index entries of one partition, in order.
type EntryIter<'t> = Box<dyn Iterator<Item = heed::Result<(&'t [u8], &'t [u8])>> + 't>;

/// The index an ORDER BY merge scans.
pub(super) struct OrderIndex {
    pub(super) hash: [u8; 8],
    /// Scanned from its end: the query's order is the index's reversed.
    pub(super) backwards: bool,
    pub(super) describe: String,
}

pub(super) fn order_index(
    policy: &index::CompiledPolicy,
    keys: &[(Vec<String>, bool)],
) -> Option<OrderIndex> {
    let name = |p: &[String]| format!("/{}", p.join("/"));
    let dir = |d: bool| if d { "DESC" } else { "ASC" };
    if let [(path, desc)] = keys {
        return policy.indexes(path).then(|| OrderIndex {
            hash: index::path_hash(path),
            backwards: *desc,
            describe: format!("ordered index {} {}", name(path), dir(*desc)),
        });
    }
    policy.composites.iter().find_map(|c| {
        let same_paths = c.len() == keys.len() && c.iter().zip(keys).all(|(a, b)| a.0 == b.0);
        let forwards = same_paths && c.iter().zip(keys).all(|(a, b)| a.1 == b.1);
        let backwards = same_paths && c.iter().zip(keys).all(|(a, b)| a.1 != b.1);
        (forwards || backwards).then(|| OrderIndex {
            hash: index::composite_hash(c),
            backwards,
            describe: format!(
                "ordered composite index ({}){}",
                c.iter()
                    .map(|(p, d)| format!("{} {}", name(p), dir(*d)))
                    .collect::<Vec<_>>()
                    .join(", "),
                if backwards { " backwards" } else { "" }
            ),
        })
    })
}

impl<'a> Run<'a> {
    /// Whether every item of the targets has a scalar at `path` (so the index holds them all).
    pub(super) fn all_indexed(&mut self, targets: &[Target], hash: &[u8; 8]) -> Result<bool> {
        for t in targets {
            let prefix = scan::hash_prefix(self.def.rid, t.pp, hash);
            let (entries, items) = match &t.epks {
                // The partition's count of entries for the path: one lookup.
                None => (
                    index::read_count(
                        self.store,
                        self.rtxn,
                        &index::count_key(self.def.rid, t.pp, &prefix[8..]),
                    )?,
                    self.def.partitions.by_id(t.pp).map_or(0, |p| p.items),
                ),
                // Confined to some logical partitions: their counts, one lookup each.
                Some(epks) => {
                    let mut n = 0u64;
                    for epk in epks {
                        n += index::read_count(
                            self.store,
                            self.rtxn,
                            &index::lp_count_key(self.def.rid, &prefix[8..], epk),
                        )?;
                    }
                    let items = epks
                        .iter()
                        .map(|e| {
                            self.store
                                .lps
                                .get(self.rtxn, &keys::partition_prefix(self.def.rid, e))
                                .map(|v| {
                                    v.map_or(0, |v| crate::storage::keys::decode_lp_stats(v).1)
                                })
                        })
                        .sum::<heed::Result<u64>>()?;
                    (n, items)
                }
            };
            if entries != items {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The index order of one path, merged across partitions.
    pub(super) fn ordered(
        &mut self,
        targets: &[Target],
        hash: &[u8; 8],
        descending: bool,
        token: &mut Token,
    ) -> Result<bool> {
        let rid = self.def.rid;
        // Each partition's position: the index key suffix after `rid | partition` last consumed.
        let carried: Vec<Option<usize>> = targets
            .iter()
            .map(|t| {
                token.ranges.iter().position(|(s, e, _)| {
                    let holds = |c: u64| *s <= c && e.is_none_or(|e| c < e);
                    // A range the target lies in (the parent of a split partition), or one that
                    // holds every logical partition the target is (a query on a key resumed
                    // from a token of a feed range of that key, as azure-cosmos's
                    // `test_full_partition_key_query_pagination_resume_and_count_is_index_only`
                    // does): positions are the partition's index keys either way.
                    (*s <= t.start && e.is_none_or(|e| t.end.is_some_and(|te| te <= e)))
                        || t.epks
                            .as_ref()
                            .is_some_and(|epks| epks.iter().all(|epk| holds(epk.coordinate())))
                })
            })
            .collect();
        let mut positions: Vec<Option<Vec<u8>>> = carried
            .iter()
            .map(|j| {
                j.and_then(|j| token.ranges[j].2.as_deref().map(unpack))
                    .transpose()
            })
            .collect::<Result<_>>()?;
        // Each walk's count of the entries it consumed, from its start (`Walked`).
        let mut walked: Vec<Option<Walked>> = targets
            .iter()
            .zip(&carried)
            .enumerate()
            .map(|(i, (t, j))| match (&positions[i], j) {
                (None, _) => self.walk_start(t),
                // Carried on only for the same range: a split halves a partition's entries
                // without moving its LSN.
                (Some(_), Some(j))
                    if token.ranges[*j].0 == t.start && token.ranges[*j].1 == t.end =>
                {
                    token
                        .walked
                        .get(*j)
                        .copied()
                        .flatten()
                        .map(|(lsn, n)| Walked { lsn, n })
                        .filter(|w| self.walk_start(t).is_some_and(|s| s.lsn == w.lsn))
                }
                (Some(_), Some(_)) => None,
                (Some(_), None) => None,
            })
            .collect();
        let mut leaves: Vec<LeafCheck> =
            targets.iter().map(|_| LeafCheck::new(self.store)).collect();
        let mut iters = Vec::with_capacity(targets.len());
        for (i, t) in targets.iter().enumerate() {
            self.visit(t.pp);
            let prefix = scan::hash_prefix(rid, t.pp, hash);
            let upper = scan::successor(&prefix);
            let resume = positions[i].as_ref().map(|suffix| {
                let mut k = rid.to_be_bytes().to_vec();
                k.extend_from_slice(&t.pp.to_be_bytes());
                k.extend_from_slice(suffix);
                k
            });
            let it: EntryIter = match (descending, &resume) {
                (false, Some(r)) => Box::new(self.store.index.range(
                    self.rtxn,
                    &(
                        std::ops::Bound::Excluded(r.as_slice()),
                        std::ops::Bound::Excluded(upper.as_slice()),
                    ),
                )?),
                (false, None) => Box::new(self.store.index.range(
                    self.rtxn,
                    &(
                        std::ops::Bound::Included(prefix.as_slice()),
                        std::ops::Bound::Excluded(upper.as_slice()),
                    ),
                )?),
                (true, Some(r)) => Box::new(self.store.index.rev_range(
                    self.rtxn,
                    &(
                        std::ops::Bound::Included(prefix.as_slice()),
                        std::ops::Bound::Excluded(r.as_slice()),
                    ),
                )?),
                (true, None) => Box::new(self.store.index.rev_range(
                    self.rtxn,
                    &(
                        std::ops::Bound::Included(prefix.as_slice()),
                        std::ops::Bound::Excluded(upper.as_slice()),
                    ),
                )?),
            };
            iters.push(it.peekable());
        }
        let value_of = |k: &[u8]| k[16..k.len() - 24].to_vec();
        // Items of each partition that produced rows: what its own query returned so far.
        let mut produced = vec![0usize; targets.len()];
        let complete = loop {
            // The next entry in Cosmos order among the partitions' heads.
            let mut best: Option<(usize, Vec<u8>)> = None;
            for (i, it) in iters.iter_mut().enumerate() {
                loop {
                    match it.peek() {
                        Some(Ok((k, _))) if index::is_count_key(k) => {
                            it.next();
                        }
                        Some(Ok((k, _))) => {
                            let epk = index::epk_of_entry(k)?;
                            if targets[i].excludes(&epk) {
                                it.next();
                                continue;
                            }
                            let v = value_of(k);
                            let better = match &best {
                                None => true,
                                Some((_, b)) => {
                                    if descending {
                                        v > *b
                                    } else {
                                        v < *b
                                    }
                                }
                            };
                            if better {
                                best = Some((i, v));
                            }
                            break;
                        }
                        Some(Err(_)) => {
                            if let Some(Err(e)) = it.next() {
                                return Err(e.into());
                            }
                        }
                        None => {
                            // The walk is whole: it consumed every entry the index counts.
                            if let Some(w) = walked[i].take() {
                                self.settle_walk(&targets[i], hash, w)?;
                            }
                            break;
                        }
                    }
                }
            }
            let Some((i, _)) = best else { break true };
            if !self.rows.is_empty()
                && (self.rows.len() >= self.budget.max_items || self.over_budget())
            {
                break false;
            }
            let (k, id_key) = iters[i].next().expect("peeked")?;
            self.metrics.index_lookups += 1;
            // A damaged index B-tree can lead the walk back over itself: refuse to page on.
            let back = |p: &Vec<u8>| {
                if descending {
                    k[8..] >= p[..]
                } else {
                    k[8..] <= p[..]
                }
            };
            if positions[i].as_ref().is_some_and(back) {
                return Err(Error::Corrupt(format!(
                    "the data file is damaged: an index walk of container '{}' went back to an \
                     earlier entry; restore it from a backup, run `engine check`",
                    self.def.full_id()
                )));
            }
            positions[i] = Some(k[8..].to_vec());
            leaves[i].check(self.store, k)?;
            if let Some(w) = &mut walked[i] {
                w.n += 1;
            }
            self.current = i;
            if !self.passes_index_checks(k, None)? {
                continue;
            }
            self.index_read(1);
            let mut doc_key = rid.to_be_bytes().to_vec();
            doc_key.extend_from_slice(&index::epk_of_entry(k)?.0);
            doc_key.extend_from_slice(id_key);
            let stored = self.indexed_item(&doc_key)?;
            self.current = i;
            let matched = self.matched_docs;
            let done = self.consume(&doc_key, stored, token)?;
            if self.matched_docs > matched {
                produced[i] += 1;
            }
            if done {
                break true;
            }
        };
        if targets.len() > 1 {
            self.price_partition_pages(targets, &mut iters, &produced)?;
        }
        token.ranges = targets
            .iter()
            .zip(positions)
            .map(|(t, p)| (t.start, t.end, p.map(|p| pack(&p))))
            .collect();
        token.walked = if walked.iter().any(Option::is_some) {
            walked.iter().map(|w| w.map(|w| (w.lsn, w.n))).collect()
        } else {
            Vec::new()
        };
        Ok(complete)
    }

    /// A walk of target `t`'s order index begins: counted when a counter gives its length (a
    /// whole partition: the path's entry count; some logical partitions: theirs), from the
    /// partition's LSN now.
    fn walk_start(&self, t: &Target) -> Option<Walked> {
        let p = self.def.partitions.by_id(t.pp)?;
        (t.epks.is_some() || !t.narrowed).then_some(Walked { lsn: p.lsn, n: 0 })
    }

    /// A walk of target `t` ended: unless the partition was written since it began, it must
    /// have consumed as many entries as the index counts for the target (issue 34: a damaged
    /// index page hides entries from a walk without an error).
    fn settle_walk(&self, t: &Target, hash: &[u8; 8], w: Walked) -> Result<()> {
        if self
            .def
            .partitions
            .by_id(t.pp)
            .is_none_or(|p| p.lsn != w.lsn)
        {
            return Ok(());
        }
        let rid = self.def.rid;
        let expected = match &t.epks {
            None => index::read_count(self.store, self.rtxn, &index::count_key(rid, t.pp, hash))?,
            Some(epks) => epks
                .iter()
                .map(|e| {
                    index::read_count(self.store, self.rtxn, &index::lp_count_key(rid, hash, e))
                })
                .sum::<heed::Result<u64>>()?,
        };
        if w.n != expected {
            return Err(audit::damaged(
                self.store,
                format!(
                    "an ordered walk of the index of container '{}' in physical partition {} read {} entries where the index counts {expected}",
                    self.def.full_id(),
                    t.pp,
                    w.n
                ),
            ));
        }
        Ok(())
    }

    /// Prices the merge as Cosmos DB's per-partition execution: each partition, queried on its
    /// own, would have returned its own first page (up to the page size, or OFFSET + TOP/LIMIT),
    /// while the merge stopped early in most of them. This reads on in each partition, without
    /// emitting, until it has that many matching items or none left, and charges what it finds:
    /// matching items as loaded, the others as index entries the index would have filtered.
    /// Without a filter left to evaluate it counts index keys only.
    fn price_partition_pages(
        &mut self,
        targets: &[Target],
        iters: &mut [std::iter::Peekable<EntryIter<'a>>],
        produced: &[usize],
    ) -> Result<()> {
        let want = self.rows_wanted();
        let rid = self.def.rid;
        for (i, it) in iters.iter_mut().enumerate() {
            let mut found = produced[i];
            self.current = i;
            while found < want && self.started.elapsed() < self.budget.max_duration {
                let Some(entry) = it.next() else { break };
                let (k, id_key) = entry?;
                if index::is_count_key(k) {
                    continue;
                }
                let epk = index::epk_of_entry(k)?;
                if targets[i].excludes(&epk) {
                    continue;
                }
                // Without a filter (or with one storage answers exactly) every entry matches.
                let every_entry_matches =
                    self.exact || (self.q.filter.is_none() && self.q.joins.is_empty());
                if every_entry_matches {
                    // Every entry is a row: price it at the partition's average item size
                    // without loading it (the merge stays as fast as it was).
                    let (bytes, n) = self
                        .def
                        .partitions
                        .by_id(targets[i].pp)
                        .map_or((0, 0), |p| (p.bytes, p.items));
                    let avg = bytes.checked_div(n).unwrap_or(0) as usize;
                    let (items, size) = (
                        self.metrics.retrieved_document_count,
                        self.metrics.retrieved_document_size,
                    );
                    self.meter.scan_item(avg);
                    if let Some(c) = self.costs.get_mut(self.current) {
                        c.items_read += 1;
                        c.bytes_read += avg as u64;
                    }
                    self.metrics.retrieved_document_count = items;
                    self.metrics.retrieved_document_size = size;
                    found += 1;
                    continue;
                }
                if !self.passes_index_checks(k, None)? {
                    continue;
                }
                let mut doc_key = rid.to_be_bytes().to_vec();
                doc_key.extend_from_slice(&epk.0);
                doc_key.extend_from_slice(id_key);
                let Some(stored) = self.store.docs.get(self.rtxn, &doc_key)? else {
                    continue;
                };
                let matches = {
                    let json = match crate::storage::keys::DocHeader::decode(stored) {
                        Some((_, json)) => json,
                        None => continue,
                    };
                    let doc = crate::item::parse_stored(json)?;
                    !exec::item_rows(self.q, self.params, doc)?.is_empty()
                };
                if matches {
                    let (items, bytes) = (
                        self.metrics.retrieved_document_count,
                        self.metrics.retrieved_document_size,
                    );
                    self.item_json(&doc_key, stored)?;
                    // Priced, not returned: keep the page's own retrieval metrics.
                    self.metrics.retrieved_document_count = items;
                    self.metrics.retrieved_document_size = bytes;
                    found += 1;
                } else {
                    self.index_read(1);
                }
            }
        }
        Ok(())
    }
}
