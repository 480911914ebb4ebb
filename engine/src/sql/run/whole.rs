//! Whole results: every candidate through the executor, then a page of the rows by position.

use super::super::exec;
use super::{Row, Run, Target, Token};
use crate::error::{Error, Result};
use crate::storage::keys;

impl<'a> Run<'a> {
    /// Every candidate item through the executor, then a page of the rows by position.
    pub(super) fn whole(&mut self, targets: &[Target], token: &mut Token) -> Result<bool> {
        let mut docs = Vec::new();
        // Aggregates and GROUP BY fold item by item: memory holds the groups, not the items.
        let shape = exec::shape(self.q);
        let mut folder =
            (shape.aggregates || shape.grouped).then(|| exec::Folder::new(self.q, self.params));
        let mut folded = 0u64;
        // A query without FROM reads no items.
        let targets = if self.q.from.is_none() {
            &[][..]
        } else {
            targets
        };
        for t in targets {
            self.visit(t.pp);
            let limit = self.budget.hard_limit();
            let complete = self.each_candidate(t, None, |run, key, value| {
                if run.started.elapsed() > limit {
                    return Ok(false);
                }
                if let Some(doc) = run.item(key, value)? {
                    match &mut folder {
                        Some(f) => folded += (f.add_item(doc)? > 0) as u64,
                        None => docs.push(doc),
                    }
                }
                Ok(true)
            })?;
            if !complete {
                return Err(Error::RequestTimeout(format!(
                    "the query needs every matching item at once (aggregates, GROUP BY, DISTINCT or ORDER BY on several or unindexed paths) and ran past {limit:?}; filter on the partition key or an indexed path"
                )));
            }
        }
        if self.sorting_few {
            self.price_as_merge();
        }
        if let Some(mut f) = folder {
            // Without FROM there is one row, the query's own (`SELECT VALUE COUNT(1)` is 1, as
            // in Cosmos DB's samples), which no item brings.
            if self.q.from.is_none() {
                f.add_item(serde_json::Value::Null)?;
            }
            let all = f.finish()?;
            self.matched_docs = folded;
            return Ok(self.page_of(all, token));
        }
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
        Ok(self.page_of(all, token))
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
