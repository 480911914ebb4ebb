//! `SELECT VALUE COUNT(1)` whose filter storage answers exactly (routing and one exact index
//! range, or no filter): the items storage selects are counted, none loaded or parsed, as Cosmos
//! DB answers such a count from its index. Charged as index entries read, one per item counted,
//! and memory stays flat whatever the container holds (issue 18). Without a filter or TTL, the
//! partitions' item counters answer without visiting the keys.

use serde_json::Value;

use super::{Run, Target, Token};
use crate::error::{Error, Result};
use crate::storage::audit;
use crate::storage::keys::{self, DocHeader};
use crate::ttl;

/// The most logical partitions a COUNT(1) from the counters walks per physical partition to
/// cross-check its counter.
const LP_CHECK_MAX: u64 = 1024;

impl<'a> Run<'a> {
    /// The count as the query asked for it: `n`, or `[{"item": n}]` for the SDKs' per-range form.
    fn count_row(&self, n: u64) -> Value {
        if self.plan.count_as_item {
            serde_json::json!([{ "item": n }])
        } else {
            Value::from(n)
        }
    }

    /// Whether this page is such a count: a count of items with an exact filter, on index
    /// ranges or scans that hold only the items asked for (not a hierarchical prefix's share of
    /// a partition, which other prefixes may share). Under an EPK range (an SDK's per-range
    /// count) only a count without a filter, of a plain key placed by Cosmos's hash: its keys
    /// are scanned and each key's EPK, which the key holds whole, tells whether it is in.
    pub(super) fn counts_from_storage(&self, targets: &[Target], pk_path: &[String]) -> bool {
        let access = self.access_for(super::is_routed(targets), pk_path);
        let confined = match self.epk_range {
            None => targets.iter().all(|t| !t.narrowed),
            Some(_) => self.plan.predicates.is_empty() && self.key_epks_whole(),
        };
        self.plan.counts_items
            && self.q.from.is_some()
            && confined
            && self.plan.filter_exact_with(access, pk_path)
    }

    /// Whether a stored key holds its item's whole Cosmos EPK (`cosmos_epk_of`).
    fn key_epks_whole(&self) -> bool {
        self.def.partition_key.keys_hold_cosmos_epk()
    }

    /// Whether the item stored under `key` is outside the request's EPK range.
    fn outside_epk_range(&self, key: &[u8]) -> bool {
        let Some(range) = self.epk_range else {
            return false;
        };
        self.def
            .partition_key
            .cosmos_epk_of(&keys::epk_of(key))
            .is_some_and(|epk| !range.contains(&epk))
    }

    /// Counts the items the targets select; the page is that one number.
    pub(super) fn count_items(
        &mut self,
        targets: &[Target],
        pk_path: &[String],
        token: &mut Token,
    ) -> Result<bool> {
        // The counters are per partition: a range's share of one is counted key by key.
        if self.plan.predicates.is_empty()
            && self.def.default_ttl.is_none()
            && self.epk_range.is_none()
        {
            return self.count_from_counters(targets, token);
        }
        let limit = self.budget.hard_limit();
        let ttl_on = self.def.default_ttl.is_some();
        let mut n = 0u64;
        for t in targets {
            self.visit(t.pp);
            // Index candidates are charged as the index entries they are; scanned keys here.
            let scanned = self.access_for(t.epks.is_some(), pk_path).is_none();
            let complete = self.each_candidate(t, None, |run, key, value| {
                if run.started.elapsed() > limit {
                    return Ok(false);
                }
                if run.outside_epk_range(key) {
                    return Ok(true);
                }
                if ttl_on {
                    let h = DocHeader::peek(value)
                        .map_err(|d| keys::corrupt_item(key, &run.def.full_id(), d.describe()))?;
                    if ttl::is_expired(&h, run.def.default_ttl, run.now) {
                        return Ok(true);
                    }
                }
                if scanned {
                    run.index_read(1);
                }
                n += 1;
                Ok(true)
            })?;
            if !complete {
                return Err(Error::RequestTimeout(format!(
                    "counting ran past {limit:?}; filter on the partition key or an indexed path"
                )));
            }
        }
        self.matched_docs = n;
        Ok(self.page_of(vec![self.count_row(n)], token))
    }

    /// No filter and no TTL (so no item can have expired unseen): the counters every write keeps
    /// in the same transaction as the items answer, per physical partition or, routed, per
    /// logical partition, in this snapshot. Still charged one index entry per item counted.
    /// A physical partition's counter must equal the sum of its logical partitions' (`lps`).
    fn count_from_counters(&mut self, targets: &[Target], token: &mut Token) -> Result<bool> {
        let mut n = 0u64;
        for t in targets {
            self.visit(t.pp);
            let items = match &t.epks {
                // The partition's counter, cross-checked against its logical partitions'
                // (another table: damage to either is caught) while they are few enough for the
                // walk to stay cheap (`LP_CHECK_MAX` small entries, about a millisecond); past
                // that the counter answers alone, as scans that would contradict it refuse.
                None => {
                    let counted = self.def.partitions.by_id(t.pp).map_or(0, |p| p.items);
                    let name = self.def.full_id();
                    let lps = audit::lp_totals_within(
                        self.store,
                        self.rtxn,
                        self.def.rid,
                        t.start,
                        t.end,
                        &name,
                        LP_CHECK_MAX,
                    )?;
                    if let Some(lps) = lps.filter(|l| l.items != counted) {
                        return Err(audit::damaged(
                            self.store,
                            format!(
                                "physical partition {} of container '{name}' counts {counted} items, its logical partitions {}",
                                t.pp, lps.items
                            ),
                        ));
                    }
                    counted
                }
                Some(epks) => {
                    let mut items = 0;
                    for epk in epks {
                        let prefix = keys::partition_prefix(self.def.rid, epk);
                        items += self
                            .store
                            .lps
                            .get(self.rtxn, &prefix)?
                            .map_or(0, |v| crate::storage::keys::decode_lp_stats(v).1);
                    }
                    items
                }
            };
            self.index_read(items);
            n += items;
        }
        self.matched_docs = n;
        Ok(self.page_of(vec![self.count_row(n)], token))
    }
}
