//! A change-feed walk checked against what the engine counts (issue 34; `storage::audit`).
//!
//! LMDB keeps no page checksums: a damaged feed page makes a cursor end early, skip a subtree
//! or jump back without an error, and the feed would answer a short page with success. So each
//! walk of a partition's feed checks:
//! - its keys advance, at or above where it started;
//! - latest-version: an entry names an item that exists at the entry's LSN (entries are
//!   written and removed in their item's transaction), and a walk from the beginning that
//!   reaches the partition's end has met as many entries as the partition's item counter
//!   records (the count carried in the cursor between pages, dropped when the partition was
//!   written or split meanwhile: the counter then no longer describes what was counted);
//! - all-versions: a partition never split logs every write at the next LSN and retention
//!   purges only a prefix, so its records run without a gap from the oldest kept to the
//!   partition's LSN;
//! - each leaf page the walk enters is sound (`storage::pages`): the one check an incremental
//!   latest-version read, which no counter covers, has.

use heed::RoTxn;

use super::token::{Cursor, FeedCount};
use crate::catalog::ContainerDef;
use crate::error::{Error, Result};
use crate::partition::PhysicalPartition;
use crate::storage::pages::LeafCheck;
use crate::storage::{audit, keys, Store};

/// One cursor's walk over one physical partition's feed in one page.
pub(super) struct Walk<'a> {
    store: &'a Store,
    container: String,
    part: Option<(PhysicalPartition, Option<u64>)>,
    from: [u8; 16],
    prev: Option<Vec<u8>>,
    /// Latest-version: the count, when this walk is part of one from the beginning.
    count: Option<FeedCount>,
    /// All-versions on a partition never split: the LSN the next record must have.
    next_lsn: Option<u64>,
    /// The leaves the walk enters (what an incremental latest-version read has for a check).
    leaves: LeafCheck,
}

impl<'a> Walk<'a> {
    /// Starts the walk of `c` (positioned after `c.lsn`); `all_versions` reads the log.
    pub(super) fn begin(
        store: &'a Store,
        rtxn: &RoTxn,
        def: &ContainerDef,
        c: &Cursor,
        all_versions: bool,
    ) -> Result<Walk<'a>> {
        let part = def
            .partitions
            .partitions
            .iter()
            .position(|p| p.id == c.partition)
            .map(|i| {
                let (_, end) = def.partitions.range_of(i);
                (def.partitions.partitions[i].clone(), end)
            });
        let mut walk = Walk {
            store,
            container: def.full_id(),
            part,
            from: keys::feed_key(def.rid, c.partition, c.lsn.saturating_add(1)),
            prev: None,
            count: None,
            next_lsn: None,
            leaves: LeafCheck::new(store),
        };
        let Some((p, end)) = &walk.part else {
            return Ok(walk);
        };
        if all_versions {
            if p.range_parents.is_empty() && p.range_id.is_none() {
                // The oldest record kept: retention may have purged those before it.
                let oldest = store
                    .log
                    .prefix_iter(rtxn, &keys::feed_prefix(def.rid, p.id))?
                    .next()
                    .transpose()?
                    .map(|(k, _)| keys::lsn_of_feed_key(k));
                walk.next_lsn = oldest.map(|o| o.max(c.lsn.saturating_add(1)));
            }
        } else {
            walk.count = match c.count {
                Some(n) => Some(n),
                None if c.lsn == 0 => Some(FeedCount {
                    l: p.lsn,
                    s: p.start,
                    e: *end,
                    n: 0,
                }),
                None => None,
            };
        }
        Ok(walk)
    }

    /// Each key the walk meets, before it looks at the key's partition: keys advance.
    pub(super) fn key(&mut self, k: &[u8]) -> Result<()> {
        if k < self.from.as_slice() || self.prev.as_deref().is_some_and(|p| k <= p) {
            return Err(audit::went_back(self.store, &self.container));
        }
        self.prev = Some(k.to_vec());
        self.leaves.check(self.store, k)
    }

    /// Each entry of the walk's partition: its LSN.
    pub(super) fn entry(&mut self, k: &[u8]) -> Result<u64> {
        if !crate::storage::feed_entry::is_key(k) {
            return Err(self.damaged(format!(
                "a change feed key of physical partition {} is {} bytes long",
                self.pp(),
                k.len()
            )));
        }
        let lsn = keys::lsn_of_feed_key(k);
        if let Some(n) = &mut self.count {
            n.n += 1;
        }
        if let Some(want) = self.next_lsn {
            // A batch's later writes share its LSN (`entry`): they follow it, not the next.
            let want = if k.len() > 16 {
                want.saturating_sub(1)
            } else {
                want
            };
            if lsn != want {
                return Err(self.damaged(format!(
                    "the all-versions change feed of physical partition {} has no record at LSN {want} (the next one is {lsn})",
                    self.pp()
                )));
            }
            self.next_lsn = Some(lsn + 1);
        }
        Ok(lsn)
    }

    /// A latest-version entry at `lsn` names an item whose latest version is at `item_lsn`.
    pub(super) fn item(&self, lsn: u64, doc_key: &[u8], item_lsn: u64) -> Result<()> {
        if item_lsn == lsn {
            return Ok(());
        }
        Err(self.damaged(format!(
            "a change feed entry at LSN {lsn} names item {}, whose latest version is at LSN {item_lsn}",
            keys::shown_id(doc_key)
        )))
    }

    /// A latest-version entry at `lsn` names an item a read does not find.
    pub(super) fn no_item(&self, lsn: u64, doc_key: &[u8]) -> Error {
        self.damaged(format!(
            "a change feed entry at LSN {lsn} names item {}, which a read does not find",
            keys::shown_id(doc_key)
        ))
    }

    /// The walk stopped inside the partition (the page is full): what the cursor carries on.
    pub(super) fn carry(&self) -> Option<FeedCount> {
        self.count
    }

    /// The walk reached the partition's end: every count must be met.
    pub(super) fn finish(&self) -> Result<()> {
        let Some((p, end)) = &self.part else {
            return Ok(());
        };
        if let Some(want) = self.next_lsn {
            if want <= p.lsn {
                return Err(self.damaged(format!(
                    "the all-versions change feed of physical partition {} ends before LSN {want}, where the partition's LSN is {}",
                    p.id, p.lsn
                )));
            }
        }
        if let Some(n) = self.count {
            let unchanged = n.l == p.lsn && n.s == p.start && n.e == *end;
            if unchanged && n.n != p.items {
                return Err(self.damaged(format!(
                    "the change feed of physical partition {} has {} entries where its item counter records {}",
                    p.id, n.n, p.items
                )));
            }
        }
        Ok(())
    }

    fn pp(&self) -> u32 {
        self.part.as_ref().map_or(0, |(p, _)| p.id)
    }

    fn damaged(&self, what: String) -> Error {
        audit::damaged(
            self.store,
            format!("{what} (container '{}')", self.container),
        )
    }
}
