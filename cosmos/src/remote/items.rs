//! Point operations, procedures and batches on a remote container: the SDK's calls where it has
//! them, `rest.rs` where it has not (writes that run triggers, patch, procedures).

use azure_data_cosmos::options::{ItemReadOptions, ItemWriteOptions, Precondition};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::rest::Write;
use super::{charged_from_sdk, from_sdk, RemoteContainer};
use crate::batch::{BatchOp, TransactionalBatch};
use crate::{
    BatchOperationResult, BatchResponse, Diagnostics, Error, Failed, ItemOptions, ItemResponse,
    PartitionKey, PatchOperation, Result, StoredProcedureResponse,
};

/// The SDK's partition key for the engine's value (its JSON form; an array for a hierarchical
/// key).
pub(crate) fn sdk_key(pk: &PartitionKey) -> Result<azure_data_cosmos::PartitionKey> {
    use azure_data_cosmos::models::PartitionKeyValue;
    fn value(v: &Value) -> Result<PartitionKeyValue> {
        Ok(match v {
            Value::String(s) => PartitionKeyValue::from(s.clone()),
            Value::Bool(b) => PartitionKeyValue::from(*b),
            Value::Number(n) => PartitionKeyValue::try_from(n.as_f64().unwrap_or(f64::NAN))
                .map_err(|e| Error::bad("partitionKey", e.to_string()))?,
            Value::Null => PartitionKeyValue::NULL,
            // A hierarchical key's missing value.
            Value::Object(o) if o.is_empty() => PartitionKeyValue::UNDEFINED,
            other => {
                return Err(Error::bad(
                    "partitionKey",
                    format!("{other} is not a partition key value"),
                ))
            }
        })
    }
    match pk.to_json() {
        None => Ok(azure_data_cosmos::PartitionKey::from(
            PartitionKeyValue::UNDEFINED,
        )),
        Some(Value::Array(values)) => {
            let values = values.iter().map(value).collect::<Result<Vec<_>>>()?;
            azure_data_cosmos::PartitionKey::try_from(values)
                .map_err(|e| Error::bad("partitionKey", e.to_string()))
        }
        Some(v) => Ok(value(&v)?.into()),
    }
}

fn write_options(options: &ItemOptions) -> ItemWriteOptions {
    let mut o = ItemWriteOptions::default();
    if let Some(etag) = &options.if_match_etag {
        o = o.with_precondition(Precondition::IfMatch(etag.clone().into()));
    }
    o
}

/// What a remote answer tells of where it went: nothing the engine's diagnostics hold (the
/// charge is in the response itself).
pub(crate) fn charged(_charge: f64) -> Diagnostics {
    Diagnostics::default()
}

/// The engine's response for an SDK item answer.
fn item_response<T: DeserializeOwned>(
    r: azure_data_cosmos::models::ItemResponse,
) -> Result<ItemResponse<T>> {
    let status = u16::from(r.status().status_code());
    let headers = r.headers();
    let charge = headers.request_charge().map(|c| c.value()).unwrap_or(0.0);
    let etag = headers.etag().map(|e| e.to_string());
    let body = r.into_body();
    let resource = if body.is_empty() {
        None
    } else {
        Some(body.into_single::<T>().map_err(from_sdk)?)
    };
    Ok(ItemResponse {
        status_code: status,
        resource,
        etag,
        request_charge: charge,
        diagnostics: charged(charge),
    })
}

/// The engine's response for a REST answer.
fn rest_response<T: DeserializeOwned>(a: super::rest::Answer) -> Result<ItemResponse<T>> {
    let resource = match a.body {
        Value::Null => None,
        body => Some(serde_json::from_value(body).map_err(|e| Error::bad("item", e.to_string()))?),
    };
    Ok(ItemResponse {
        status_code: a.status,
        resource,
        etag: a.etag,
        request_charge: a.charge,
        diagnostics: charged(a.charge),
    })
}

fn id_of(doc: &Value) -> Result<&str> {
    doc.get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::bad("id", "the item has no string 'id'"))
}

impl RemoteContainer {
    pub async fn read_item<T: DeserializeOwned>(
        &self,
        id: &str,
        pk: &PartitionKey,
    ) -> Result<ItemResponse<T>, Failed> {
        let r = self
            .sdk
            .read_item(sdk_key(pk)?, id, None::<ItemReadOptions>)
            .await
            .map_err(charged_from_sdk)?;
        Ok(item_response(r)?)
    }

