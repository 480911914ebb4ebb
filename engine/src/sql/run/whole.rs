//! Results computed whole: every candidate through the executor, gathered page by page, then
//! handed out a page at a time.

use super::super::exec;
use super::partial::Partial;
use super::token::{pack, unpack};
use super::{cursor, Row, Run, Target, Token};
use crate::error::{Error, Result};
use crate::storage::keys;

/// A fold holding more groups than this does not end its page at the budget: its state would
/// be too large to hand on (it runs on to the page's hard limit instead).
const MAX_GROUPS_PAGED: usize = 100_000;

impl<'a> Run<'a> {
    /// Every candidate item through the executor, then the result a page at a time. Gathering
    /// goes in key order and stops at the page's budget like a streamed page: the page is
    /// empty and its continuation carries what was gathered (partial aggregates and groups, or
    /// the items to sort) and where to go on, as Cosmos DB answers a long aggregate with empty
    /// pages until the last. The finished result's rows not handed out yet are kept the same
    /// way, so no page reads the items again.
    pub(super) fn whole(&mut self, targets: &[Target], token: &mut Token) -> Result<bool> {
        let partial = self.take_partial(token)?;
        if let Some(Partial::Rows(rows)) = partial {
            return self.hand_out(rows, 0, token);
        }
        // Aggregates and GROUP BY fold item by item: memory holds the groups, not the items.
        let shape = exec::shape(self.q);
        let folding = shape.aggregates || shape.grouped;
        let (mut folder, gathered) = match partial {
            Some(Partial::Folded(st)) if folding => (
                Some(exec::Folder::resume(self.q, self.params, st)?),
                (Vec::new(), 0),
            ),
            Some(Partial::Items(docs, bytes)) if !folding => (None, (docs, bytes)),
            Some(_) => {
                return Err(Error::bad(
                    "continuation",
                    "the continuation belongs to another query or container",
                ))
            }
            None => (
                folding.then(|| exec::Folder::new(self.q, self.params)),
                (Vec::new(), 0),
            ),
        };
        // Items gathered to sort, and their size: a page only ends while the state it hands on
        // stays within what the engine keeps (past that, the page runs on to its hard limit as
        // all of it used to).
        let (mut docs, mut gathered) = gathered;
        let mut folded = 0u64;
        // A query without FROM reads no items.
        let targets = if self.q.from.is_none() {
            &[][..]
        } else {
            targets
        };
        // ORDER BY RANK gathers statistics over the whole container in the same page: it is
        // not paged.
        let pageable = !self.q.rank;
        let limit = self.budget.hard_limit();
        let after = token.key.as_deref().map(unpack).transpose()?;
        let (mut cut, mut timed_out) = (false, false);
        for t in targets {
            // Partitions wholly before the cursor are done (item keys are ordered by EPK).
            if let (Some(a), Some(end)) = (&after, t.end) {
                if keys::epk_of(a).coordinate() >= end {
                    continue;
                }
            }
            self.visit(t.pp);
            let complete = self.each_candidate(t, after.as_deref(), |run, key, value| {
                let small = match &folder {
                    Some(f) => f.groups() <= MAX_GROUPS_PAGED,
                    None => gathered <= cursor::MAX_STATE / 2,
                };
                if pageable && small && run.last_key.is_some() && run.over_budget() {
                    return Ok(false);
                }
                if run.started.elapsed() > limit {
                    timed_out = true;
                    return Ok(false);
                }
                if run
                    .last_key
                    .as_deref()
                    .or(after.as_deref())
                    .is_some_and(|p| key <= p)
                {
                    return Err(Error::Corrupt(format!(
                        "the data file is damaged: a scan of container '{}' went back to an \
                         earlier key; restore it from a backup, run `engine check`",
                        run.def.full_id()
                    )));
                }
                run.last_key = Some(key.to_vec());
                if let Some(doc) = run.item(key, value)? {
                    match &mut folder {
                        Some(f) => folded += (f.add_item(doc)? > 0) as u64,
                        None => {
                            gathered += value.len();
                            docs.push(doc)
                        }
                    }
                }
                Ok(true)
            })?;
            if !complete {
                if timed_out {
                    return Err(Error::RequestTimeout(format!(
                        "the query needs every matching item at once (ORDER BY RANK, or more state between pages than the engine keeps) and ran past {limit:?}; filter on the partition key or an indexed path"
                    )));
                }
                cut = true;
                break;
            }
        }
        if cut {
            // An empty page: where to go on, and what was gathered.
            token.key = self.last_key.as_deref().map(pack);
            token.audit = self.audit_out.take();
            self.matched_docs = folded;
            let p = match folder {
                Some(f) => Partial::Folded(f.save()),
                None => Partial::Items(docs, gathered),
            };
            self.keep_partial(token, p)?;
            return Ok(false);
        }
        token.key = None;
        if self.sorting_few {
            self.price_as_merge();
        }
        let mut all = if let Some(mut f) = folder {
            // Without FROM there is one row, the query's own (`SELECT VALUE COUNT(1)` is 1, as
            // in Cosmos DB's samples), which no item brings.
            if self.q.from.is_none() {
                f.add_item(serde_json::Value::Null)?;
            }
            self.matched_docs = folded;
            f.finish()?
        } else {
            let n = docs.len() as u64;
            // ORDER BY RANK FULLTEXTSCORE: BM25 statistics over every item of the container, as
            // Cosmos DB's global statistics query gathers them from every partition.
            let stats = match exec::RankStatistics::for_query(self.q, self.params)? {
                Some(mut st) => {
                    self.gather_statistics(&mut st)?;
                    Some(st)
                }
                None => None,
            };
            let all = exec::execute_with(self.q, self.params, docs, stats)?;
            self.matched_docs = n.min(all.len() as u64);
            all
        };
        // Rows an earlier page handed out when the rest was too many to keep (see `hand_out`).
        let skipped = std::mem::take(&mut token.offset);
        all.drain(..(skipped as usize).min(all.len()));
        self.hand_out(all, skipped, token)
    }

