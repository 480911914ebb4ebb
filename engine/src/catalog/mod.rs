//! Resource definitions (databases and containers) as persisted in the `meta` database; the
//! in-memory catalog readers consult without touching storage is `memory.rs`.

mod attached;
mod computed;
mod memory;

pub use attached::Attached;
pub use computed::ComputedProperty;
pub use memory::{Catalog, ContainerShared};

use std::sync::Arc;

use heed::RoTxn;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::index::CompiledPolicy;
use crate::partition::cosmos::EpkRange;
use crate::partition::{PartitionKey, PartitionKeyDefinition, PartitionMap, Placement};
use crate::storage::Store;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatabaseDef {
    pub id: String,
    pub created: u64,
    /// Numeric id (from the counter containers take theirs from); 0 for a database created
    /// before databases were numbered (see [`DatabaseDef::number`]).
    #[serde(default)]
    pub rid: u32,
    /// Shared RU/s of the containers created in it without throughput of their own; `None` =
    /// each container has its own budget (or none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throughput: Option<u32>,
}

impl DatabaseDef {
    /// The number its resource id is made of.
    pub fn number(&self) -> u32 {
        database_number(self.rid, &self.id)
    }

    /// `_rid` in Cosmos DB's form (`rid.rs`).
    pub fn resource_id(&self) -> String {
        crate::rid::encode(&crate::rid::database_bytes(self.number()))
    }

    /// `_self`: `dbs/{rid}/`.
    pub fn self_link(&self) -> String {
        format!("dbs/{}/", self.resource_id())
    }
}

fn database_number(rid: u32, id: &str) -> u32 {
    if rid == 0 {
        crate::rid::legacy_database_number(id)
    } else {
        rid
    }
}

/// A container as stored: its settings and its physical partitions.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerDef {
    pub(crate) id: String,
    pub(crate) database: String,
    /// Numeric id: the key prefix of everything the container stores.
    pub(crate) rid: u32,
    /// Its database's numeric id (part of `_rid`); 0 for a container created before databases
    /// were numbered.
    #[serde(default)]
    pub(crate) database_rid: u32,
    pub(crate) partition_key: PartitionKeyDefinition,
    /// Cosmos DB's indexing policy shape; `{}` means the default (every path indexed).
    pub(crate) indexing_policy: Value,
    /// Seconds; `None` = TTL off, `-1` = on with no default expiry.
    pub(crate) default_ttl: Option<i64>,
    /// Provisioned RU/s; `None` = unlimited.
    pub(crate) throughput: Option<u32>,
    /// Seconds the all-versions-and-deletes change feed keeps its records; `None` = that mode off.
    #[serde(default)]
    pub(crate) change_feed_retention: Option<u64>,
    pub(crate) partitions: PartitionMap,
    pub(crate) created: u64,
    /// Progress of the index rebuild after a policy change; `None` = the index is complete.
    #[serde(default)]
    pub(crate) index_rebuild: Option<IndexRebuild>,
    /// The unique key policy: per unique key, its paths (enforced by `unique.rs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) unique_keys: Vec<Vec<String>>,
    /// Computed properties (`computed.rs`): evaluated by queries, never stored in items.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) computed_properties: Vec<ComputedProperty>,
    /// The indexing policy, compiled once per definition.
    #[serde(skip)]
    compiled_policy: std::sync::OnceLock<Arc<CompiledPolicy>>,
    /// The computed properties as the query language compiled them (`computed.rs`).
    #[serde(skip)]
    compiled_computed: computed::CompiledSlot,
}

/// Progress of an index rebuild, recorded with the container so a restart resumes it
/// (`writer::reindex` runs the steps).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct IndexRebuild {
    /// `clearing` the old entries, then `indexing` the items.
    pub phase: String,
    /// Hex of the last item key indexed.
    #[serde(default)]
    pub cursor: Option<String>,
    pub items_indexed: u64,
}

impl IndexRebuild {
    pub fn start() -> Self {
        IndexRebuild {
            phase: "clearing".into(),
            cursor: None,
            items_indexed: 0,
        }
    }
}

