//! `engine check`: verifies what can be verified of a store without trusting it — every item
//! parses, every item has its one latest-version change-feed entry (at its partition and LSN),
//! every live item has exactly its index entries and every entry points to an item, every live
//! item holds its unique-key entries and no entry blocks a value its item does not hold,
//! the index counts match the entries, physical partitions tile the hash space, and the item
//! counters (per physical and per logical partition) match the items. Read-only: it runs beside
//! a writing process, in one read transaction (one consistent snapshot).

mod backup;
mod change_feed;
mod containers;
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
    /// How many problems of each kind were found: the true totals, ahead of the list (which
    /// names at most 20 of a kind).
    pub problem_counts: BTreeMap<String, u64>,
    /// Each problem found, as a sentence naming the item, partition or key.
    pub problems: Vec<String>,
}

/// The name of the report holding what belongs to no container (keys of any table under an
/// unknown container id).
pub const NO_CONTAINER: &str = "(no container)";

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

    /// The total of each kind.
    fn counts(&self) -> BTreeMap<String, u64> {
        self.counts
            .iter()
            .map(|(k, n)| ((*k).to_owned(), *n))
            .collect()
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
    /// Whether the store keeps the index's term counters (`index::terms`).
    terms_known: bool,
}

impl Engine {
    /// Checks every container; a report per container (problems empty when all is well).
    pub fn check(&self) -> Result<Vec<ContainerReport>> {
        let store = &self.inner.store;
        let rtxn = store.env.read_txn()?;
        let mut reports = Vec::new();
        let mut with_policy = std::collections::BTreeSet::new();
        let mut all = BTreeMap::new();
        for db in self.databases() {
            for def in self.database(&db.id).containers() {
                if !def.unique_keys().is_empty() {
                    with_policy.insert(def.rid);
                }
                all.insert(def.rid, format!("{}/{}", def.database, def.id));
                reports.push(check_container(store, &rtxn, &def)?);
            }
        }
        let mut problems = Problems::default();
        unique_entries::check_entries_of_unknown_containers(
            store,
            &rtxn,
            &with_policy,
            &all,
            &mut problems,
        )?;
        containers::check_keys_of_unknown_containers(store, &rtxn, &all, &mut problems)?;
        if !problems.counts.is_empty() {
            reports.push(ContainerReport {
                database: NO_CONTAINER.to_owned(),
                container: NO_CONTAINER.to_owned(),
                problem_counts: problems.counts(),
                problems: problems.into_list(),
                ..Default::default()
            });
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
        terms_known: crate::index::terms::known(store, rtxn)?,
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
        problem_counts: problems.counts(),
        problems: problems.into_list(),
    })
}

/// A check that found problems, as an error for the CLI's exit status: the true totals, per
/// kind, before anything else.
pub fn failed(reports: &[ContainerReport]) -> Option<Error> {
    let mut kinds: BTreeMap<&str, u64> = BTreeMap::new();
    for r in reports {
        for (kind, n) in &r.problem_counts {
            *kinds.entry(kind).or_insert(0) += n;
        }
    }
    let total: u64 = kinds.values().sum();
    let containers = reports.iter().filter(|r| !r.problems.is_empty()).count();
    (total > 0).then(|| {
        let per_kind: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
        Error::Corrupt(format!(
            "check found {total} problem{} in {containers} report{}: {} (listed above, at most \
             {MAX_LISTED} of each kind per container)",
            if total == 1 { "" } else { "s" },
            if containers == 1 { "" } else { "s" },
            per_kind.join(", ")
        ))
    })
}
