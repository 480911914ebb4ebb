//! `engine check`: verifies what can be verified of a store without trusting it — every item
//! parses, every item has its one latest-version change-feed entry (at its partition and LSN),
//! every live item has exactly its index entries and every entry points to an item, every live
//! item holds its unique-key entries and no entry blocks a value its item does not hold,
//! the index counts match the entries, physical partitions tile the hash space, and the item
//! counters (per physical and per logical partition) match the items. Read-only: it runs beside
//! a writing process, in one read transaction (one consistent snapshot).

mod change_feed;
mod index_entries;
mod items;
mod partitions;
mod unique_entries;

use std::collections::BTreeMap;

use heed::RoTxn;
use serde::Serialize;

use crate::catalog::ContainerDef;
use crate::client::engine::Engine;
use crate::error::{Error, Result};
use crate::storage::keys;
use crate::storage::Store;
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

/// The problems found in one container, in the order found.
#[derive(Default)]
struct Problems {
    listed: Vec<String>,
    counts: BTreeMap<&'static str, u64>,
}

impl Problems {
    fn note(&mut self, kind: &'static str, text: String) {
        let n = self.counts.entry(kind).or_insert(0);
        *n += 1;
        if *n as usize <= MAX_LISTED {
            self.listed.push(text);
        } else if *n as usize == MAX_LISTED + 1 {
            self.listed.push(format!(
                "… more problems of the kind '{kind}' (counted below)"
            ));
        }
    }

    /// The listed problems, then the total of each kind listed only in part.
    fn into_list(mut self) -> Vec<String> {
        for (kind, n) in self
            .counts
            .iter()
            .filter(|(_, n)| **n as usize > MAX_LISTED)
        {
            self.listed
                .push(format!("{n} problems of the kind '{kind}' in all"));
        }
        self.listed
    }
}

/// One container as every check reads it: one snapshot, and one verdict on what is live.
struct Container<'a> {
    store: &'a Store,
    rtxn: &'a RoTxn<'a>,
    def: &'a ContainerDef,
    /// The prefix of the container's keys, in every table.
    prefix: [u8; 4],
    /// A rebuild rewrites the index entries: they are not compared with the items meanwhile.
    rebuilding: bool,
    /// One `now` for every TTL decision, so items and their index entries agree on what expired.
    now: u64,
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

/// Every check of one container, in the order its report lists their problems.
fn check_container(store: &Store, rtxn: &RoTxn, def: &ContainerDef) -> Result<ContainerReport> {
    let c = Container {
        store,
        rtxn,
        def,
        prefix: keys::container_prefix(def.rid),
        rebuilding: def.index_rebuild.is_some(),
        now: ttl::now(),
    };
    let mut problems = Problems::default();
    partitions::check_partition_map(&c, &mut problems);
    let mut items = items::check_items_intact(&c, &mut problems)?;
    partitions::check_physical_partition_counters(&c, &items.per_pp, &mut problems);
    partitions::check_logical_partition_counters(&c, &items.per_lp, &mut problems)?;
    change_feed::check_change_feed(&c, items.feed_entries, &mut problems)?;
    let index = index_entries::check_entries_point_to_their_items(
        &c,
        &mut items.index_entries,
        &mut problems,
    )?;
    index_entries::check_items_have_their_entries(&items.index_entries, &mut problems);
    index_entries::check_index_counts(&c, &index, &mut problems);
    unique_entries::check_unique_entries(
        &c,
        &mut items.unique_entries,
        &items.legacy_unique_entries,
        &mut problems,
    )?;
    Ok(ContainerReport {
        database: def.database.clone(),
        container: def.id.clone(),
        items: items.count,
        index_entries: index.entries,
        problems: problems.into_list(),
    })
}

/// A check that found problems, as an error for the CLI's exit status.
pub fn failed(reports: &[ContainerReport]) -> Option<Error> {
    let n: usize = reports.iter().map(|r| r.problems.len()).sum();
    (n > 0).then(|| Error::Corrupt(format!("check found {n} problems (listed above)")))
}