impl ContainerDef {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        id: String,
        database: String,
        rid: u32,
        partition_key: PartitionKeyDefinition,
        indexing_policy: Value,
        default_ttl: Option<i64>,
        throughput: Option<u32>,
        change_feed_retention: Option<u64>,
        partitions: PartitionMap,
        created: u64,
    ) -> Result<ContainerDef> {
        let def = ContainerDef {
            id,
            database,
            rid,
            database_rid: 0,
            partition_key,
            indexing_policy,
            default_ttl,
            throughput,
            change_feed_retention,
            partitions,
            created,
            index_rebuild: None,
            unique_keys: Vec::new(),
            computed_properties: Vec::new(),
            compiled_policy: Default::default(),
            compiled_computed: Default::default(),
        };
        def.compile_policy()?;
        Ok(def)
    }

    /// This definition with another indexing policy (validated), whose index is to be rebuilt.
    pub(crate) fn with_indexing_policy(&self, policy: Value) -> Result<ContainerDef> {
        let mut next = self.clone();
        next.indexing_policy = policy;
        next.compiled_policy = Default::default();
        next.compile_policy()?;
        next.index_rebuild = Some(IndexRebuild::start());
        Ok(next)
    }

    fn compile_policy(&self) -> Result<Arc<CompiledPolicy>> {
        if let Some(p) = self.compiled_policy.get() {
            return Ok(p.clone());
        }
        let p = Arc::new(CompiledPolicy::from_json(&self.indexing_policy)?);
        Ok(self.compiled_policy.get_or_init(|| p).clone())
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn database(&self) -> &str {
        &self.database
    }

    /// Numeric id: the key prefix of everything the container stores (`_rid` derives from it).
    pub fn rid(&self) -> u32 {
        self.rid
    }

    /// The 8 bytes of its `_rid`: its database's, then its own.
    pub fn resource_bytes(&self) -> [u8; 8] {
        crate::rid::collection_bytes(database_number(self.database_rid, &self.database), self.rid)
    }

    /// `_rid` in Cosmos DB's form (`rid.rs`).
    pub fn resource_id(&self) -> String {
        crate::rid::encode(&self.resource_bytes())
    }

    /// Its database's `_rid`.
    pub fn database_resource_id(&self) -> String {
        crate::rid::encode(&crate::rid::database_bytes(database_number(
            self.database_rid,
            &self.database,
        )))
    }

    /// `_self`: `dbs/{database rid}/colls/{rid}/`.
    pub fn self_link(&self) -> String {
        format!(
            "dbs/{}/colls/{}/",
            self.database_resource_id(),
            self.resource_id()
        )
    }

    pub fn partition_key(&self) -> &PartitionKeyDefinition {
        &self.partition_key
    }

    /// Cosmos DB's indexing policy shape; `{}` means the default (every path indexed).
    pub fn indexing_policy(&self) -> &Value {
        &self.indexing_policy
    }

    /// Seconds; `None` = TTL off, `-1` = on with no default expiry.
    pub fn default_ttl(&self) -> Option<i64> {
        self.default_ttl
    }

    /// Provisioned RU/s; `None` = unlimited.
    pub fn throughput(&self) -> Option<u32> {
        self.throughput
    }

    /// Seconds the all-versions-and-deletes change feed keeps its records; `None` = that mode off.
    pub fn change_feed_retention(&self) -> Option<u64> {
        self.change_feed_retention
    }

    /// Unix seconds of creation.
    pub fn created(&self) -> u64 {
        self.created
    }

    /// The unique key policy: per unique key, its paths.
    /// The computed properties, as defined (`[]` = none).
    pub fn computed_properties(&self) -> &[ComputedProperty] {
        &self.computed_properties
    }

    pub fn unique_keys(&self) -> &[Vec<String>] {
        &self.unique_keys
    }

    /// The partition key range ids the REST API shows, in EPK order (one per physical
    /// partition; see `PhysicalPartitionInfo::range_id`).
    pub fn range_ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.partitions.partitions.iter().map(|p| p.range_id())
    }

    /// The Cosmos EPK bounds of the current partition key range `range_id`; `None` once a split
    /// replaced it. A container placed by the engine's own hash is one range, `0`, over all.
    pub fn key_range(&self, range_id: u32) -> Option<EpkRange> {
        if self.partition_key.placement != Placement::Cosmos {
            return (range_id == 0).then(|| EpkRange::new("", "FF"));
        }
        let i = self
            .partitions
            .partitions
            .iter()
            .position(|p| p.range_id() == range_id)?;
        Some(crate::partition::cosmos::range_of(
            &self.partition_key,
            &self.partitions,
            i,
        ))
    }

    /// The range id of the partition holding `key` (a full key, or a prefix: its first
    /// partition), from memory; `None` for a key of the wrong shape.
    pub fn range_id_of(&self, key: &PartitionKey) -> Option<u32> {
        let (lo, _) = self.partition_key.scope(key).ok()?.coordinates();
        let i = *self.partitions.indexes_overlapping(lo, lo).start();
        Some(self.partitions.partitions[i].range_id())
    }

    /// Items indexed so far while the index is rebuilt after a policy change; `None` when the
    /// index is complete.
    pub fn index_rebuild_progress(&self) -> Option<u64> {
        self.index_rebuild.as_ref().map(|r| r.items_indexed)
    }

    /// Physical partitions, items and bytes (from the catalog's counters, no scan).
    pub fn totals(&self) -> (usize, u64, u64) {
        let all = &self.partitions.partitions;
        let items = all.iter().map(|p| p.items).sum();
        let bytes = all.iter().map(|p| p.bytes).sum();
        (all.len(), items, bytes)
    }

    /// `database/container`, as errors name it.
    pub fn full_id(&self) -> String {
        format!("{}/{}", self.database, self.id)
    }

    /// The compiled indexing policy (validated when the container was created).
    pub(crate) fn policy(&self) -> Arc<CompiledPolicy> {
        self.compile_policy().unwrap_or_else(|_| {
            Arc::new(CompiledPolicy::from_json(&Value::Null).expect("the default policy compiles"))
        })
    }
}

