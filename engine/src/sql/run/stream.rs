//! Streamed results: items in key order, partition after partition.

use super::{unpack, Run, Target, Token};
use crate::error::{Error, Result};
use crate::storage::keys;

impl<'a> Run<'a> {
    /// Items in key order, partition after partition. Returns whether the query is complete.
    pub(super) fn stream(&mut self, targets: &[Target], token: &mut Token) -> Result<bool> {
        let after = token.key.as_deref().map(unpack).transpose()?;
        for t in targets {
            // Partitions wholly before the cursor are done (item keys are ordered by EPK).
            if let (Some(a), Some(end)) = (&after, t.end) {
                if keys::epk_of(a).coordinate() >= end {
                    continue;
                }
            }
            self.visit(t.pp);
            let complete = self.each_candidate(t, after.as_deref(), |run, key, value| {
                // A page ends when it is full, or when its budget is spent once it has moved on
                // (rows or not: a filter that matches little must not read the whole container
                // in one page; the continuation resumes after the last key read, as Cosmos DB
                // answers empty pages with a continuation).
                if (!run.rows.is_empty() && run.rows.len() >= run.budget.max_items)
                    || (run.last_key.is_some() && run.over_budget())
                {
                    return Ok(false);
                }
                // Keys come in order. One at or before the last means a damaged B-tree led the
                // scan back over itself (LMDB keeps no checksums): paging on could cycle for ever.
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
                if run.consume(key, value, token)? {
                    run.finished = true;
                    return Ok(false);
                }
                Ok(true)
            })?;
            if self.finished {
                return Ok(true);
            }
            if !complete {
                return Ok(false);
            }
        }
        Ok(true)
    }
}
