//! Online index rebuild after an indexing policy change, in bounded steps on the writer thread
//! between other work: first the old entries are cleared, then every item is indexed under the
//! new policy, in key order. Writes meanwhile maintain the new policy's entries for the items
//! they touch (a put is idempotent, a delete of a missing entry harmless), and queries scan
//! instead of trusting the index until the rebuild is done (`ContainerDef::index_rebuild`).

use crate::catalog::{self, ContainerDef};
use crate::error::{Error, Result};
use crate::index;
use crate::storage::keys::{self, DocHeader};
use crate::storage::Store;
use crate::ttl;

/// Entries cleared or items indexed per step (one transaction).
const STEP: usize = 2000;

/// Runs one step of `def`'s rebuild and commits it. Returns whether the rebuild is finished.
pub(super) fn step(store: &Store, def: &mut ContainerDef) -> Result<bool> {
    let Some(mut state) = def.index_rebuild.clone() else {
        return Ok(true);
    };
    let rid = def.rid;
    let mut wtxn = store.env.write_txn()?;
    if state.phase == "clearing" {
        let mut n = 0;
        let mut it = store
            .index
            .prefix_iter_mut(&mut wtxn, &keys::container_prefix(rid))?;
        while n < STEP && it.next().transpose()?.is_some() {
            // Safety: no reference into the entry is kept.
            unsafe { it.del_current()? };
            n += 1;
        }
        drop(it);
        if n < STEP {
            state.phase = "indexing".into();
        }
    } else {
        let policy = def.policy();
        let now = ttl::now();
        let prefix = keys::container_prefix(rid);
        let from = state
            .cursor
            .as_deref()
            .and_then(keys::unhex)
            .unwrap_or_else(|| prefix.to_vec());
        let mut batch = Vec::new();
        for entry in store.docs.range(&wtxn, &crate::storage::from(&from))? {
            let (k, v) = entry?;
            if !k.starts_with(&prefix) || batch.len() >= STEP {
                break;
            }
            if Some(keys::hex(k)) == state.cursor {
                continue;
            }
            let (h, json) =
                DocHeader::decode(v).ok_or_else(|| Error::Corrupt("short item header".into()))?;
            // Expired, or written with the indexing directive `Exclude`: no entries.
            if ttl::is_expired(&h, def.default_ttl, now) || DocHeader::is_not_indexed(v) {
                batch.push((k.to_vec(), Vec::new()));
                continue;
            }
            let doc = serde_json::from_slice(json).map_err(|e| Error::Corrupt(e.to_string()))?;
            batch.push((k.to_vec(), index::terms(&doc, &policy)));
        }
        let done = batch.len() < STEP;
        for (k, terms) in &batch {
            let epk = keys::epk_of(k);
            let pp = def.partitions.owner(&epk).id;
            let mut counts = std::collections::BTreeMap::new();
            for term in terms {
                let key = index::entry_key(rid, pp, term, &epk, &k[20..]);
                // A write during the rebuild may have indexed this item already.
                if store.index.get(&wtxn, &key)?.is_some() {
                    continue;
                }
                *counts.entry(index::term_path(term)).or_insert(0) += 1;
                index::terms::adjust(store, &mut wtxn, rid, pp, term, 1)?;
                index::terms::adjust_logical(store, &mut wtxn, rid, &epk, term, 1)?;
                store.index.put(&mut wtxn, &key, &k[20..])?;
            }
            index::adjust_counts(store, &mut wtxn, rid, pp, &counts)?;
            index::adjust_lp_counts(store, &mut wtxn, rid, &epk, &counts)?;
        }
        state.items_indexed += batch.len() as u64;
        state.cursor = batch.last().map(|(k, _)| keys::hex(k)).or(state.cursor);
        if done {
            def.index_rebuild = None;
        }
    }
    if def.index_rebuild.is_some() {
        def.index_rebuild = Some(state);
    }
    catalog::put_container(store, &mut wtxn, def)?;
    wtxn.commit()?;
    Ok(def.index_rebuild.is_none())
}
