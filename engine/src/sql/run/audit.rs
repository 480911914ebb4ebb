//! A page's scans checked against the counters (issue 34; `storage::audit`): each scan of a
//! whole scope counts the keys it visits, and when it reaches the scope's end (in this page, or
//! in a later one: the count travels in the continuation) the count must equal the scope's
//! counter. A write to the partition between pages changes its LSN and makes the count moot:
//! that scope is then not compared (it is on every unchanged re-read).

// The carried count is part of the token's format, so it lives in `token.rs`.
use super::token::pack;
pub(super) use super::token::Audit;
use super::{Run, Target};
use crate::error::Result;
use crate::partition::Epk;
use crate::storage::{audit, keys};

/// An item read costs about this many index entries walked in order (a lookup, a checksum, a
/// JSON parse against a cursor step): the exchange rate of [`Run::lost_check_entry`]'s rental.
const WALK_PER_READ: u64 = 16;

/// An index check's misses per physical partition (`Run::lost_check_entry`).
#[derive(Default)]
pub(super) struct Misses(std::collections::BTreeMap<u32, Missed>);

#[derive(Default)]
struct Missed {
    /// Items read for misses so far.
    reads: u64,
    /// The value's entries in the partition, by its term counter (looked up at the first miss;
    /// `None` inside when the store has no counters).
    entries: Option<Option<u64>>,
    /// The value's entries there were walked and match their counter: every miss is true.
    whole: bool,
}

/// What one scan covers.
pub(super) enum Scope {
    /// A target's coordinate range: a whole physical partition, or a prefix's share of one.
    Range,
    /// One logical partition.
    Logical(Epk),
}

/// A scan's running count.
pub(super) struct Tally {
    tag: String,
    lsn: u64,
    pub(super) n: u64,
    /// False when the count cannot be known (a page resumed a scope counted under another map).
    on: bool,
}

impl Scope {
    /// The scope's name in a continuation: the range's bounds or the EPK.
    fn tag(&self, t: &Target) -> String {
        let mut b = Vec::with_capacity(17);
        match self {
            Scope::Range => {
                b.push(b'r');
                b.extend_from_slice(&t.start.to_be_bytes());
                if let Some(e) = t.end {
                    b.extend_from_slice(&e.to_be_bytes());
                }
            }
            Scope::Logical(epk) => {
                b.push(b'l');
                b.extend_from_slice(&epk.0);
            }
        }
        pack(&b)
    }
}

impl<'a> Run<'a> {
    /// The count of `scope` in target `t`: carried on from the continuation when the page
    /// `resumes` inside it, else from zero.
    pub(super) fn tally(&self, t: &Target, scope: &Scope, resumes: bool) -> Tally {
        let tag = scope.tag(t);
        let lsn = self.def.partitions.by_id(t.pp).map_or(0, |p| p.lsn);
        match (&self.audit_in, resumes) {
            (_, false) => Tally {
                tag,
                lsn,
                n: 0,
                on: true,
            },
            (Some(a), true) if a.s == tag => Tally {
                tag,
                lsn: a.l,
                n: a.n,
                on: true,
            },
            (_, true) => Tally {
                tag,
                lsn,
                n: 0,
                on: false,
            },
        }
    }

    /// A scan stopped inside its scope (the page ended): its count goes in the continuation.
    pub(super) fn carry(&mut self, tally: Tally) {
        self.audit_out = tally.on.then_some(Audit {
            s: tally.tag,
            l: tally.lsn,
            n: tally.n,
        });
    }

    /// A scan reached the end of its scope: its count must be the scope's counter, unless the
    /// partition was written since the count began.
    pub(super) fn settle(&self, t: &Target, scope: &Scope, tally: &Tally) -> Result<()> {
        let Some(p) = self.def.partitions.by_id(t.pp) else {
            return Ok(());
        };
        if !tally.on || p.lsn != tally.lsn {
            return Ok(());
        }
        let name = self.def.full_id();
        let (expected, what) = match scope {
            Scope::Range if !t.narrowed => (p.items, format!("physical partition {}", t.pp)),
            Scope::Range => (
                audit::lp_totals(self.store, self.rtxn, self.def.rid, t.start, t.end, &name)?.items,
                format!("a key prefix's range of physical partition {}", t.pp),
            ),
            Scope::Logical(epk) => (
                audit::lp_items(
                    self.store,
                    self.rtxn,
                    &keys::partition_prefix(self.def.rid, epk),
                )?,
                format!("logical partition {}", keys::show(&epk.0)),
            ),
        };
        if tally.n != expected {
            return Err(audit::damaged(
                self.store,
                format!(
                    "a scan of {what} of container '{name}' read {} items where its counters record {expected}",
                    tally.n
                ),
            ));
        }
        Ok(())
    }

