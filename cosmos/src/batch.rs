//! A transactional batch that either backend can run: the operations are kept as written and
//! become the engine's batch or the SDK's at execution.

use serde::Serialize;
use serde_json::Value;

use crate::{Error, PartitionKey, PatchOperation, Result};

#[derive(Debug, Clone)]
pub(crate) enum BatchOp {
    Create(Value),
    Upsert(Value),
    Replace {
        id: String,
        doc: Value,
        if_match: Option<String>,
    },
    Delete {
        id: String,
        if_match: Option<String>,
    },
    Patch {
        id: String,
        operations: Vec<PatchOperation>,
        /// A filter predicate (`FROM c WHERE ...`): 412 fails the batch unless the item matches.
        condition: Option<String>,
        if_match: Option<String>,
    },
    Read {
        id: String,
    },
}

/// Up to 100 operations in one logical partition, all or nothing (Cosmos DB's
/// `TransactionalBatch`).
#[derive(Debug, Clone)]
pub struct TransactionalBatch {
    pub(crate) partition_key: PartitionKey,
    pub(crate) ops: Vec<BatchOp>,
    pub(crate) error: Option<String>,
}

impl TransactionalBatch {
    pub fn new(partition_key: impl Into<PartitionKey>) -> Self {
        TransactionalBatch {
            partition_key: partition_key.into(),
            ops: Vec::new(),
            error: None,
        }
    }

    fn value<T: Serialize>(&mut self, item: &T) -> Value {
        serde_json::to_value(item).unwrap_or_else(|e| {
            self.error.get_or_insert(e.to_string());
            Value::Null
        })
    }

    pub fn create_item<T: Serialize>(mut self, item: &T) -> Self {
        let v = self.value(item);
        self.ops.push(BatchOp::Create(v));
        self
    }

    pub fn upsert_item<T: Serialize>(mut self, item: &T) -> Self {
        let v = self.value(item);
        self.ops.push(BatchOp::Upsert(v));
        self
    }

    pub fn replace_item<T: Serialize>(
        mut self,
        id: &str,
        item: &T,
        if_match: Option<String>,
    ) -> Self {
        let doc = self.value(item);
        self.ops.push(BatchOp::Replace {
            id: id.into(),
            doc,
            if_match,
        });
        self
    }

    pub fn delete_item(mut self, id: &str, if_match: Option<String>) -> Self {
        self.ops.push(BatchOp::Delete {
            id: id.into(),
            if_match,
        });
        self
    }

    pub fn patch_item(
        mut self,
        id: &str,
        operations: Vec<PatchOperation>,
        if_match: Option<String>,
    ) -> Self {
        self.ops.push(BatchOp::Patch {
            id: id.into(),
            operations,
            condition: None,
            if_match,
        });
        self
    }

    /// A conditional patch ([`crate::Container::patch_item_if`]): an item that does not match
    /// `condition` fails the batch with 412.
    pub fn patch_item_if(
        mut self,
        id: &str,
        operations: Vec<PatchOperation>,
        condition: &str,
        if_match: Option<String>,
    ) -> Self {
        self.ops.push(BatchOp::Patch {
            id: id.into(),
            operations,
            condition: Some(condition.into()),
            if_match,
        });
        self
    }

    pub fn read_item(mut self, id: &str) -> Self {
        self.ops.push(BatchOp::Read { id: id.into() });
        self
    }

    /// The engine's batch of the same operations.
    pub(crate) fn into_engine(self) -> Result<engine::TransactionalBatch> {
        if let Some(e) = self.error {
            return Err(Error::bad("item", e));
        }
        Ok(self.ops.into_iter().fold(
            engine::TransactionalBatch::new(self.partition_key),
            |b, op| match op {
                BatchOp::Create(v) => b.create_item(&v),
                BatchOp::Upsert(v) => b.upsert_item(&v),
                BatchOp::Replace { id, doc, if_match } => b.replace_item(&id, &doc, if_match),
                BatchOp::Delete { id, if_match } => b.delete_item(&id, if_match),
                BatchOp::Patch {
                    id,
                    operations,
                    condition: None,
                    if_match,
                } => b.patch_item(&id, operations, if_match),
                BatchOp::Patch {
                    id,
                    operations,
                    condition: Some(condition),
                    if_match,
                } => b.patch_item_if(&id, operations, &condition, if_match),
                BatchOp::Read { id } => b.read_item(&id),
            },
        ))
    }
}
