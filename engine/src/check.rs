//! `engine check`: verifies what can be verified of a store without trusting it — every item
//! parses, every item has its one latest-version change-feed entry (at its partition and LSN),
//! every live item has exactly its index entries and every entry points to an item,
//! the index counts match the entries, physical partitions tile the hash space, and the item
//! counters (per physical and per logical partition) match the items. Read-only: it runs beside
//! a writing process, in one read transaction (one consistent snapshot).

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use crate::catalog::ContainerDef;
use crate::client::engine::Engine;
use crate::error::{Error, Result};
use crate::index;
use crate::storage::keys::{self, DocHeader};
use crate::ttl;

/// What `check` found in one container.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ContainerReport {
    pub database: String,
    pub container: String,
    pub items: u64,
    pub index_entries: u64,
    /// Each problem found, as a sentence naming the item, partition or key.
    pub problems: Vec<String>,
}

/// Stops listing problems of one kind past this many (the count is still reported).
const MAX_LISTED: usize = 20;

fn note(
    problems: &mut Vec<String>,
    counts: &mut BTreeMap<&'static str, u64>,
    kind: &'static str,
    text: String,
) {
    let n = counts.entry(kind).or_insert(0);
    *n += 1;
    if *n as usize <= MAX_LISTED {
        problems.push(text);
    } else if *n as usize == MAX_LISTED + 1 {
        problems.push(format!(
            "… more problems of the kind '{kind}' (counted below)"
        ));
    }
}

impl Engine {
    /// Checks every container; a report per container (problems empty when all is well).
    pub fn check(&self) -> Result<Vec<ContainerReport>> {
        let store = &self.inner.store;
        let rtxn = store.env.read_txn()?;
        let mut reports = Vec::new();
        for db in self.databases() {
            for def in self.database(&db.id).containers() {
                reports.push(check_container(store, &rtxn, &def)?);
            }
        }
        Ok(reports)
    }
}