    /// A scanned key must come after the previous one and at or above the scan's lower bound.
    pub(super) fn in_order(&self, key: &[u8], prev: Option<&[u8]>, lo: &[u8]) -> Result<()> {
        if key < lo || prev.is_some_and(|p| key <= p) {
            return Err(audit::went_back(self.store, &self.def.full_id()));
        }
        Ok(())
    }

    /// The item an index entry names. Entries are written and removed in their item's
    /// transaction (and not used while a rebuild runs), so an entry without its item is damage:
    /// a B-tree hiding the item, or a damaged entry (issue 34).
    /// Index entry `k` found an item whose entry for index check `i` (an equality on another
    /// path) is missing. That is a plain non-match unless the entry was lost, and dropping the
    /// item would then answer short. Two ways to tell, the cheaper first (a ski rental): each
    /// miss reads its item (uncharged; the index filtered it out) and refuses if the item holds
    /// the value; once the misses in a physical partition would have read more than
    /// 1/[`WALK_PER_READ`] of the value's entries there, those entries are walked and compared
    /// with their term counter instead, and the partition's later misses are true ones. So the
    /// check costs at most about twice the cheaper of the two.
    pub(super) fn lost_check_entry(&mut self, k: &[u8], i: usize) -> Result<()> {
        if !crate::index::terms::checking() || k.len() < 8 {
            return Ok(());
        }
        let pp = u32::from_be_bytes(k[4..8].try_into().expect("4 bytes"));
        let (store, rtxn, rid) = (self.store, self.rtxn, self.def.rid);
        let term = self.index_checks[i].term.clone();
        let seen = self.index_checks[i].misses.0.entry(pp).or_default();
        if seen.whole {
            return Ok(());
        }
        if seen.entries.is_none() {
            // No counters (a store not yet given them, opened read-only): items are read.
            seen.entries = Some(match crate::index::terms::known(store, rtxn)? {
                true => {
                    let key = crate::index::terms::count_key(rid, pp, &term);
                    Some(crate::index::read_count(store, rtxn, &key)?)
                }
                false => None,
            });
        }
        if let Some(Some(counted)) = seen.entries {
            seen.reads += 1;
            if seen.reads * WALK_PER_READ >= counted {
                let mut prefix = rid.to_be_bytes().to_vec();
                prefix.extend_from_slice(&pp.to_be_bytes());
                prefix.extend_from_slice(&term);
                let mut read = 0u64;
                for entry in store.index.prefix_iter(rtxn, &prefix)? {
                    entry?;
                    read += 1;
                }
                if read != counted {
                    return Err(audit::damaged(
                        store,
                        format!(
                            "an index scan of container '{}' (physical partition {pp}) read \
                             {read} entries of a value its counter holds {counted} of",
                            self.def.full_id()
                        ),
                    ));
                }
                self.index_checks[i].misses.0.entry(pp).or_default().whole = true;
                return Ok(());
            }
        }
        let Some(id_key) = store.index.get(rtxn, k)? else {
            return Ok(());
        };
        let mut doc_key = rid.to_be_bytes().to_vec();
        doc_key.extend_from_slice(&crate::index::epk_of_entry(k)?.0);
        doc_key.extend_from_slice(id_key);
        let stored = self.indexed_item(&doc_key)?;
        let (h, json) = keys::DocHeader::verify(stored)
            .map_err(|d| keys::corrupt_item(&doc_key, &self.def.full_id(), d.describe()))?;
        if keys::DocHeader::is_not_indexed(stored)
            || crate::ttl::is_expired(&h, self.def.default_ttl, self.now)
        {
            return Ok(());
        }
        let doc: serde_json::Value = crate::item::parse_stored(json)?;
        let path = self.plan.predicates[self.index_checks[i].predicate].path();
        let Some(v) = path.iter().try_fold(&doc, |v, seg| v.get(seg)) else {
            return Ok(());
        };
        let mut held = crate::index::path_hash(path).to_vec();
        if crate::index::encoding::encode_into(v, &mut held) && held == term {
            return Err(audit::damaged(
                self.store,
                format!(
                    "item {} of container '{}' holds a value of its filter whose index entry is \
                     missing",
                    keys::shown_id(&doc_key),
                    self.def.full_id()
                ),
            ));
        }
        Ok(())
    }

    pub(super) fn indexed_item(&self, doc_key: &[u8]) -> Result<&'a [u8]> {
        self.store.docs.get(self.rtxn, doc_key)?.ok_or_else(|| {
            audit::damaged(
                self.store,
                format!(
                    "an index entry of container '{}' names item {}, which a read does not find",
                    self.def.full_id(),
                    keys::shown_id(doc_key)
                ),
            )
        })
    }
}
