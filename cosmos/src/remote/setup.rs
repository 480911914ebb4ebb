//! Databases and containers on a remote account, created when missing, as the apps declare them.

use azure_data_cosmos::models::{ContainerProperties as SdkContainer, ThroughputProperties};
use azure_data_cosmos::options::CreateContainerOptions;
use serde_json::{json, Value};

use super::{from_sdk, RemoteAccount, RemoteContainer};
use crate::{ContainerProperties, Error, Result};

impl RemoteAccount {
    pub async fn create_database_if_not_exists(&self, id: &str) -> Result<()> {
        match self.sdk.create_database(id, None).await.map_err(from_sdk) {
            Ok(_) | Err(Error::Conflict { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// The container, created with `props` when missing; an existing one with another
    /// partition key is refused, naming both.
    pub async fn create_container_if_not_exists(
        &self,
        database: &str,
        props: &ContainerProperties,
    ) -> Result<RemoteContainer> {
        let db = self.sdk.database_client(database);
        let body = container_body(props)?;
        let sdk_props: SdkContainer = serde_json::from_value(body.clone())
            .map_err(|e| Error::bad("container", format!("{}: {e}", props.id)))?;
        let mut options = CreateContainerOptions::default();
        if let Some(ru) = props.throughput {
            options = options.with_throughput(ThroughputProperties::manual(ru.into()));
        }
        match db
            .create_container(sdk_props, Some(options))
            .await
            .map_err(from_sdk)
        {
            Ok(_) | Err(Error::Conflict { .. }) => {}
            Err(e) => return Err(e),
        }
        let container = self.container(database, &props.id).await?;
        let stored = container.sdk.read(None).await.map_err(from_sdk)?;
        let stored: SdkContainer = stored.into_model().map_err(from_sdk)?;
        let stored = serde_json::to_value(&stored)?;
        let paths = stored["partitionKey"]["paths"].clone();
        if paths != body["partitionKey"]["paths"] {
            return Err(Error::bad(
                "partitionKey",
                format!(
                    "container '{database}/{}' exists with partition key {paths}; the app declares \
                     \"{}\" (a partition key cannot change: use another container or delete it)",
                    props.id, props.partition_key_path
                ),
            ));
        }
        let stored_keys: Vec<Vec<String>> = stored["uniqueKeyPolicy"]["uniqueKeys"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|k| {
                k["paths"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|p| p.as_str().map(str::to_owned))
                    .collect()
            })
            .collect();
        crate::database::same_unique_keys(database, &props.id, &stored_keys, &props.unique_keys)?;
        Ok(container)
    }

    /// A handle on an existing container (404 when there is none).
    pub async fn container(&self, database: &str, id: &str) -> Result<RemoteContainer> {
        let sdk = self
            .sdk
            .database_client(database)
            .container_client(id, None)
            .await
            .map_err(from_sdk)?;
        Ok(RemoteContainer {
            sdk,
            rest: self.rest.clone(),
            link: format!("dbs/{database}/colls/{id}").into(),
            pk_path: Default::default(),
        })
    }
}

/// The REST body of a container as the app declares it.
fn container_body(props: &ContainerProperties) -> Result<Value> {
    // One path (`Hash`), or a hierarchical key's two or three (`MultiHash`).
    let key = engine::PartitionKeyDefinition::new(&props.partition_key_path)?;
    let mut body = json!({
        "id": props.id,
        "partitionKey": {"paths": key.paths, "kind": key.kind, "version": 2},
    });
    if let Some(policy) = &props.indexing_policy {
        body["indexingPolicy"] = policy.clone();
    }
    if let Some(ttl) = props.default_ttl {
        body["defaultTtl"] = json!(ttl);
    }
    // Cosmos DB keeps all-versions records by the minute.
    if let Some(seconds) = props.change_feed_retention {
        body["changeFeedPolicy"] = json!({"retentionDuration": seconds.div_ceil(60)});
    }
    if !props.computed_properties.is_empty() {
        body["computedProperties"] = json!(props.computed_properties);
    }
    if !props.unique_keys.is_empty() {
        body["uniqueKeyPolicy"] = json!({
            "uniqueKeys": props.unique_keys.iter().map(|paths| json!({"paths": paths})).collect::<Vec<_>>()
        });
    }
    Ok(body)
}
