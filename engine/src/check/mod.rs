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
mod report;
mod snapshot;
mod unique_entries;

pub use report::{failed, ContainerReport};

use std::collections::BTreeMap;

use heed::RoTxn;

use report::{Problems, NO_CONTAINER};
use snapshot::Container;

use crate::catalog::ContainerDef;
use crate::client::engine::Engine;
use crate::error::Result;
use crate::storage::keys;
use crate::storage::Store;
use crate::ttl;

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
        if !problems.is_empty() {
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
