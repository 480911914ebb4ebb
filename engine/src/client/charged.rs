//! The container's operations as the gateway and the apps' client call them: a failure comes
//! back as [`Failed`], the error with the RU it cost (Cosmos DB charges failed requests for the
//! work they did: RU.md, "Failed requests"). Everything else is the plain client's (`Deref`).

use std::ops::Deref;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::container::{self, ContainerClient};
use super::options::ItemOptions;
use super::query::QueryOptions;
use super::response::{FeedResponse, ItemResponse};
use super::scripts::StoredProcedureResponse;
use crate::error::Failed;
use crate::item::PatchOperation;
use crate::partition::PartitionKey;

/// [`ContainerClient`] whose item, query and procedure calls fail with their charge.
#[derive(Clone)]
pub struct ChargedContainer(pub ContainerClient);

impl ContainerClient {
    /// This container, its failures charged: `client.charged().read_item(..)` fails with a
    /// [`Failed`] that says what the attempt cost.
    pub fn charged(&self) -> ChargedContainer {
        ChargedContainer(self.clone())
    }
}

impl Deref for ChargedContainer {
    type Target = ContainerClient;
    fn deref(&self) -> &ContainerClient {
        &self.0
    }
}

type Charged<T> = Result<T, Failed>;

impl ChargedContainer {
    pub async fn read_item<T: DeserializeOwned>(
        &self,
        id: &str,
        partition_key: impl Into<PartitionKey>,
        options: Option<ItemOptions>,
    ) -> Charged<ItemResponse<T>> {
        self.0.read_item_charged(id, partition_key, options).await
    }

    pub fn read_item_raw(&self, id: &str, pk: &PartitionKey) -> Charged<ItemResponse<Vec<u8>>> {
        self.0.read_item_raw_charged(id, pk)
    }

    pub async fn create_item<T: Serialize + DeserializeOwned>(
        &self,
        item: &T,
        partition_key: Option<PartitionKey>,
        options: Option<ItemOptions>,
    ) -> Charged<ItemResponse<T>> {
        let kind = container::create(item)?;
        self.0.write_typed(kind, partition_key, options).await
    }

    pub async fn upsert_item<T: Serialize + DeserializeOwned>(
        &self,
        item: &T,
        partition_key: Option<PartitionKey>,
        options: Option<ItemOptions>,
    ) -> Charged<ItemResponse<T>> {
        let kind = container::upsert(item)?;
        self.0.write_typed(kind, partition_key, options).await
    }

    pub async fn replace_item<T: Serialize + DeserializeOwned>(
        &self,
        item: &T,
        id: &str,
        partition_key: Option<PartitionKey>,
        options: Option<ItemOptions>,
    ) -> Charged<ItemResponse<T>> {
        let kind = container::replace(item, id)?;
        self.0.write_typed(kind, partition_key, options).await
    }

    pub async fn delete_item(
        &self,
        id: &str,
        partition_key: impl Into<PartitionKey>,
        options: Option<ItemOptions>,
    ) -> Charged<ItemResponse<Value>> {
        let kind = container::delete(id);
        self.0
            .write_typed(kind, Some(partition_key.into()), options)
            .await
    }

    pub async fn patch_item<T: DeserializeOwned>(
        &self,
        id: &str,
        partition_key: impl Into<PartitionKey>,
        operations: &[PatchOperation],
        options: Option<ItemOptions>,
    ) -> Charged<ItemResponse<T>> {
        let kind = container::patch(id, operations, None);
        self.0
            .write_typed(kind, Some(partition_key.into()), options)
            .await
    }

    /// [`ContainerClient::patch_item_if`], a refusal with its charge.
    pub async fn patch_item_if<T: DeserializeOwned>(
        &self,
        id: &str,
        partition_key: impl Into<PartitionKey>,
        operations: &[PatchOperation],
        condition: &str,
        options: Option<ItemOptions>,
    ) -> Charged<ItemResponse<T>> {
        let kind = container::patch(id, operations, Some(condition));
        self.0
            .write_typed(kind, Some(partition_key.into()), options)
            .await
    }

    pub async fn query_items<T: DeserializeOwned + Send + 'static>(
        &self,
        sql: &str,
        params: &[(impl AsRef<str>, Value)],
        options: QueryOptions,
    ) -> Charged<FeedResponse<T>> {
        self.0.query_page(sql, params, options).await
    }

    pub async fn query_all<T: DeserializeOwned + Send + 'static>(
        &self,
        sql: &str,
        params: &[(impl AsRef<str>, Value)],
        options: QueryOptions,
    ) -> Charged<FeedResponse<T>> {
        self.0.query_all_charged(sql, params, options).await
    }

    pub async fn execute_stored_procedure<T: DeserializeOwned>(
        &self,
        id: &str,
        partition_key: impl Into<PartitionKey>,
        args: &[Value],
    ) -> Charged<StoredProcedureResponse<T>> {
        self.0
            .scripts()
            .execute_charged(id, partition_key, args)
            .await
    }
}
