//! A container: the item operations of the Cosmos DB SDKs.

use std::future::Future;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use super::engine::Engine;
use super::options::ItemOptions;
use super::response::{Diagnostics, ItemResponse};
use crate::catalog::{ContainerDef, ContainerShared};
use crate::error::{Error, Failed, Result};
use crate::item::{self, PatchOperation};
use crate::partition::PartitionKey;
use crate::ru::Meter;
use crate::scripts::run::TriggeredWrite;
use crate::scripts::RequestedTriggers;
use crate::storage::keys::{self, DocHeader};
use crate::ttl;
use crate::writer::apply::not_found;
use crate::writer::ops::{ItemOp, ItemOpKind, ItemOutcome, WriteOp, WriteOutput};

/// The queries parsed for one container, by text: kept with the container by the catalog
/// (`catalog::Attached`), which is below the query language.
#[derive(Default)]
struct ParsedQueries(parking_lot::Mutex<std::collections::HashMap<String, Arc<crate::sql::Query>>>);

#[derive(Clone)]
pub struct ContainerClient {
    pub(crate) engine: Engine,
    pub(crate) database: String,
    pub(crate) id: String,
}

impl ContainerClient {
    pub fn id(&self) -> &str {
        &self.id
    }

    pub(crate) fn shared(&self) -> Result<Arc<ContainerShared>> {
        self.engine
            .inner
            .catalog
            .container(&self.database, &self.id)
            .ok_or_else(|| Error::NotFound {
                what: format!("container '{}/{}'", self.database, self.id),
            })
    }

    /// The container's current definition (settings and physical partitions).
    pub fn read_container(&self) -> Result<Arc<ContainerDef>> {
        Ok(self.shared()?.def.load_full())
    }

    /// The container's definition as of `rtxn`'s snapshot: readers that depend on the partition
    /// map (feeds, queries) use this one, since a split commits its map with the data it moved.
    pub(crate) fn definition_in(&self, rtxn: &heed::RoTxn) -> Result<Arc<ContainerDef>> {
        let shared = self.shared()?;
        let def = shared.def.load();
        let bytes = self
            .engine
            .inner
            .store
            .meta
            .get(rtxn, &crate::catalog::container_key(&def.database, &def.id))?
            .ok_or_else(|| Error::NotFound {
                what: format!("container '{}'", def.id),
            })?;
        // Parsed once per stored version: readers between two writes share it (and its
        // compiled indexing policy).
        let hash = xxhash_rust::xxh3::xxh3_64(bytes);
        let mut cache = shared.snapshot_def.lock();
        if let Some((h, d)) = cache.as_ref() {
            if *h == hash {
                return Ok(d.clone());
            }
        }
        let parsed: Arc<ContainerDef> =
            Arc::new(serde_json::from_slice(bytes).map_err(|e| Error::Corrupt(e.to_string()))?);
        *cache = Some((hash, parsed.clone()));
        Ok(parsed)
    }

    /// A parsed query, cached by its text (the same statements run again and again).
    pub(crate) fn parsed(&self, sql: &str) -> Result<Arc<crate::sql::Query>> {
        let parsed = self.shared()?.attached.get::<ParsedQueries>();
        if let Some(q) = parsed.0.lock().get(sql) {
            return Ok(q.clone());
        }
        let q = Arc::new(crate::sql::parse(sql)?);
        let mut cache = parsed.0.lock();
        if cache.len() >= 512 {
            cache.clear();
        }
        cache.insert(sql.to_owned(), q.clone());
        Ok(q)
    }

    /// Runs `attempt` again after each 429's retry-after, within the engine's retry options.
    pub(crate) async fn retrying<R, E, F, Fut>(&self, mut attempt: F) -> Result<(R, u32), E>
    where
        E: Throttled,
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<R, E>>,
    {
        let retry = &self.engine.inner.opts.retry;
        let mut retries = 0;
        let mut waited = std::time::Duration::ZERO;
        loop {
            match attempt().await {
                Err(e) if e.throttled().is_some() => {
                    let wait = e.throttled().unwrap_or_default();
                    if retries >= retry.max_retry_attempts_on_throttled
                        || waited + wait > retry.max_retry_wait
                    {
                        return Err(e);
                    }
                    tokio::time::sleep(wait).await;
                    waited += wait;
                    retries += 1;
                }
                other => return other.map(|r| (r, retries)),
            }
        }
    }

    // ---- point reads -------------------------------------------------------------------