pub fn database_key(id: &str) -> String {
    format!("db/{id}")
}

pub fn container_key(db: &str, id: &str) -> String {
    format!("ct/{db}/{id}")
}

/// Persists a container definition in `wtxn`.
pub fn put_container(store: &Store, wtxn: &mut heed::RwTxn, def: &ContainerDef) -> Result<()> {
    let bytes = serde_json::to_vec(def).map_err(|e| Error::Corrupt(e.to_string()))?;
    store
        .meta
        .put(wtxn, &container_key(&def.database, &def.id), &bytes)?;
    Ok(())
}

pub const NEXT_RID_KEY: &str = "next_rid";

pub fn validate_resource_id(kind: &str, id: &str) -> Result<()> {
    if id.is_empty()
        || id.len() > 255
        || id.chars().any(|c| matches!(c, '/' | '\\' | '?' | '#'))
        || id.ends_with(' ')
    {
        // The service's words (azure-cosmos 4.17.1's test_resource_id.py asserts them for an
        // over-long id), then ours: 1-255 characters, none of / \ ? #, no trailing space.
        return Err(Error::bad(
            "id",
            format!(
                "The input name '{id}' is invalid. Ensure to provide a unique non-empty string \
                 less than '255' characters. (A {kind} id is 1-255 characters without / \\ ? # \
                 and without a trailing space.)"
            ),
        ));
    }
    Ok(())
}

/// Everything the `meta` database holds, loaded at open (and reloaded after an aborted group).
pub fn load_all(store: &Store, rtxn: &RoTxn) -> Result<(Vec<DatabaseDef>, Vec<ContainerDef>, u32)> {
    let mut dbs = Vec::new();
    let mut cts = Vec::new();
    let mut next_rid = 1;
    for entry in store.meta.iter(rtxn)? {
        let (k, v) = entry?;
        if k.starts_with("db/") {
            dbs.push(serde_json::from_slice(v).map_err(|e| Error::Corrupt(format!("{k}: {e}")))?);
        } else if k.starts_with("ct/") {
            cts.push(serde_json::from_slice(v).map_err(|e| Error::Corrupt(format!("{k}: {e}")))?);
        } else if k == NEXT_RID_KEY {
            next_rid = u32::from_be_bytes(
                v.try_into()
                    .map_err(|_| Error::Corrupt("next_rid".into()))?,
            );
        }
    }
    catalog_covers_the_items(store, rtxn, &cts)?;
    Ok((dbs, cts, next_rid))
}

/// Deleting a container deletes its items in the same transaction, so every item key starts
/// with the rid of a container the catalog holds. A damaged `meta` page can read as an empty or
/// shorter catalog without LMDB noticing; then the first or last item names an unknown rid, and
/// the store is reported damaged instead of its containers "not found" (two cursor seeks).
fn catalog_covers_the_items(store: &Store, rtxn: &RoTxn, cts: &[ContainerDef]) -> Result<()> {
    let ends = [store.docs.first(rtxn)?, store.docs.last(rtxn)?];
    for (key, _) in ends.into_iter().flatten() {
        let Some(rid) = key
            .get(..4)
            .map(|b| u32::from_be_bytes(b.try_into().unwrap()))
        else {
            continue;
        };
        if !cts.iter().any(|c| c.rid == rid) {
            return Err(Error::Corrupt(format!(
                "the data file is damaged: items of container #{rid} but the catalog has no such \
                 container ({} known); restore it from a backup, run `engine check`",
                cts.len()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::storage::{StorageOptions, Store};
    use crate::{ContainerProperties, Engine, EngineOptions, Error};

    /// A catalog that lost a container while its items remain (a damaged `meta` page reads as
    /// a shorter catalog) opens as damaged, not as a store where the container is "not found".
    #[tokio::test]
    async fn items_of_a_container_the_catalog_lost_are_damage() {
        let dir = tempfile::tempdir().unwrap();
        {
            let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
            let db = engine.create_database("d").await.unwrap();
            let c = db
                .create_container(ContainerProperties::new("c", "/pk"))
                .await
                .unwrap();
            c.create_item(&json!({"id": "a", "pk": "a"}), None, None)
                .await
                .unwrap();
        }
        {
            let store = Store::open(dir.path(), &StorageOptions::default()).unwrap();
            let mut wtxn = store.env.write_txn().unwrap();
            assert!(store
                .meta
                .delete(&mut wtxn, &super::container_key("d", "c"))
                .unwrap());
            wtxn.commit().unwrap();
        }
        match Engine::open(dir.path(), EngineOptions::default()) {
            Err(Error::Corrupt(why)) => assert!(why.contains("damaged"), "{why}"),
            Err(e) => panic!("expected damage, got {e}"),
            Ok(_) => panic!("expected damage, the store opened"),
        }
    }
}
