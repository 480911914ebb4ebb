//! What callers ask the writer to do, and what it answers. Operations are plain data (not
//! closures) so a group can be re-applied after the map grows; a script, which the writer runs
//! through a trait (`script.rs`), runs by `&self` for the same reason.

use serde_json::Value;

use crate::catalog::{ComputedProperty, ContainerDef};
use crate::error::Error;
use crate::item::PatchOperation;
use crate::partition::PartitionKey;
use crate::ru::Meter;

/// Settings of a new container (the API's `ContainerProperties`).
#[derive(Debug, Clone)]
pub struct ContainerProperties {
    pub id: String,
    /// One path (`/customerId`), or up to three joined by commas for a hierarchical (MultiHash)
    /// key (`/tenantId,/userId,/sessionId`): see [`ContainerProperties::hierarchical`].
    pub partition_key_path: String,
    pub indexing_policy: Option<Value>,
    pub default_ttl: Option<i64>,
    pub throughput: Option<u32>,
    /// Enables the all-versions-and-deletes change feed, keeping records this many seconds.
    pub change_feed_retention: Option<u64>,
    /// Physical partitions to start with (defaults to the engine's `initial_partitions`).
    pub initial_partitions: Option<u32>,
    /// Cosmos DB's unique key policy: each entry the paths of one unique key (set at creation,
    /// immutable).
    pub unique_keys: Vec<Vec<String>>,
    /// Computed properties (`catalog::ComputedProperty`, compiled by `sql::computed`): queried as `c.<name>`, never stored.
    pub computed_properties: Vec<ComputedProperty>,
    /// Cosmos DB's partition key hash version: 2 (`None`, the default) or 1, which places
    /// items by hash v1 as the service does for such containers (`partition::v1`).
    pub partition_key_version: Option<u8>,
}

impl ContainerProperties {
    pub fn new(id: &str, partition_key_path: &str) -> Self {
        ContainerProperties {
            id: id.into(),
            partition_key_path: partition_key_path.into(),
            indexing_policy: None,
            default_ttl: None,
            throughput: None,
            change_feed_retention: None,
            initial_partitions: None,
            unique_keys: Vec::new(),
            computed_properties: Vec::new(),
            partition_key_version: None,
        }
    }
    /// A container with a hierarchical (MultiHash) partition key of two or three paths: items
    /// carry all of them, point operations name all the values, and a query or change feed may
    /// name a prefix (the first value, or the first two) and visit only the partitions it spans.
    pub fn hierarchical(id: &str, paths: &[&str]) -> Self {
        Self::new(id, &paths.join(","))
    }
    pub fn with_throughput(mut self, ru_per_s: u32) -> Self {
        self.throughput = Some(ru_per_s);
        self
    }
    pub fn with_default_ttl(mut self, seconds: i64) -> Self {
        self.default_ttl = Some(seconds);
        self
    }
    pub fn with_indexing_policy(mut self, policy: Value) -> Self {
        self.indexing_policy = Some(policy);
        self
    }
    /// Keeps every version and delete in the change feed for `seconds` (all-versions mode).
    pub fn with_all_versions_retention(mut self, seconds: u64) -> Self {
        self.change_feed_retention = Some(seconds);
        self
    }
    /// Adds a unique key: no two items of one logical partition may have the same values at
    /// `paths` (`&["/email"]`, or several paths for a composite key).
    pub fn with_unique_key(mut self, paths: &[&str]) -> Self {
        self.unique_keys
            .push(paths.iter().map(|p| (*p).to_owned()).collect());
        self
    }

    /// Adds a computed property: `query` is `SELECT VALUE <expression> FROM c`, and queries
    /// read its value per item as `c.<name>`.
    pub fn with_computed_property(mut self, name: &str, query: &str) -> Self {
        self.computed_properties
            .push(ComputedProperty::new(name, query));
        self
    }

    /// Hashes the partition key with Cosmos DB's hash v1 (`1`) rather than v2 (`2`, the
    /// default), as a container made with `partitionKey.version: 1`.
    pub fn with_partition_key_version(mut self, version: u8) -> Self {
        self.partition_key_version = Some(version);
        self
    }

    pub fn with_initial_partitions(mut self, n: u32) -> Self {
        self.initial_partitions = Some(n);
        self
    }
}

#[derive(Debug, Clone)]
pub enum ItemOpKind {
    Create(Value),
    Upsert(Value),
    Replace {
        id: String,
        doc: Value,
    },
    Delete {
        id: String,
    },
    Patch {
        id: String,
        operations: Vec<PatchOperation>,
        /// Cosmos DB's filter predicate (`FROM c WHERE ...`): the patch applies only to an item
        /// that matches it, checked in the write's own transaction (412 otherwise).
        condition: Option<String>,
    },
    Read {
        id: String,
    },
}

