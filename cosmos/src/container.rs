//! A container of either backend, with the item operations of the Cosmos DB SDKs. Every call
//! records its charge and routing on the task's ledger (`ledger.rs`).

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::batch::TransactionalBatch;
use crate::ledger::{record, record_failure, record_query, Routing};
use crate::remote::rest::Write;
use crate::remote::RemoteContainer;
use crate::{
    BatchResponse, Error, Failed, FeedResponse, ItemOptions, ItemResponse, PartitionKey,
    PatchOperation, QueryOptions, Result, StoredProcedureResponse, TriggerOperation,
};

/// Both backends fail with what the failed call cost (`Failed`), which is recorded on the
/// ledger before the app gets the plain error.
#[derive(Clone)]
enum Backend {
    Embedded(engine::ChargedContainer),
    Remote(RemoteContainer),
}

/// A container: cheap to clone, safe to share.
#[derive(Clone)]
pub struct Container {
    backend: Backend,
    id: String,
}

/// Physical partitions an embedded answer visited (at least 1); 0 remote, where the SDK does
/// not say.
fn visited(d: &engine::Diagnostics) -> usize {
    d.partitions.len()
}

impl Container {
    /// The embedded engine's container (what the explorer, which works on the engine itself,
    /// wraps to have its calls recorded).
    pub fn embedded(c: engine::ContainerClient) -> Self {
        Container {
            id: c.id().to_owned(),
            backend: Backend::Embedded(c.charged()),
        }
    }

    pub(crate) fn remote(c: RemoteContainer) -> Self {
        let id = c.link.rsplit('/').next().unwrap_or_default().to_owned();
        Container {
            id,
            backend: Backend::Remote(c),
        }
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// The embedded engine's container, for what only it has (change-feed processors,
    /// statistics, the partition map); `None` on a remote account.
    pub fn embedded_client(&self) -> Option<&engine::ContainerClient> {
        match &self.backend {
            Backend::Embedded(c) => Some(&c.0),
            Backend::Remote(_) => None,
        }
    }

    pub(crate) fn remote_client(&self) -> Option<&RemoteContainer> {
        match &self.backend {
            Backend::Remote(c) => Some(c),
            Backend::Embedded(_) => None,
        }
    }

    pub fn is_remote(&self) -> bool {
        matches!(self.backend, Backend::Remote(_))
    }

    fn point<T>(
        &self,
        what: &str,
        r: std::result::Result<ItemResponse<T>, Failed>,
    ) -> Result<ItemResponse<T>> {
        match r {
            Ok(r) => {
                let partitions = visited(&r.diagnostics).max(1);
                record(what, &self.id, Routing::Point, partitions, r.request_charge);
                Ok(r)
            }
            Err(f) => Err(record_failure(what, &self.id, Routing::Point, f, None)),
        }
    }

    // ---- point operations ----------------------------------------------------------------

    /// Reads an item by id and partition key: the cheapest operation there is (1 RU for 1 KB).
    pub async fn read_item<T: DeserializeOwned + Send + 'static>(
        &self,
        id: &str,
        partition_key: impl Into<PartitionKey>,
        options: Option<ItemOptions>,
    ) -> Result<ItemResponse<T>> {
        let pk = partition_key.into();
        let r = match &self.backend {
            Backend::Embedded(c) => c.read_item(id, pk, options).await,
            Backend::Remote(c) => c.read_item(id, &pk).await,
        };
        self.point("read", r)
    }

    /// Creates an item (409 if its id exists in the logical partition).
    pub async fn create_item<T: Serialize + DeserializeOwned>(
        &self,
        item: &T,
        partition_key: Option<PartitionKey>,
        options: Option<ItemOptions>,
    ) -> Result<ItemResponse<T>> {
        let r = match &self.backend {
            Backend::Embedded(c) => c.create_item(item, partition_key, options).await,
            Backend::Remote(c) => {
                let doc = serde_json::to_value(item)?;
                let pk = self.key_of(&doc, partition_key).await?;
                c.write(Write::Create(&doc), &pk, options).await
            }
        };
        self.point("create", r)
    }

