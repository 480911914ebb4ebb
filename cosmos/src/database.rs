//! A database of either backend: where the apps create and open their containers.

use crate::account::{Account, Backend};
use crate::container::Container;
use crate::{ContainerProperties, Result};

#[derive(Clone)]
pub struct Database {
    account: Account,
    id: String,
}

/// The account's database calls live here, beside the handle they return.
impl Account {
    pub async fn create_database_if_not_exists(&self, id: &str) -> Result<Database> {
        match &self.0 {
            Backend::Embedded(e) => {
                e.create_database_if_not_exists(id).await?;
            }
            Backend::Remote(r) => r.create_database_if_not_exists(id).await?,
        }
        Ok(self.database(id))
    }

    /// A database of this account (created by `create_database_if_not_exists`).
    pub fn database(&self, id: &str) -> Database {
        Database {
            account: self.clone(),
            id: id.to_owned(),
        }
    }
}

impl Database {
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The embedded engine's database, for what only it has.
    pub fn embedded(&self) -> Option<engine::DatabaseClient> {
        self.account.engine().map(|e| e.database(&self.id))
    }

    /// The container, created with `props` when missing. Embedded, a changed indexing policy
    /// is applied (the engine rebuilds the index online), and changed computed properties;
    /// remote, an existing container with another partition key is refused.
    pub async fn create_container_if_not_exists(
        &self,
        props: ContainerProperties,
    ) -> Result<Container> {
        match &self.account.0 {
            Backend::Embedded(e) => {
                let db = e.database(&self.id);
                let wanted = props.indexing_policy.clone();
                let unique_keys = props.unique_keys.clone();
                let computed = props.computed_properties.clone();
                let c = db.create_container_if_not_exists(props).await?;
                // The app's declared computed properties are the container's, as its policy.
                if c.read_container()?.computed_properties() != computed.as_slice() {
                    db.replace_computed_properties(c.id(), computed).await?;
                }
                same_unique_keys(
                    &self.id,
                    c.id(),
                    c.read_container()?.unique_keys(),
                    &unique_keys,
                )?;
                if let Some(wanted) = wanted {
                    // Compared as the engine stores them, completed (`/*` included,
                    // `/"_etag"/?` excluded, …): an app's policy as written is not a change.
                    let parse = |v: &serde_json::Value| {
                        engine::complete_indexing_policy(v)
                            .ok()
                            .and_then(|v| serde_json::from_value::<engine::IndexingPolicy>(v).ok())
                    };
                    if parse(c.read_container()?.indexing_policy()) != parse(&wanted) {
                        tracing::info!(
                            container = c.id(),
                            "indexing policy changed: rebuilding the index"
                        );
                        db.replace_indexing_policy(c.id(), wanted).await?;
                    }
                }
                Ok(Container::embedded(c))
            }
            Backend::Remote(r) => Ok(Container::remote(
                r.create_container_if_not_exists(&self.id, &props).await?,
            )),
        }
    }

    /// An existing container (404 when there is none).
    pub async fn container(&self, id: &str) -> Result<Container> {
        match &self.account.0 {
            Backend::Embedded(e) => {
                let c = e.database(&self.id).container(id);
                c.read_container()?;
                Ok(Container::embedded(c))
            }
            Backend::Remote(r) => Ok(Container::remote(r.container(&self.id, id).await?)),
        }
    }
}

/// An existing container must have the unique keys the app declares: they are fixed at creation
/// (in Cosmos DB too), and an app that counts on one (the blog's one like per user) would
/// otherwise run without it. The order of keys does not matter.
pub(crate) fn same_unique_keys(
    database: &str,
    container: &str,
    stored: &[Vec<String>],
    declared: &[Vec<String>],
) -> Result<()> {
    let sorted = |keys: &[Vec<String>]| {
        let mut keys = keys.to_vec();
        keys.sort();
        keys
    };
    if sorted(stored) == sorted(declared) {
        return Ok(());
    }
    Err(crate::Error::bad(
        "uniqueKeyPolicy",
        format!(
            "container '{database}/{container}' exists with unique keys {stored:?}; the app \
             declares {declared:?} (unique keys are fixed when a container is created: delete it, \
             or start on a new database or data directory, and the app creates it with them)"
        ),
    ))
}