    /// Create, upsert, replace or delete; through REST when the options name triggers.
    pub async fn write<T: DeserializeOwned>(
        &self,
        write: Write<'_>,
        pk: &PartitionKey,
        options: Option<ItemOptions>,
    ) -> Result<ItemResponse<T>, Failed> {
        let options = options.unwrap_or_default();
        if !options.pre_triggers.is_empty() || !options.post_triggers.is_empty() {
            let a = self
                .rest
                .write_item(&self.link, write, pk, &options)
                .await?;
            return Ok(rest_response(a)?);
        }
        let key = sdk_key(pk)?;
        let o = Some(write_options(&options));
        let r = match write {
            Write::Create(doc) => self.sdk.create_item(key, id_of(doc)?, doc, o).await,
            Write::Upsert(doc) => self.sdk.upsert_item(key, id_of(doc)?, doc, o).await,
            Write::Replace { id, doc } => self.sdk.replace_item(key, id, doc, o).await,
            Write::Delete { id } => self.sdk.delete_item(key, id, o).await,
        }
        .map_err(charged_from_sdk)?;
        Ok(item_response(r)?)
    }

    pub async fn patch_item<T: DeserializeOwned>(
        &self,
        id: &str,
        pk: &PartitionKey,
        operations: &[PatchOperation],
        condition: Option<&str>,
        options: Option<ItemOptions>,
    ) -> Result<ItemResponse<T>, Failed> {
        let options = options.unwrap_or_default();
        let a = self
            .rest
            .patch_item(&self.link, id, pk, operations, condition, &options)
            .await?;
        Ok(rest_response(a)?)
    }

    pub async fn delete_all_items_by_partition_key(
        &self,
        pk: &PartitionKey,
    ) -> Result<ItemResponse<Value>, Failed> {
        let a = self
            .rest
            .delete_all_items_by_partition_key(&self.link, pk)
            .await?;
        Ok(rest_response(a)?)
    }

    pub async fn execute_stored_procedure<T: DeserializeOwned>(
        &self,
        id: &str,
        pk: &PartitionKey,
        args: &[Value],
    ) -> Result<StoredProcedureResponse<T>, Failed> {
        let a = self
            .rest
            .execute_stored_procedure(&self.link, id, pk, args)
            .await?;
        Ok(StoredProcedureResponse {
            resource: serde_json::from_value(a.body)
                .map_err(|e| Failed::reported(Error::bad("body", e.to_string()), a.charge))?,
            request_charge: a.charge,
            diagnostics: charged(a.charge),
            // Not asked for: the REST call does not enable script logging.
            script_log: String::new(),
        })
    }

    pub async fn execute_batch(&self, batch: TransactionalBatch) -> Result<BatchResponse> {
        use azure_data_cosmos::models::TransactionalBatch as SdkBatch;
        if let Some(e) = batch.error {
            return Err(Error::bad("item", e));
        }
        let bad = |e: azure_data_cosmos::CosmosError| Error::bad("batch", e.to_string());
        let mut b = SdkBatch::new(sdk_key(&batch.partition_key)?);
        for op in batch.ops {
            b = match op {
                BatchOp::Create(v) => b.create_item(v).map_err(bad)?,
                BatchOp::Upsert(v) => b.upsert_item(v, None).map_err(bad)?,
                BatchOp::Replace { id, doc, if_match } => b
                    .replace_item(
                        id,
                        doc,
                        if_match.map(|e| {
                            azure_data_cosmos::options::BatchReplaceOptions::default()
                                .with_precondition(Precondition::IfMatch(e.into()))
                        }),
                    )
                    .map_err(bad)?,
                BatchOp::Delete { id, if_match } => b.delete_item(
                    id,
                    if_match.map(|e| {
                        azure_data_cosmos::options::BatchDeleteOptions::default()
                            .with_precondition(Precondition::IfMatch(e.into()))
                    }),
                ),
                BatchOp::Read { id } => b.read_item(id, None),
                BatchOp::Patch { .. } => {
                    return Err(Error::bad(
                        "batch",
                        "the Rust SDK's transactional batch has no patch operation",
                    ))
                }
            };
        }
        let r = self
            .sdk
            .execute_transactional_batch(b, None)
            .await
            .map_err(from_sdk)?;
        let charge = r
            .headers()
            .request_charge()
            .map(|c| c.value())
            .unwrap_or(0.0);
        let model = r.into_model().map_err(from_sdk)?;
        let results: Vec<BatchOperationResult> = model
            .results()
            .iter()
            .map(|o| BatchOperationResult {
                status_code: o.status_code(),
                resource: o
                    .resource_body()
                    .and_then(|raw| serde_json::from_str(raw.get()).ok()),
                etag: o.etag().map(str::to_owned),
                request_charge: o.request_charge().unwrap_or(0.0),
            })
            .collect();
        let error_message = results
            .iter()
            .find(|o| o.status_code >= 400 && o.status_code != 424)
            .map(|o| format!("an operation failed with status {}", o.status_code));
        Ok(BatchResponse {
            results,
            error_message,
            request_charge: charge,
            diagnostics: charged(charge),
        })
    }
}