    /// Reads an item by id and partition key value: the cheapest operation there is.
    pub async fn read_item<T: DeserializeOwned>(
        &self,
        id: &str,
        partition_key: impl Into<PartitionKey>,
        options: Option<ItemOptions>,
    ) -> Result<ItemResponse<T>> {
        Ok(self.read_item_charged(id, partition_key, options).await?)
    }

    pub(crate) async fn read_item_charged<T: DeserializeOwned>(
        &self,
        id: &str,
        partition_key: impl Into<PartitionKey>,
        _options: Option<ItemOptions>,
    ) -> Result<ItemResponse<T>, Failed> {
        let pk = partition_key.into();
        // One B-tree lookup, off the caller's async thread: a page not in memory waits for the
        // disk, and every other request of that thread would wait with it.
        let (raw, retries) = self
            .retrying(|| {
                let (me, id, pk) = (self.clone(), id.to_owned(), pk.clone());
                crate::blocking::light(move || me.read_item_raw_charged(&id, &pk))
            })
            .await?;
        let mut r = raw.into_typed_stored::<T>(id, || format!("{}/{}", self.database, self.id))?;
        r.diagnostics.throttle_retries = retries;
        Ok(r)
    }

    /// A point read returning the stored JSON bytes without deserializing them (for handlers
    /// that pass items through). One attempt: a 429 is returned to the caller.
    pub fn read_item_raw(&self, id: &str, pk: &PartitionKey) -> Result<ItemResponse<Vec<u8>>> {
        Ok(self.read_item_raw_charged(id, pk)?)
    }

    /// [`Self::read_item_raw`], failing with its charge: a missing item cost the lookup (1 RU,
    /// as Cosmos DB charges a 404 point read).
    pub(crate) fn read_item_raw_charged(
        &self,
        id: &str,
        pk: &PartitionKey,
    ) -> Result<ItemResponse<Vec<u8>>, Failed> {
        item::validate_id(id)?;
        let shared = self.shared()?;
        let def = shared.def.load();
        let epk = def
            .partition_key
            .epk(&def.partition_key.full_key(pk.clone())?);
        let pp = def.partitions.owner(&epk).id;
        shared.throughput.admit(pp)?;
        let key = keys::doc_key(def.rid, &epk, id);
        let now = ttl::now();
        let found = self.engine.inner.store.read(|rtxn| {
            let Some(v) = self.engine.inner.store.docs.get(rtxn, &key)? else {
                return Ok(None);
            };
            // The checksum checked on every read (issue 34); the container named only in the
            // error (building its name on every read was a tenth of the read's own work).
            let (header, json) = DocHeader::verify(v)
                .map_err(|d| keys::corrupt_item(&key, &def.full_id(), d.describe()))?;
            if ttl::is_expired(&header, def.default_ttl, now) {
                return Ok(None);
            }
            Ok(Some((header, json.to_vec(), v.len())))
        });
        let mut meter = Meter::default();
        let missing = |meter: Meter| {
            shared.throughput.charge(pp, meter.charge());
            Err(Failed::spent(not_found(id, pk), meter))
        };
        let (header, json, len) = match found {
            Ok(Some(f)) => f,
            Ok(None) => return missing(meter),
            Err(e) => return Err(e.into()),
        };
        meter.read_item(len);
        if keys::is_truncated(id) {
            // A truncated key could collide: confirm the stored id is the one asked for.
            let doc: Value =
                serde_json::from_slice(&json).map_err(|e| Error::Corrupt(e.to_string()))?;
            if doc.get("id").and_then(Value::as_str) != Some(id) {
                return missing(meter);
            }
        }
        let charge = meter.charge();
        shared.throughput.charge(pp, charge);
        Ok(ItemResponse {
            status_code: 200,
            resource: Some(json),
            etag: Some(item::etag(def.rid, header.lsn)),
            request_charge: charge,
            diagnostics: Diagnostics::from_meter(&meter, vec![pp]),
        })
    }

    // ---- writes --------------------------------------------------------------------------

    /// Creates an item (409 if its id exists in the partition). The partition key is read from
    /// the item; pass it as well to have the engine check they agree.
    pub async fn create_item<T: Serialize + DeserializeOwned>(
        &self,
        item: &T,
        partition_key: Option<PartitionKey>,
        options: Option<ItemOptions>,
    ) -> Result<ItemResponse<T>> {
        Ok(self
            .write_typed(create(item)?, partition_key, options)
            .await?)
    }

    /// Creates the item, or replaces it if its id exists in the partition.
    pub async fn upsert_item<T: Serialize + DeserializeOwned>(
        &self,
        item: &T,
        partition_key: Option<PartitionKey>,
        options: Option<ItemOptions>,
    ) -> Result<ItemResponse<T>> {
        Ok(self
            .write_typed(upsert(item)?, partition_key, options)
            .await?)
    }