#[derive(Debug, Clone)]
pub struct ItemOp {
    pub kind: ItemOpKind,
    /// The partition key the caller named; `None` = take it from the item.
    pub partition_key: Option<PartitionKey>,
    pub if_match: Option<String>,
    /// A write only if the item's etag is not this one (`*`: only if there is no item), else
    /// 412, as HTTP's If-None-Match on a state-changing request; the transactional batch's
    /// `ifNoneMatch` (azure-cosmos `_base._format_batch_operations`). Reads ignore it.
    pub if_none_match: Option<String>,
}

pub enum WriteOp {
    CreateDatabase {
        id: String,
        /// Shared RU/s of the database (`DatabaseDef::throughput`).
        throughput: Option<u32>,
    },
    /// Sets (or removes) a database's shared RU/s.
    ReplaceDatabaseThroughput {
        id: String,
        throughput: Option<u32>,
    },
    DeleteDatabase {
        id: String,
    },
    CreateContainer {
        database: String,
        props: ContainerProperties,
        default_partitions: u32,
    },
    DeleteContainer {
        database: String,
        id: String,
    },
    ReplaceThroughput {
        database: String,
        id: String,
        throughput: Option<u32>,
    },
    /// Changes the indexing policy; the index is rebuilt online.
    ReplaceIndexingPolicy {
        database: String,
        id: String,
        policy: Value,
    },
    /// Replaces the settings an application may change after creation, each `None` = kept:
    /// the default TTL (`Some(None)` turns TTL off; items expire by the new value from then
    /// on) and the computed properties.
    ReplaceContainerSettings {
        database: String,
        id: String,
        default_ttl: Option<Option<i64>>,
        computed_properties: Option<Vec<ComputedProperty>>,
    },
    /// One item operation; `index: false` leaves a written item out of the index (the
    /// indexing directive `Exclude`).
    Item {
        rid: u32,
        op: ItemOp,
        index: bool,
    },
    /// A stored procedure, or an item operation with triggers, atomically: work of the scripts
    /// layer, run in the writer's transaction (`script.rs`).
    Script {
        rid: u32,
        script: Box<dyn super::script::Script>,
    },
    /// Deletes expired items and change-log records past retention (sent by the TTL thread).
    Purge,
    /// A write of users or permissions (`users`).
    Users(crate::users::UsersOp),
    /// A transactional batch: all of `ops` commit, or none does.
    Batch {
        rid: u32,
        partition_key: PartitionKey,
        ops: Vec<ItemOp>,
    },
}

/// Result of one item operation.
#[derive(Debug, Clone)]
pub struct ItemOutcome {
    pub status: u16,
    /// The stored JSON (with system properties); `None` for deletes.
    pub body: Option<Vec<u8>>,
    pub etag: Option<String>,
    pub meter: Meter,
    /// The physical partition that served it.
    pub partition: u32,
}

/// What a stored procedure returned, and what it cost.
#[derive(Debug, Clone)]
pub struct ScriptOutcome {
    pub body: Value,
    pub meter: Meter,
    pub partition: u32,
    /// What the script wrote with `console.log`.
    pub log: String,
}

/// Why a write did not commit — an item operation refused (404, 409, 412, …), a script (a
/// stored procedure, or a write's triggers) that failed — and the work it did before it was
/// rolled back: Cosmos DB charges a failed request for what it used, a script's CPU too.
#[derive(Debug)]
pub struct Failure {
    pub error: crate::error::Error,
    pub meter: Meter,
}

/// Why a batch did not commit: the failing operation's index and error, and the work done.
#[derive(Debug)]
pub struct BatchFailure {
    pub index: usize,
    pub error: Error,
    pub meter: Meter,
    pub partition: u32,
}

#[derive(Debug)]
pub enum WriteOutput {
    Database(crate::catalog::DatabaseDef),
    /// Boxed: a definition is some 400 bytes, every other answer half that or less.
    Container(Box<ContainerDef>),
    Item(ItemOutcome),
    Batch(Result<Vec<ItemOutcome>, BatchFailure>),
    Script(ScriptOutcome),
    Users(crate::users::UsersOutput),
    /// A write refused, or a procedure or a write with triggers that failed: rolled back (a
    /// refused write wrote nothing), yet charged.
    Failed(Failure),
    Done,
}
