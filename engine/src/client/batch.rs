//! Transactional batch: up to 100 operations in one logical partition, all or nothing
//! (Cosmos DB's `TransactionalBatch`).

use serde::Serialize;
use serde_json::Value;

use super::container::ContainerClient;
use super::response::Diagnostics;
use crate::error::{Error, Result};
use crate::item::PatchOperation;
use crate::partition::PartitionKey;
use crate::ru::Meter;
use crate::writer::ops::{ItemOp, ItemOpKind, WriteOp, WriteOutput};

pub struct TransactionalBatch {
    partition_key: PartitionKey,
    ops: Vec<ItemOp>,
    error: Option<Error>,
}

impl TransactionalBatch {
    pub fn new(partition_key: impl Into<PartitionKey>) -> Self {
        TransactionalBatch {
            partition_key: partition_key.into(),
            ops: Vec::new(),
            error: None,
        }
    }

    fn push(mut self, kind: ItemOpKind, if_match: Option<String>) -> Self {
        self.ops.push(ItemOp {
            kind,
            partition_key: None,
            if_match,
            if_none_match: None,
        });
        self
    }

    /// The last operation added applies only if its item's etag is not `etag` (`*`: only if
    /// there is no item), else the batch fails on it with 412: the REST batch's `ifNoneMatch`.
    /// A read ignores it.
    pub fn if_none_match(mut self, etag: impl Into<String>) -> Self {
        if let Some(op) = self.ops.last_mut() {
            op.if_none_match = Some(etag.into());
        }
        self
    }

    fn value<T: Serialize>(&mut self, item: &T) -> Value {
        serde_json::to_value(item).unwrap_or_else(|e| {
            self.error.get_or_insert(Error::bad("item", e.to_string()));
            Value::Null
        })
    }

    pub fn create_item<T: Serialize>(mut self, item: &T) -> Self {
        let v = self.value(item);
        self.push(ItemOpKind::Create(v), None)
    }
    pub fn upsert_item<T: Serialize>(mut self, item: &T) -> Self {
        let v = self.value(item);
        self.push(ItemOpKind::Upsert(v), None)
    }
    pub fn replace_item<T: Serialize>(
        mut self,
        id: &str,
        item: &T,
        if_match: Option<String>,
    ) -> Self {
        let doc = self.value(item);
        self.push(ItemOpKind::Replace { id: id.into(), doc }, if_match)
    }
    pub fn delete_item(self, id: &str, if_match: Option<String>) -> Self {
        self.push(ItemOpKind::Delete { id: id.into() }, if_match)
    }
    pub fn patch_item(
        self,
        id: &str,
        operations: Vec<PatchOperation>,
        if_match: Option<String>,
    ) -> Self {
        self.push(
            ItemOpKind::Patch {
                id: id.into(),
                operations,
                condition: None,
            },
            if_match,
        )
    }
    /// A conditional patch in the batch ([`ContainerClient::patch_item_if`]): an item that does
    /// not match fails the batch with 412.
    pub fn patch_item_if(
        self,
        id: &str,
        operations: Vec<PatchOperation>,
        condition: &str,
        if_match: Option<String>,
    ) -> Self {
        self.push(
            ItemOpKind::Patch {
                id: id.into(),
                operations,
                condition: Some(condition.to_owned()),
            },
            if_match,
        )
    }
    pub fn read_item(self, id: &str) -> Self {
        self.push(ItemOpKind::Read { id: id.into() }, None)
    }
}

#[derive(Debug, Clone)]
pub struct BatchOperationResult {
    /// The operation's status; in a failed batch the failing one has its error status and the
    /// others 424 (Failed Dependency), as Cosmos DB answers.
    pub status_code: u16,
    pub resource: Option<Value>,
    pub etag: Option<String>,
    pub request_charge: f64,
}

#[derive(Debug, Clone)]
pub struct BatchResponse {
    pub results: Vec<BatchOperationResult>,
    /// Present when the batch failed (nothing was committed).
    pub error_message: Option<String>,
    pub request_charge: f64,
    pub diagnostics: Diagnostics,
}

impl BatchResponse {
    pub fn is_success(&self) -> bool {
        self.error_message.is_none()
    }
}

impl ContainerClient {
    /// Executes a batch in one ACID transaction. A batch that fails on an operation answers with
    /// `is_success() == false` and per-operation statuses; only request-level problems (bad
    /// container, storage, throttling beyond the retries) are an `Err`.
    pub async fn execute_batch(&self, batch: TransactionalBatch) -> Result<BatchResponse> {
        if let Some(e) = batch.error {
            return Err(e);
        }
        let shared = self.shared()?;
        let (rid, pp, pk) = {
            let def = shared.def.load();
            let pk = def.partition_key.full_key(batch.partition_key)?;
            (
                def.rid,
                def.partitions.owner(&def.partition_key.epk(&pk)).id,
                pk,
            )
        };
        let n = batch.ops.len();
        let ops = batch.ops;
        let (out, retries) = self
            .retrying(|| {
                let shared = shared.clone();
                let op = WriteOp::Batch {
                    rid,
                    partition_key: pk.clone(),
                    ops: ops.clone(),
                };
                let submit = self.engine.submit(op);
                async move {
                    shared.throughput.admit(pp)?;
                    submit.await
                }
            })
            .await?;
        let WriteOutput::Batch(out) = out else {
            return Err(Error::Corrupt("unexpected writer answer".into()));
        };
        let mut resp = match out {
            Ok(outcomes) => {
                let mut meter = Meter::default();
                let results = outcomes
                    .into_iter()
                    .map(|o| {
                        meter.add(&o.meter);
                        BatchOperationResult {
                            status_code: o.status,
                            resource: o.body.and_then(|b| serde_json::from_slice(&b).ok()),
                            etag: o.etag,
                            request_charge: o.meter.charge(),
                        }
                    })
                    .collect();
                BatchResponse {
                    results,
                    error_message: None,
                    request_charge: meter.charge(),
                    diagnostics: Diagnostics::from_meter(&meter, vec![pp]),
                }
            }
            Err(f) => {
                let results = (0..n)
                    .map(|i| BatchOperationResult {
                        status_code: if i == f.index {
                            f.error.status_code()
                        } else {
                            424
                        },
                        resource: None,
                        etag: None,
                        request_charge: 0.0,
                    })
                    .collect();
                BatchResponse {
                    results,
                    error_message: Some(format!("operation {} failed: {}", f.index, f.error)),
                    request_charge: f.meter.charge(),
                    diagnostics: Diagnostics::from_meter(&f.meter, vec![f.partition]),
                }
            }
        };
        shared.throughput.charge(pp, resp.request_charge);
        resp.diagnostics.throttle_retries = retries;
        Ok(resp)
    }
}