    /// Replaces item `id` (404 if missing; 412 if `if_match_etag` is stale).
    pub async fn replace_item<T: Serialize + DeserializeOwned>(
        &self,
        item: &T,
        id: &str,
        partition_key: Option<PartitionKey>,
        options: Option<ItemOptions>,
    ) -> Result<ItemResponse<T>> {
        Ok(self
            .write_typed(replace(item, id)?, partition_key, options)
            .await?)
    }

    /// Deletes item `id` (404 if missing; 412 if `if_match_etag` is stale).
    pub async fn delete_item(
        &self,
        id: &str,
        partition_key: impl Into<PartitionKey>,
        options: Option<ItemOptions>,
    ) -> Result<ItemResponse<Value>> {
        Ok(self
            .write_typed(delete(id), Some(partition_key.into()), options)
            .await?)
    }

    /// Applies patch operations to item `id` atomically.
    pub async fn patch_item<T: DeserializeOwned>(
        &self,
        id: &str,
        partition_key: impl Into<PartitionKey>,
        operations: &[PatchOperation],
        options: Option<ItemOptions>,
    ) -> Result<ItemResponse<T>> {
        Ok(self
            .write_typed(
                patch(id, operations, None),
                Some(partition_key.into()),
                options,
            )
            .await?)
    }

    /// A conditional patch: applies `operations` only if item `id` matches `condition`, a
    /// filter predicate such as `FROM c WHERE c.stock >= 1` (Cosmos DB's `filterPredicate`);
    /// 412 if it does not, 404 if there is no such item, 400 if the condition is not a valid
    /// `FROM ... WHERE` clause. Checked and applied in one write transaction: no other write
    /// comes between them. Charged as the patch, or as the read of the item when it does not
    /// match.
    pub async fn patch_item_if<T: DeserializeOwned>(
        &self,
        id: &str,
        partition_key: impl Into<PartitionKey>,
        operations: &[PatchOperation],
        condition: &str,
        options: Option<ItemOptions>,
    ) -> Result<ItemResponse<T>> {
        let kind = patch(id, operations, Some(condition));
        Ok(self
            .write_typed(kind, Some(partition_key.into()), options)
            .await?)
    }

    /// One item write with its retries; a failure carries what it cost.
    pub(crate) async fn write_typed<T: DeserializeOwned>(
        &self,
        kind: ItemOpKind,
        partition_key: Option<PartitionKey>,
        options: Option<ItemOptions>,
    ) -> Result<ItemResponse<T>, Failed> {
        let options = options.unwrap_or_default();
        let op = ItemOp {
            kind,
            partition_key,
            if_match: options.if_match_etag.clone(),
            if_none_match: None,
        };
        let triggers = self.resolve_triggers(&options, &op.kind)?;
        let index = !options.exclude_from_index;
        if !index && !triggers.is_empty() {
            // Refused rather than indexed silently: a triggered write runs in the script path.
            return Err(Error::bad(
                "indexingDirective",
                "an item written with triggers cannot be excluded from the index here",
            )
            .into());
        }
        let (outcome, retries) = self
            .retrying(|| self.write_once(op.clone(), triggers.clone(), index))
            .await?;
        let mut r = typed_outcome::<T>(outcome, options.enable_content_response_on_write)?;
        r.diagnostics.throttle_retries = retries;
        Ok(r)
    }

    /// One attempt of an item write: admission against the target partition's budget, the
    /// writer round trip, and the charge (a refused write's too: what the writer did for it).
    async fn write_once(
        &self,
        op: ItemOp,
        triggers: RequestedTriggers,
        index: bool,
    ) -> Result<ItemOutcome, Failed> {
        let shared = self.shared()?;
        let (rid, pp) = {
            let def = shared.def.load();
            let pk = match (&op.partition_key, &op.kind) {
                (Some(pk), _) => def.partition_key.full_key(pk.clone())?,
                (
                    None,
                    ItemOpKind::Create(d)
                    | ItemOpKind::Upsert(d)
                    | ItemOpKind::Replace { doc: d, .. },
                ) => def.partition_key.extract(d)?,
                (None, _) => {
                    return Err(Error::bad(
                        "partitionKey",
                        "this operation needs a partition key value",
                    )
                    .into())
                }
            };
            (
                def.rid,
                def.partitions.owner(&def.partition_key.epk(&pk)).id,
            )
        };
        shared.throughput.admit(pp)?;
        let write = if triggers.is_empty() {
            WriteOp::Item { rid, op, index }
        } else {
            let budget = self.engine.inner.opts.script_budget;
            let script = TriggeredWrite {
                op,
                triggers,
                budget,
            };
            WriteOp::Script {
                rid,
                script: Box::new(script),
            }
        };
        match self.engine.submit(write).await {
            Ok(WriteOutput::Item(o)) => {
                shared.throughput.charge(o.partition, o.meter.charge());
                Ok(o)
            }
            // Refused (404, 409, 412, ...) or triggers that failed: rolled back, charged for
            // what was done.
            Ok(WriteOutput::Failed(f)) => {
                shared.throughput.charge(pp, f.meter.charge());
                Err(Failed::spent(f.error, f.meter))
            }
            Ok(_) => Err(Error::Corrupt("unexpected writer answer".into()).into()),
            Err(e) => {
                // The writer failed the whole group (storage): the minimum charge.
                shared.throughput.charge(pp, Meter::default().charge());
                Err(Failed::spent(e, Meter::default()))
            }
        }
    }
}