fn check_container(
    store: &crate::storage::Store,
    rtxn: &heed::RoTxn,
    def: &ContainerDef,
) -> Result<ContainerReport> {
    let mut r = ContainerReport {
        database: def.database.clone(),
        container: def.id.clone(),
        ..Default::default()
    };
    let mut counts: BTreeMap<&'static str, u64> = BTreeMap::new();
    let rid = def.rid;
    let prefix = keys::container_prefix(rid);

    // Partitions tile the space: the first starts at 0, starts strictly increase.
    let parts = &def.partitions.partitions;
    if parts.first().map(|p| p.start) != Some(0) {
        note(
            &mut r.problems,
            &mut counts,
            "partition map",
            "the first physical partition does not start at 0".into(),
        );
    }
    for w in parts.windows(2) {
        if w[0].start >= w[1].start {
            note(
                &mut r.problems,
                &mut counts,
                "partition map",
                format!(
                    "physical partitions {} and {} overlap or are out of order",
                    w[0].id, w[1].id
                ),
            );
        }
    }

    // Items: parse, expected index entries, counters.
    let rebuilding = def.index_rebuild.is_some();
    let policy = def.policy();
    let now = ttl::now();
    let mut expected: HashSet<Vec<u8>> = HashSet::new();
    let mut per_pp: BTreeMap<u32, u64> = BTreeMap::new();
    let mut per_lp: BTreeMap<[u8; 16], u64> = BTreeMap::new();
    // The latest-version change feed holds one entry per item, at (its partition, its LSN).
    let mut feed_expected: HashSet<(u32, u64, Vec<u8>)> = HashSet::new();
    for entry in store.docs.prefix_iter(rtxn, &prefix)? {
        let (k, v) = entry?;
        r.items += 1;
        let epk = keys::epk_of(k);
        let pp = def.partitions.owner(&epk).id;
        *per_pp.entry(pp).or_insert(0) += 1;
        *per_lp.entry(epk.0).or_insert(0) += 1;
        let (h, json) = match DocHeader::verify(v) {
            Ok(found) => found,
            Err(damage) => {
                note(
                    &mut r.problems,
                    &mut counts,
                    "damaged item",
                    format!(
                        "item '{}' (key {}): {}",
                        keys::id_of_doc_key(k),
                        keys::hex(k),
                        damage.describe()
                    ),
                );
                continue;
            }
        };
        feed_expected.insert((pp, h.lsn, k[4..].to_vec()));
        let doc: serde_json::Value = match serde_json::from_slice(json) {
            Ok(d) => d,
            Err(e) => {
                note(
                    &mut r.problems,
                    &mut counts,
                    "unreadable item",
                    format!(
                        "item '{}' (key {}) does not parse: {e}",
                        keys::id_of_doc_key(k),
                        keys::hex(k)
                    ),
                );
                continue;
            }
        };
        if rebuilding || ttl::is_expired(&h, def.default_ttl, now) {
            continue;
        }
        for term in index::terms(&doc, &policy) {
            expected.insert(index::entry_key(rid, pp, &term, &epk, &k[20..]));
        }
    }
    for (pp, n) in &per_pp {
        if let Some(p) = def.partitions.by_id(*pp) {
            if p.items != *n {
                note(
                    &mut r.problems,
                    &mut counts,
                    "counter",
                    format!(
                        "physical partition {pp} counts {} items, holds {n}",
                        p.items
                    ),
                );
            }
        }
    }
    for (epk, n) in &per_lp {
        let stored = store
            .lps
            .get(
                rtxn,
                &keys::partition_prefix(rid, &crate::partition::Epk(*epk)),
            )?
            .map(|v| crate::writer::apply::decode_lp_stats(v).1);
        if stored != Some(*n) {
            note(
                &mut r.problems,
                &mut counts,
                "counter",
                format!(
                    "logical partition {} counts {stored:?} items, holds {n}",
                    keys::hex(epk)
                ),
            );
        }
    }

    // Change feed: every entry is an item's latest version, every item has its entry.
    for entry in store.feed.prefix_iter(rtxn, &prefix)? {
        let (k, v) = entry?;
        let pp = u32::from_be_bytes(k[4..8].try_into().expect("4"));
        let lsn = keys::lsn_of_feed_key(k);
        if !feed_expected.remove(&(pp, lsn, v.to_vec())) {
            note(
                &mut r.problems,
                &mut counts,
                "change feed",
                format!("feed entry at partition {pp}, LSN {lsn} is not an item's latest version"),
            );
        }
    }
    for (pp, lsn, _) in &feed_expected {
        note(
            &mut r.problems,
            &mut counts,
            "change feed",
            format!(
                "the item written at partition {pp}, LSN {lsn} is missing from the change feed"
            ),
        );
    }

    // Index entries: each points to an item and is one the item should have; counts match.
    let mut pp_counts: BTreeMap<(u32, [u8; 8]), u64> = BTreeMap::new();
    let mut lp_counts: BTreeMap<([u8; 8], [u8; 16]), u64> = BTreeMap::new();
    let mut stored_pp_counts: BTreeMap<(u32, [u8; 8]), u64> = BTreeMap::new();
    let mut stored_lp_counts: BTreeMap<([u8; 8], [u8; 16]), u64> = BTreeMap::new();
    for entry in store.index.prefix_iter(rtxn, &prefix)? {
        let (k, v) = entry?;
        let count = || v.try_into().map(u64::from_be_bytes).unwrap_or(u64::MAX);
        if index::is_count_key(k) {
            let pp = u32::from_be_bytes(k[4..8].try_into().expect("4"));
            stored_pp_counts.insert((pp, k[8..16].try_into().expect("8")), count());
            continue;
        }
        if k.len() == 32 && k[4..8] == u32::MAX.to_be_bytes() {
            stored_lp_counts.insert(
                (
                    k[8..16].try_into().expect("8"),
                    k[16..32].try_into().expect("16"),
                ),
                count(),
            );
            continue;
        }
        if k.len() < 8 + 8 + 24 {
            note(
                &mut r.problems,
                &mut counts,
                "index",
                format!("index key {} is too short", keys::hex(k)),
            );
            continue;
        }
        r.index_entries += 1;
        let pp = u32::from_be_bytes(k[4..8].try_into().expect("4"));
        let term = index::term_of_entry(k);
        let epk = index::epk_of_entry(k);
        *pp_counts.entry((pp, index::term_path(term))).or_insert(0) += 1;
        *lp_counts
            .entry((index::term_path(term), epk.0))
            .or_insert(0) += 1;
        let mut doc_key = rid.to_be_bytes().to_vec();
        doc_key.extend_from_slice(&epk.0);
        doc_key.extend_from_slice(v);
        if store.docs.get(rtxn, &doc_key)?.is_none() {
            note(
                &mut r.problems,
                &mut counts,
                "index",
                format!("index entry {} points to a missing item", keys::hex(k)),
            );
        } else if !rebuilding && !expected.remove(k) {
            // An expired item keeps its entries until the purge: only flag live items' entries.
            let live = store
                .docs
                .get(rtxn, &doc_key)?
                .and_then(DocHeader::decode)
                .is_some_and(|(h, _)| !ttl::is_expired(&h, def.default_ttl, now));
            if live {
                note(
                    &mut r.problems,
                    &mut counts,
                    "index",
                    format!(
                        "index entry {} is not one of its item's terms",
                        keys::hex(k)
                    ),
                );
            }
        }
    }
    for missing in &expected {
        note(
            &mut r.problems,
            &mut counts,
            "index",
            format!("an item lacks its index entry {}", keys::hex(missing)),
        );
    }
    if !rebuilding {
        for (key, n) in &pp_counts {
            if stored_pp_counts.get(key).copied().unwrap_or(0) != *n {
                note(
                    &mut r.problems,
                    &mut counts,
                    "index count",
                    format!(
                        "physical partition {} path {} counts {:?} entries, holds {n}",
                        key.0,
                        keys::hex(&key.1),
                        stored_pp_counts.get(key)
                    ),
                );
            }
        }
        for (key, n) in &lp_counts {
            if stored_lp_counts.get(key).copied().unwrap_or(0) != *n {
                note(
                    &mut r.problems,
                    &mut counts,
                    "index count",
                    format!(
                        "logical partition {} path {} counts {:?} entries, holds {n}",
                        keys::hex(&key.1),
                        keys::hex(&key.0),
                        stored_lp_counts.get(key)
                    ),
                );
            }
        }
    }
    for (kind, n) in counts.iter().filter(|(_, n)| **n as usize > MAX_LISTED) {
        r.problems
            .push(format!("{n} problems of the kind '{kind}' in all"));
    }
    Ok(r)
}

/// A check that found problems, as an error for the CLI's exit status.
pub fn failed(reports: &[ContainerReport]) -> Option<Error> {
    let n: usize = reports.iter().map(|r| r.problems.len()).sum();
    (n > 0).then(|| Error::Corrupt(format!("check found {n} problems (listed above)")))
}