    /// Creates the item, or replaces it if its id exists in the logical partition.
    pub async fn upsert_item<T: Serialize + DeserializeOwned>(
        &self,
        item: &T,
        partition_key: Option<PartitionKey>,
        options: Option<ItemOptions>,
    ) -> Result<ItemResponse<T>> {
        let r = match &self.backend {
            Backend::Embedded(c) => c.upsert_item(item, partition_key, options).await,
            Backend::Remote(c) => {
                let doc = serde_json::to_value(item)?;
                let pk = self.key_of(&doc, partition_key).await?;
                c.write(Write::Upsert(&doc), &pk, options).await
            }
        };
        self.point("upsert", r)
    }

    /// Replaces item `id` (404 if missing; 412 if the options' `if_match_etag` is stale).
    pub async fn replace_item<T: Serialize + DeserializeOwned>(
        &self,
        item: &T,
        id: &str,
        partition_key: Option<PartitionKey>,
        options: Option<ItemOptions>,
    ) -> Result<ItemResponse<T>> {
        let r = match &self.backend {
            Backend::Embedded(c) => c.replace_item(item, id, partition_key, options).await,
            Backend::Remote(c) => {
                let doc = serde_json::to_value(item)?;
                let pk = self.key_of(&doc, partition_key).await?;
                c.write(Write::Replace { id, doc: &doc }, &pk, options)
                    .await
            }
        };
        self.point("replace", r)
    }

    /// Deletes item `id` (404 if missing).
    pub async fn delete_item(
        &self,
        id: &str,
        partition_key: impl Into<PartitionKey>,
        options: Option<ItemOptions>,
    ) -> Result<ItemResponse<Value>> {
        let pk = partition_key.into();
        let r = match &self.backend {
            Backend::Embedded(c) => c.delete_item(id, pk, options).await,
            Backend::Remote(c) => c.write(Write::Delete { id }, &pk, options).await,
        };
        self.point("delete", r)
    }

    /// Applies patch operations to item `id` atomically.
    pub async fn patch_item<T: DeserializeOwned>(
        &self,
        id: &str,
        partition_key: impl Into<PartitionKey>,
        operations: &[PatchOperation],
        options: Option<ItemOptions>,
    ) -> Result<ItemResponse<T>> {
        let pk = partition_key.into();
        let r = match &self.backend {
            Backend::Embedded(c) => c.patch_item(id, pk, operations, options).await,
            Backend::Remote(c) => c.patch_item(id, &pk, operations, None, options).await,
        };
        self.point("patch", r)
    }

    /// A conditional patch: applied only if the item matches `condition`, a filter predicate
    /// such as `FROM c WHERE c.stock >= 1` (Cosmos DB's `filterPredicate`); 412 otherwise.
    /// Checked and applied in one write, embedded and on the service alike.
    pub async fn patch_item_if<T: DeserializeOwned>(
        &self,
        id: &str,
        partition_key: impl Into<PartitionKey>,
        operations: &[PatchOperation],
        condition: &str,
        options: Option<ItemOptions>,
    ) -> Result<ItemResponse<T>> {
        let pk = partition_key.into();
        let r = match &self.backend {
            Backend::Embedded(c) => {
                c.patch_item_if(id, pk, operations, condition, options)
                    .await
            }
            Backend::Remote(c) => {
                c.patch_item(id, &pk, operations, Some(condition), options)
                    .await
            }
        };
        self.point("patch", r)
    }

