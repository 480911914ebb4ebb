//! Items: each is intact and parses; what they hold is what the other checks compare against.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::report::Problems;
use super::snapshot::Container;
use crate::error::Result;
use crate::index::{self, CompiledPolicy};
use crate::storage::keys::{self, DocHeader};
use crate::ttl;
use crate::unique;

/// What the items imply for the rest of the store.
#[derive(Default)]
pub(super) struct Items {
    /// Items read, damaged ones included.
    pub(super) count: u64,
    /// The index entries the live items should have (none while the index is rebuilt).
    pub(super) index_entries: HashSet<Vec<u8>>,
    /// The latest-version change feed's entry of each item: (its partition, its LSN, `epk | id`).
    pub(super) feed_entries: HashSet<(u32, u64, Vec<u8>)>,
    /// Items per physical partition.
    pub(super) per_pp: BTreeMap<u32, u64>,
    /// Items per logical partition (by EPK).
    pub(super) per_lp: BTreeMap<[u8; 16], u64>,
    /// The unique-key entries the live items should have: entry key → the holder's id bytes.
    pub(super) unique_entries: HashMap<Vec<u8>, Vec<u8>>,
    /// Entries the rule before issue 34 gave live items holding `null` or `-0.0` at a unique
    /// path (`unique::legacy_entries`): entry key → the holder's id bytes.
    pub(super) legacy_unique_entries: HashMap<Vec<u8>, Vec<u8>>,
}

/// Every item's key is whole, its header and checksum verify and its JSON parses.
pub(super) fn check_items_intact(c: &Container, problems: &mut Problems) -> Result<Items> {
    let policy = c.def.policy();
    let mut items = Items::default();
    for entry in c.store.docs.prefix_iter(c.rtxn, &c.prefix)? {
        let (k, v) = entry?;
        items.count += 1;
        check_item_intact(c, &policy, k, v, &mut items, problems);
    }
    Ok(items)
}

/// One item (key `k`, stored `v`) is intact; as far as it reads, it is counted for its
/// partitions and its change-feed entry and index entries are expected.
fn check_item_intact(
    c: &Container,
    policy: &CompiledPolicy,
    k: &[u8],
    v: &[u8],
    items: &mut Items,
    problems: &mut Problems,
) {
    let def = c.def;
    if !keys::is_doc_key(k) {
        problems.note(
            "damaged item",
            format!(
                "item key {} is too short ({} bytes)",
                keys::show(k),
                k.len()
            ),
        );
        return;
    }
    let epk = keys::epk_of(k);
    let pp = def.partitions.owner(&epk).id;
    *items.per_pp.entry(pp).or_insert(0) += 1;
    *items.per_lp.entry(epk.0).or_insert(0) += 1;
    let (h, json) = match DocHeader::verify(v) {
        Ok(found) => found,
        Err(damage) => {
            problems.note(
                "damaged item",
                format!(
                    "item '{}' (key {}): {}",
                    keys::shown_id(k),
                    keys::show(k),
                    damage.describe()
                ),
            );
            return;
        }
    };
    items.feed_entries.insert((pp, h.lsn, k[4..].to_vec()));
    let doc: serde_json::Value = match serde_json::from_slice(json) {
        Ok(d) => d,
        Err(e) => {
            problems.note(
                "unreadable item",
                format!(
                    "item '{}' (key {}) does not parse: {e}",
                    keys::shown_id(k),
                    keys::show(k)
                ),
            );
            return;
        }
    };
    // Placed where its partition key says: under Cosmos placement that is also where an SDK
    // routes it, so a misplaced item would be one no SDK request finds.
    match def.partition_key.extract(&doc) {
        Ok(pk) if def.partition_key.epk(&pk) == epk => {}
        found => problems.note(
            "misplaced item",
            format!(
                "item '{}' (key {}) is stored under another EPK than its partition key {} gives",
                keys::shown_id(k),
                keys::show(k),
                found.map_or_else(|e| e.to_string(), |pk| pk.to_string())
            ),
        ),
    }
    if ttl::is_expired(&h, def.default_ttl, c.now) {
        return;
    }
    for e in unique::entries(def, &epk, &doc) {
        if let Some(other) = items.unique_entries.insert(e.key, k[20..].to_vec()) {
            problems.note(
                "unique key violated",
                format!(
                    "items '{}' and '{}' of one logical partition have the same {}",
                    String::from_utf8_lossy(&other),
                    keys::shown_id(k),
                    unique::describe(def, e.number)
                ),
            );
        }
    }
    for e in unique::legacy_entries(def, &epk, &doc) {
        items.legacy_unique_entries.insert(e.key, k[20..].to_vec());
    }
    // An item written with the indexing directive `Exclude` has no entries to expect.
    if c.rebuilding || DocHeader::is_not_indexed(v) {
        return;
    }
    for term in index::terms(&doc, policy) {
        items
            .index_entries
            .insert(index::entry_key(def.rid, pp, &term, &epk, &k[20..]));
    }
}