/// The writer's operations behind `create_item`, `upsert_item`, ... (shared with
/// [`super::charged::ChargedContainer`]).
pub(crate) fn create<T: Serialize>(item: &T) -> Result<ItemOpKind> {
    Ok(ItemOpKind::Create(serde_json::to_value(item)?))
}

pub(crate) fn upsert<T: Serialize>(item: &T) -> Result<ItemOpKind> {
    Ok(ItemOpKind::Upsert(serde_json::to_value(item)?))
}

pub(crate) fn replace<T: Serialize>(item: &T, id: &str) -> Result<ItemOpKind> {
    Ok(ItemOpKind::Replace {
        id: id.to_owned(),
        doc: serde_json::to_value(item)?,
    })
}

pub(crate) fn delete(id: &str) -> ItemOpKind {
    ItemOpKind::Delete { id: id.to_owned() }
}

pub(crate) fn patch(
    id: &str,
    operations: &[PatchOperation],
    condition: Option<&str>,
) -> ItemOpKind {
    ItemOpKind::Patch {
        id: id.to_owned(),
        operations: operations.to_vec(),
        condition: condition.map(str::to_owned),
    }
}

/// What [`ContainerClient::retrying`] needs of an error: the wait a 429 asks for.
pub(crate) trait Throttled {
    fn throttled(&self) -> Option<std::time::Duration>;
}

impl Throttled for Error {
    fn throttled(&self) -> Option<std::time::Duration> {
        match self {
            Error::TooManyRequests { retry_after, .. } => Some(*retry_after),
            _ => None,
        }
    }
}

impl Throttled for Failed {
    fn throttled(&self) -> Option<std::time::Duration> {
        self.error.throttled()
    }
}

/// A writer outcome as a typed response (the body parsed only when the caller wants it).
pub(crate) fn typed_outcome<T: DeserializeOwned>(
    o: ItemOutcome,
    with_content: bool,
) -> Result<ItemResponse<T>> {
    let resource = match (&o.body, with_content) {
        (Some(b), true) => {
            Some(serde_json::from_slice(b).map_err(|e| Error::bad("item", e.to_string()))?)
        }
        _ => None,
    };
    Ok(ItemResponse {
        status_code: o.status,
        resource,
        etag: o.etag,
        request_charge: o.meter.charge(),
        diagnostics: Diagnostics::from_meter(&o.meter, vec![o.partition]),
    })
}

impl ItemResponse<Vec<u8>> {
    /// The typed response of an item read from storage: bytes that are not JSON are corrupt data
    /// naming the item (500), not a bad request; JSON that does not fit `T` stays a 400. Parsed
    /// once: only a failure is parsed again, to tell the two apart.
    fn into_typed_stored<T: DeserializeOwned>(
        self,
        id: &str,
        container: impl FnOnce() -> String,
    ) -> Result<ItemResponse<T>> {
        let resource = match &self.resource {
            Some(b) => Some(serde_json::from_slice::<T>(b).map_err(|e| {
                match serde_json::from_slice::<serde::de::IgnoredAny>(b) {
                    Err(e) => Error::Corrupt(format!(
                        "item '{id}' in container '{}': its JSON does not parse ({e}); restore from a backup, run `engine check`",
                        container()
                    )),
                    Ok(_) => Error::bad("item", e.to_string()),
                }
            })?),
            None => None,
        };
        Ok(ItemResponse {
            status_code: self.status_code,
            resource,
            etag: self.etag,
            request_charge: self.request_charge,
            diagnostics: self.diagnostics,
        })
    }
}

impl std::fmt::Debug for ContainerClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContainerClient")
            .field("database", &self.database)
            .field("id", &self.id)
            .finish()
    }
}
