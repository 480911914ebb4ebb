//! How a page runs (streamed, an ORDER BY merge, or whole), chosen once per page and run.

use super::super::plan::Mode;
use super::ordered::{order_index, OrderIndex};
use super::partial::{Partial, INLINE_MAX};
use super::token::{pack, pack_hashes, unpack_hashes};
use super::{index_checks, is_routed, Resume, Run, Target, Token};
use crate::error::Result;
use crate::index::CompiledPolicy;

/// The execution chosen for a page.
pub(super) struct Execution {
    pub(super) mode: Mode,
    /// The index an ORDER BY merge walks (set exactly when `mode` is `Ordered`).
    pub(super) order_index: Option<OrderIndex>,
}

impl<'a> Run<'a> {
    /// Lets the index answer only while it holds exactly the items (no rebuild under way, a
    /// consistent policy); otherwise candidates come from scans.
    pub(super) fn use_index_if_ready(&mut self, policy: &CompiledPolicy, pk_path: &[String]) {
        self.index_ready = self.def.index_rebuild.is_none() && policy.consistent;
        if self.index_ready {
            self.index_checks = index_checks(self.plan, policy, pk_path);
        }
    }

    /// The plan's mode, unless the page resumes one that ran whole (a continuation resumes the
    /// way its first page ran) or an ORDER BY has no usable order index.
    pub(super) fn choose_execution(
        &mut self,
        policy: &CompiledPolicy,
        targets: &[Target],
        resumed: Option<Resume>,
    ) -> Result<Execution> {
        let plan = self.plan;
        let resumed_whole = matches!(resumed, Some(Resume::Whole | Resume::SortedFew));
        self.sorting_few = resumed == Some(Resume::SortedFew);
        // An ORDER BY merge needs an index in that order holding every item: the path's range
        // index for one key, a composite index (scanned forwards or backwards) for several.
        let order_index = match &plan.mode {
            Mode::Ordered { keys } if self.index_ready && !resumed_whole => {
                match order_index(policy, keys) {
                    // A routed query whose filter already narrows it to a few items sorts them
                    // instead.
                    Some(_) if self.few_candidates(targets, 4 * self.rows_wanted())? => {
                        self.sorting_few = true;
                        None
                    }
                    Some(ix) if self.all_indexed(targets, &ix.hash)? => Some(ix),
                    _ => None,
                }
            }
            _ => None,
        };
        let mode = match &plan.mode {
            _ if resumed_whole => Mode::Whole,
            Mode::Ordered { .. } if order_index.is_none() => Mode::Whole,
            m => m.clone(),
        };
        Ok(Execution { mode, order_index })
    }

    /// Whether storage selects exactly the rows, so nothing needs evaluating. An ordered merge
    /// reads its candidates from the order index, not from the access predicate, so there only
    /// routing can make it exact.
    pub(super) fn selects_exactly(
        &self,
        mode: &Mode,
        targets: &[Target],
        pk_path: &[String],
    ) -> bool {
        let access = match mode {
            Mode::Ordered { .. } => None,
            _ => self.access_for(is_routed(targets), pk_path),
        };
        !matches!(mode, Mode::Whole)
            && self.epk_range.is_none()
            && self.plan.exact_with(access, pk_path)
    }

    /// Runs the page the chosen way, leaving in `token` where and how the next page resumes.
    /// Returns whether the query is complete.
    pub(super) fn execute(
        &mut self,
        execution: &Execution,
        targets: &[Target],
        token: &mut Token,
    ) -> Result<bool> {
        match &execution.mode {
            Mode::Whole => {
                token.mode = if self.sorting_few {
                    Resume::SortedFew
                } else {
                    Resume::Whole
                };
                let pk_path = super::routing_path(self.def)?;
                if self.counts_from_storage(targets, &pk_path) {
                    self.counting = true;
                    return self.count_items(targets, &pk_path, token);
                }
                self.whole(targets, token)
            }
            Mode::Stream => {
                token.mode = Resume::Stream;
                if self.q.distinct {
                    // The hashes travel in the continuation while few, else stay on the
                    // engine's side (`partial.rs`).
                    let packed = match self.take_partial(token)? {
                        Some(Partial::Seen(packed)) => packed,
                        _ => std::mem::take(&mut token.seen),
                    };
                    self.seen = Some(unpack_hashes(&packed)?);
                }
                let done = self.stream(targets, token)?;
                if let Some(k) = &self.last_key {
                    token.key = Some(pack(k));
                }
                token.audit = self.audit_out.take();
                if let (Some(seen), false) = (&self.seen, done) {
                    let packed = pack_hashes(seen);
                    if packed.len() <= INLINE_MAX {
                        token.seen = packed;
                    } else {
                        self.keep_partial(token, Partial::Seen(packed))?;
                    }
                }
                Ok(done)
            }
            Mode::Ordered { .. } => {
                token.mode = Resume::Ordered;
                let ix = execution
                    .order_index
                    .as_ref()
                    .expect("an ordered plan has its index");
                self.ordered(targets, &ix.hash, ix.backwards, token)
            }
        }
    }
}