    /// A page of the finished result's `rows` (the first `skipped` rows of the result were
    /// handed out already); the rest kept for the next page. True when this page hands out the
    /// last of them.
    fn hand_out(
        &mut self,
        mut rows: Vec<serde_json::Value>,
        skipped: u64,
        token: &mut Token,
    ) -> Result<bool> {
        let rest = rows.split_off(self.budget.max_items.min(rows.len()));
        self.rows = rows.into_iter().map(Row::Value).collect();
        if rest.is_empty() {
            return Ok(true);
        }
        // A routed ORDER BY over few items is priced as the merge it replaces, page by page:
        // each page sorts them again (they are few) and pays what that merge's page would.
        if self.sorting_few {
            token.offset = skipped + self.rows.len() as u64;
            return Ok(false);
        }
        match self.keep_partial(token, Partial::Rows(rest)) {
            Ok(()) => Ok(false),
            // Too many to keep: the next page computes the result again and skips what was
            // handed out (as every page did before states were kept).
            Err(Error::BadRequest { .. }) => {
                token.offset = skipped + self.rows.len() as u64;
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// The page of `all` the token points at; true when it is the last.
    pub(super) fn page_of(&mut self, all: Vec<serde_json::Value>, token: &mut Token) -> bool {
        let start = token.offset as usize;
        let end = (start + self.budget.max_items).min(all.len());
        let complete = end >= all.len();
        self.rows = all
            .into_iter()
            .skip(start)
            .take(end.saturating_sub(start))
            .map(Row::Value)
            .collect();
        token.offset = end as u64;
        complete
    }

    /// Reads every item of every partition into the full-text statistics (charged as reads).
    fn gather_statistics(&mut self, st: &mut exec::RankStatistics) -> Result<()> {
        let (store, rtxn, rid) = (self.store, self.rtxn, self.def.rid);
        for i in 0..self.def.partitions.len() {
            let (start, end) = self.def.partitions.range_of(i);
            self.visit(self.def.partitions.partitions[i].id);
            let lo = keys::coordinate_key(rid, start);
            let hi = end
                .map(|e| keys::coordinate_key(rid, e).to_vec())
                .unwrap_or_else(|| (rid + 1).to_be_bytes().to_vec());
            for entry in store.docs.range(
                rtxn,
                &(
                    std::ops::Bound::Included(lo.as_slice()),
                    std::ops::Bound::Excluded(hi.as_slice()),
                ),
            )? {
                let (k, v) = entry?;
                if let Some(doc) = self.item(k, v)? {
                    st.add(&doc, self.params)?;
                }
            }
        }
        Ok(())
    }

    /// "Sort the few candidates" loads them all to sort them, where the ORDER BY merge it
    /// replaces (for speed) would have loaded, in each partition, only its own first page and
    /// read the rest as index entries. Priced as that merge: per partition, the items past the
    /// rows wanted are charged as index entries (at that partition's average item size off).
    fn price_as_merge(&mut self) {
        let want = self.rows_wanted() as u64;
        for c in &mut self.costs {
            if c.items_read <= want {
                continue;
            }
            let excess = c.items_read - want;
            let bytes = c.bytes_read * excess / c.items_read;
            c.items_read -= excess;
            c.bytes_read -= bytes;
            c.index_entries_read += excess;
            self.meter.items_scanned -= excess;
            self.meter.bytes_scanned -= bytes;
            self.meter.index_terms_read += excess;
        }
    }
}