    /// Deletes every item of logical partition `partition_key` (Cosmos DB's
    /// `DeleteAllItemsByPartitionKey`): in all-or-nothing batches of 100 embedded, the
    /// service's `partitionkeydelete` remote; charged its reads and deletes.
    pub async fn delete_all_items_by_partition_key(
        &self,
        partition_key: impl Into<PartitionKey>,
    ) -> Result<ItemResponse<Value>> {
        let pk = partition_key.into();
        let r = match &self.backend {
            Backend::Embedded(c) => c.delete_all_items_by_partition_key(pk).await,
            Backend::Remote(c) => c.delete_all_items_by_partition_key(&pk).await,
        };
        let what = "delete partition";
        match r {
            Ok(r) => {
                record(
                    what,
                    &self.id,
                    Routing::SinglePartition,
                    1,
                    r.request_charge,
                );
                Ok(r)
            }
            Err(f) => Err(record_failure(
                what,
                &self.id,
                Routing::SinglePartition,
                f,
                None,
            )),
        }
    }

    /// The partition key value of an item about to be written remotely (the SDK needs it
    /// separately): the one given, else the item's own at the container's key path.
    async fn key_of(&self, doc: &Value, given: Option<PartitionKey>) -> Result<PartitionKey> {
        if let Some(pk) = given {
            return Ok(pk);
        }
        let Backend::Remote(c) = &self.backend else {
            unreachable!("only remote writes ask")
        };
        let path = c.partition_key_path().await?;
        engine::PartitionKeyDefinition::new(&path)?.extract(doc)
    }

    // ---- queries ---------------------------------------------------------------------------

