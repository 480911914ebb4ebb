//! A database: a namespace of containers.

use super::container::ContainerClient;
use super::engine::Engine;
use crate::catalog::ContainerDef;
use crate::error::{Error, Result};
use crate::writer::ops::{ContainerProperties, WriteOp, WriteOutput};

#[derive(Clone)]
pub struct DatabaseClient {
    pub(crate) engine: Engine,
    pub(crate) id: String,
}

// The engine hands out its database clients here, so `engine.rs` names no client of its own.
impl Engine {
    pub fn database(&self, id: &str) -> DatabaseClient {
        DatabaseClient {
            engine: self.clone(),
            id: id.to_owned(),
        }
    }

    pub async fn create_database(&self, id: &str) -> Result<DatabaseClient> {
        self.create_database_with_throughput(id, None).await
    }

    /// Creates a database whose `throughput` RU/s its containers without throughput of their
    /// own share (Cosmos DB's database-level throughput; `throughput.rs`).
    pub async fn create_database_with_throughput(
        &self,
        id: &str,
        throughput: Option<u32>,
    ) -> Result<DatabaseClient> {
        self.submit(WriteOp::CreateDatabase {
            id: id.to_owned(),
            throughput,
        })
        .await?;
        Ok(self.database(id))
    }

    pub async fn create_database_if_not_exists(&self, id: &str) -> Result<DatabaseClient> {
        match self.create_database(id).await {
            Ok(db) => Ok(db),
            Err(Error::Conflict { .. }) => Ok(self.database(id)),
            Err(e) => Err(e),
        }
    }
}

impl DatabaseClient {
    pub fn id(&self) -> &str {
        &self.id
    }

    /// A handle on a container; operations fail with 404 if it does not exist.
    pub fn container(&self, id: &str) -> ContainerClient {
        ContainerClient {
            engine: self.engine.clone(),
            database: self.id.clone(),
            id: id.to_owned(),
        }
    }

    pub async fn create_container(&self, props: ContainerProperties) -> Result<ContainerClient> {
        let id = props.id.clone();
        let default_partitions = self.engine.inner.opts.initial_partitions;
        self.engine
            .submit(WriteOp::CreateContainer {
                database: self.id.clone(),
                props,
                default_partitions,
            })
            .await?;
        Ok(self.container(&id))
    }

    /// Creates the container unless one with that id exists (whose settings are kept).
    pub async fn create_container_if_not_exists(
        &self,
        props: ContainerProperties,
    ) -> Result<ContainerClient> {
        let id = props.id.clone();
        match self.create_container(props).await {
            Ok(c) => Ok(c),
            Err(Error::Conflict { .. }) => Ok(self.container(&id)),
            Err(e) => Err(e),
        }
    }

    pub async fn delete_container(&self, id: &str) -> Result<()> {
        self.engine
            .submit(WriteOp::DeleteContainer {
                database: self.id.clone(),
                id: id.to_owned(),
            })
            .await
            .map(|_| ())
    }

    /// Sets (or, with `None`, removes) a container's provisioned RU/s.
    pub async fn replace_throughput(
        &self,
        id: &str,
        throughput: Option<u32>,
    ) -> Result<ContainerDef> {
        match self
            .engine
            .submit(WriteOp::ReplaceThroughput {
                database: self.id.clone(),
                id: id.to_owned(),
                throughput,
            })
            .await?
        {
            WriteOutput::Container(def) => Ok(*def),
            _ => Err(Error::Corrupt("unexpected writer answer".into())),
        }
    }

    /// Sets (or, with `None`, removes) the database's shared RU/s.
    pub async fn replace_database_throughput(
        &self,
        throughput: Option<u32>,
    ) -> Result<crate::catalog::DatabaseDef> {
        match self
            .engine
            .submit(WriteOp::ReplaceDatabaseThroughput {
                id: self.id.clone(),
                throughput,
            })
            .await?
        {
            WriteOutput::Database(def) => Ok(def),
            _ => Err(Error::Corrupt("unexpected writer answer".into())),
        }
    }

    /// Changes a container's indexing policy. The index is rebuilt online: the returned
    /// definition's `index_rebuild` shows progress until it is `None`; queries stay correct
    /// meanwhile (they scan).
    pub async fn replace_indexing_policy(
        &self,
        id: &str,
        policy: serde_json::Value,
    ) -> Result<ContainerDef> {
        match self
            .engine
            .submit(WriteOp::ReplaceIndexingPolicy {
                database: self.id.clone(),
                id: id.to_owned(),
                policy,
            })
            .await?
        {
            WriteOutput::Container(def) => Ok(*def),
            _ => Err(Error::Corrupt("unexpected writer answer".into())),
        }
    }

    /// Changes a container's default TTL (`None` = TTL off, `-1` = on with no default
    /// expiry): items expire by the new value from their last write, an item's own `ttl`
    /// still winning, as when Cosmos DB replaces a container's `defaultTtl`.
    pub async fn replace_default_ttl(&self, id: &str, ttl: Option<i64>) -> Result<ContainerDef> {
        self.replace_settings(id, Some(ttl), None).await
    }

    /// Replaces a container's computed properties (`[]` removes them all).
    pub async fn replace_computed_properties(
        &self,
        id: &str,
        props: Vec<crate::ComputedProperty>,
    ) -> Result<ContainerDef> {
        self.replace_settings(id, None, Some(props)).await
    }

    async fn replace_settings(
        &self,
        id: &str,
        default_ttl: Option<Option<i64>>,
        computed_properties: Option<Vec<crate::ComputedProperty>>,
    ) -> Result<ContainerDef> {
        match self
            .engine
            .submit(WriteOp::ReplaceContainerSettings {
                database: self.id.clone(),
                id: id.to_owned(),
                default_ttl,
                computed_properties,
            })
            .await?
        {
            WriteOutput::Container(def) => Ok(*def),
            _ => Err(Error::Corrupt("unexpected writer answer".into())),
        }
    }

    pub fn containers(&self) -> Vec<std::sync::Arc<ContainerDef>> {
        self.engine.inner.catalog.containers(&self.id)
    }
}

impl std::fmt::Debug for DatabaseClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DatabaseClient")
            .field("id", &self.id)
            .finish()
    }
}
