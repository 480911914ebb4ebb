//! The in-memory catalog readers consult without touching storage: per container its latest
//! committed definition, its throughput meters and what the layers above keep with it. The
//! writer publishes it after each commit.

use std::collections::HashMap;
use std::sync::Arc;

use arc_swap::ArcSwap;
use parking_lot::RwLock;

use super::{Attached, ContainerDef, DatabaseDef};
use crate::throughput::{SharedBudget, Throughput};

/// A container as readers see it: the latest committed definition and its throughput meters.
pub struct ContainerShared {
    pub def: ArcSwap<ContainerDef>,
    pub throughput: Throughput,
    /// Bumped after every commit that wrote to the container: change-feed workers wait on it
    /// instead of polling.
    pub commits: tokio::sync::watch::Sender<u64>,
    /// The last definition parsed from storage by a reader, with the hash of its bytes.
    pub snapshot_def: parking_lot::Mutex<Option<(u64, Arc<ContainerDef>)>>,
    /// What the layers above keep with the container (its scripts, its parsed queries),
    /// dropped with it.
    pub attached: Attached,
}

/// The in-memory catalog, published by the writer after each commit.
#[derive(Default)]
pub struct Catalog {
    databases: RwLock<HashMap<String, DatabaseDef>>,
    /// database id → container id → container (nested so lookups by `&str` allocate nothing).
    containers: RwLock<HashMap<String, HashMap<String, Arc<ContainerShared>>>>,
    /// database id → its shared RU/s, which its containers without their own draw from.
    budgets: RwLock<HashMap<String, Arc<SharedBudget>>>,
}

impl Catalog {
    pub fn databases(&self) -> Vec<DatabaseDef> {
        let mut v: Vec<_> = self.databases.read().values().cloned().collect();
        v.sort_by(|a, b| a.id.cmp(&b.id));
        v
    }

    pub fn container(&self, db: &str, id: &str) -> Option<Arc<ContainerShared>> {
        self.containers
            .read()
            .get(db)
            .and_then(|m| m.get(id))
            .cloned()
    }

    pub fn containers(&self, db: &str) -> Vec<Arc<ContainerDef>> {
        let mut v: Vec<_> = self
            .containers
            .read()
            .get(db)
            .map(|m| m.values().map(|c| c.def.load_full()).collect())
            .unwrap_or_default();
        v.sort_by(|a, b| a.id.cmp(&b.id));
        v
    }

    /// The database's shared budget (unlimited until the database is published with one).
    fn budget(&self, db: &str) -> Arc<SharedBudget> {
        if let Some(b) = self.budgets.read().get(db) {
            return b.clone();
        }
        self.budgets
            .write()
            .entry(db.to_owned())
            .or_default()
            .clone()
    }

    pub fn publish_database(&self, def: DatabaseDef) {
        self.budget(&def.id).configure(def.throughput);
        self.databases.write().insert(def.id.clone(), def);
    }

    pub fn remove_database(&self, id: &str) {
        self.databases.write().remove(id);
        self.containers.write().remove(id);
        self.budgets.write().remove(id);
    }

    pub fn publish_container(&self, def: ContainerDef) {
        let mut all = self.containers.write();
        let map = all.entry(def.database.clone()).or_default();
        match map.get(&def.id) {
            Some(shared) if shared.def.load().rid == def.rid => {
                shared.throughput.configure(def.throughput, &def.partitions);
                shared.def.store(Arc::new(def));
                shared.commits.send_modify(|n| *n += 1);
            }
            _ => {
                let throughput = Throughput::new(def.throughput, &def.partitions);
                throughput.share(Some(self.budget(&def.database)));
                map.insert(
                    def.id.clone(),
                    Arc::new(ContainerShared {
                        def: ArcSwap::from_pointee(def),
                        throughput,
                        commits: tokio::sync::watch::Sender::new(0),
                        snapshot_def: Default::default(),
                        attached: Attached::default(),
                    }),
                );
            }
        }
    }

    pub fn remove_container(&self, db: &str, id: &str) {
        if let Some(m) = self.containers.write().get_mut(db) {
            m.remove(id);
        }
    }
}