    /// One page of `sql` with `params` (`@name` → value).
    pub async fn query_items<T: DeserializeOwned + Send + 'static>(
        &self,
        sql: &str,
        params: &[(impl AsRef<str>, Value)],
        options: QueryOptions,
    ) -> Result<FeedResponse<T>> {
        let single = options.partition_key.is_some();
        let r = match &self.backend {
            Backend::Embedded(c) => c.query_items(sql, params, options).await,
            Backend::Remote(c) => {
                let params: Vec<(String, Value)> = params
                    .iter()
                    .map(|(k, v)| (k.as_ref().to_owned(), v.clone()))
                    .collect();
                c.query_page(sql, &params, &options).await
            }
        };
        self.recorded_query(sql, single, r)
    }

    /// Every page of `sql`, as one response (charges summed).
    pub async fn query_all<T: DeserializeOwned + Send + 'static>(
        &self,
        sql: &str,
        params: &[(impl AsRef<str>, Value)],
        options: QueryOptions,
    ) -> Result<FeedResponse<T>> {
        let single = options.partition_key.is_some();
        let r = match &self.backend {
            Backend::Embedded(c) => c.query_all(sql, params, options).await,
            Backend::Remote(c) => {
                let params: Vec<(String, Value)> = params
                    .iter()
                    .map(|(k, v)| (k.as_ref().to_owned(), v.clone()))
                    .collect();
                let mut options = options;
                let mut all: Option<FeedResponse<T>> = None;
                loop {
                    let spent = all.as_ref().map_or(0.0, |a| a.request_charge);
                    let page = match c.query_page::<T>(sql, &params, &options).await {
                        Ok(page) => page,
                        Err(f) => return self.recorded_query(sql, single, Err(f.after(spent))),
                    };
                    let next = page.continuation.clone();
                    all = Some(match all {
                        None => page,
                        Some(mut acc) => {
                            acc.items.extend(page.items);
                            acc.request_charge += page.request_charge;
                            acc.continuation = page.continuation;
                            acc
                        }
                    });
                    match next {
                        Some(token) => options.continuation = Some(token),
                        None => break,
                    }
                }
                Ok(all.expect("at least one page"))
            }
        };
        self.recorded_query(sql, single, r)
    }

    fn recorded_query<T>(
        &self,
        sql: &str,
        single_partition: bool,
        r: std::result::Result<FeedResponse<T>, Failed>,
    ) -> Result<FeedResponse<T>> {
        let routing = |routed: bool| {
            if routed {
                Routing::SinglePartition
            } else {
                Routing::FanOut
            }
        };
        match r {
            Ok(r) => {
                // Embedded, the engine's metrics say whether the query was routed to one
                // logical partition (a filter on the key routes it too); remote, the options do.
                let routed = single_partition || r.query_metrics.as_ref().is_some_and(|m| m.routed);
                let partitions = visited(&r.diagnostics);
                record_query(sql, &self.id, routing(routed), partitions, r.request_charge);
                Ok(r)
            }
            Err(f) => Err(record_failure(
                "query",
                &self.id,
                routing(single_partition),
                f,
                Some(sql),
            )),
        }
    }

    // ---- server-side scripts and batches ---------------------------------------------------

    /// Runs stored procedure `id` in logical partition `partition_key`, as one transaction.
    pub async fn execute_stored_procedure<T: DeserializeOwned>(
        &self,
        id: &str,
        partition_key: impl Into<PartitionKey>,
        args: &[Value],
    ) -> Result<StoredProcedureResponse<T>> {
        let pk = partition_key.into();
        let r = match &self.backend {
            Backend::Embedded(c) => c.execute_stored_procedure(id, pk, args).await,
            Backend::Remote(c) => c.execute_stored_procedure(id, &pk, args).await,
        };
        let what = format!("execute {id} on");
        match r {
            Ok(r) => {
                record(&what, &self.id, Routing::Procedure, 1, r.request_charge);
                Ok(r)
            }
            Err(f) => Err(record_failure(&what, &self.id, Routing::Procedure, f, None)),
        }
    }

    /// Registers (or replaces) a JavaScript stored procedure.
    pub async fn upsert_stored_procedure(&self, id: &str, body: &str) -> Result<()> {
        match &self.backend {
            Backend::Embedded(c) => c
                .scripts()
                .upsert_stored_procedure(id, engine::JavaScript::compile(body).await?),
            Backend::Remote(c) => c.rest.upsert_stored_procedure(&c.link, id, body).await,
        }
    }

    /// Registers (or replaces) a JavaScript post-trigger run on `operation`.
    pub async fn upsert_post_trigger(
        &self,
        id: &str,
        body: &str,
        operation: TriggerOperation,
    ) -> Result<()> {
        match &self.backend {
            Backend::Embedded(c) => c.scripts().upsert_trigger(
                id,
                engine::JavaScript::compile(body)
                    .await?
                    .post_trigger(operation),
            ),
            Backend::Remote(c) => {
                let op = match operation {
                    TriggerOperation::All => "All",
                    TriggerOperation::Create => "Create",
                    TriggerOperation::Upsert => "Upsert",
                    TriggerOperation::Replace => "Replace",
                    TriggerOperation::Delete => "Delete",
                };
                c.rest.upsert_trigger(&c.link, id, body, "Post", op).await
            }
        }
    }

    /// Executes a batch in one ACID transaction (see [`TransactionalBatch`]).
    pub async fn execute_batch(&self, batch: TransactionalBatch) -> Result<BatchResponse> {
        let r = match &self.backend {
            Backend::Embedded(c) => c.execute_batch(batch.into_engine()?).await,
            Backend::Remote(c) => c.execute_batch(batch).await,
        };
        if let Ok(r) = &r {
            record(
                "batch on",
                &self.id,
                Routing::Point,
                visited(&r.diagnostics).max(1),
                r.request_charge,
            );
        }
        r
    }
}

impl RemoteContainer {
    /// The container's partition key path (paths, for a hierarchical key), read once and kept.
    pub(crate) async fn partition_key_path(&self) -> Result<String> {
        if let Some(p) = self.pk_path.get() {
            return Ok(p.clone());
        }
        let props = self.sdk.read(None).await.map_err(crate::remote::from_sdk)?;
        let props: Value =
            serde_json::to_value(props.into_model().map_err(crate::remote::from_sdk)?)?;
        // A hierarchical key's paths joined by commas, as `PartitionKeyDefinition::new` reads them.
        let paths: Vec<&str> = props["partitionKey"]["paths"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if paths.is_empty() {
            return Err(Error::Corrupt(format!(
                "container '{}' has no partition key path",
                self.link
            )));
        }
        let path = paths.join(",");
        let _ = self.pk_path.set(path.clone());
        Ok(path)
    }
}
