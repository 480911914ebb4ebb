//! Every item of one logical partition deleted (Cosmos DB's `DeleteAllItemsByPartitionKey`,
//! `POST …/operations/partitionkeydelete`): in transactional batches of 100, each all or
//! nothing. The whole is not one transaction, as on the service (a write racing it may
//! survive), so one large partition never holds the writer for all its deletes at once.

use serde_json::Value;

use super::batch::TransactionalBatch;
use super::charged::ChargedContainer;
use super::container::ContainerClient;
use super::query::{QueryOptions, NO_PARAMS};
use super::response::{Diagnostics, ItemResponse};
use crate::error::{Error, Failed, Result};
use crate::partition::PartitionKey;

/// Items deleted per batch: a transactional batch's limit.
const PER_BATCH: usize = 100;

impl ContainerClient {
    /// Deletes every item of logical partition `partition_key`. The answer (200, no resource)
    /// carries the charge of the reads of the ids and of the deletes; its diagnostics count the
    /// items written (deleted).
    pub async fn delete_all_items_by_partition_key(
        &self,
        partition_key: impl Into<PartitionKey>,
    ) -> Result<ItemResponse<Value>> {
        Ok(self
            .charged()
            .delete_all_items_by_partition_key(partition_key)
            .await?)
    }
}

impl ChargedContainer {
    /// [`ContainerClient::delete_all_items_by_partition_key`]; a failure carries what the
    /// batches before it cost.
    pub async fn delete_all_items_by_partition_key(
        &self,
        partition_key: impl Into<PartitionKey>,
    ) -> Result<ItemResponse<Value>, Failed> {
        let pk = partition_key.into();
        let mut charge = 0.0;
        let mut diagnostics = Diagnostics::default();
        loop {
            let options = QueryOptions {
                partition_key: Some(pk.clone()),
                max_item_count: Some(PER_BATCH),
                ..Default::default()
            };
            let page = self
                .query_items::<Value>("SELECT VALUE c.id FROM c", NO_PARAMS, options)
                .await
                .map_err(|f| f.after(charge))?;
            charge += page.request_charge;
            let ids: Vec<&str> = page.items.iter().filter_map(Value::as_str).collect();
            if ids.is_empty() {
                break;
            }
            let batch = ids
                .iter()
                .fold(TransactionalBatch::new(pk.clone()), |b, id| {
                    b.delete_item(id, None)
                });
            let r = self
                .execute_batch(batch)
                .await
                .map_err(|e| Failed::from(e).after(charge))?;
            charge += r.request_charge;
            diagnostics.items_written += r.diagnostics.items_written;
            diagnostics.partitions.clone_from(&r.diagnostics.partitions);
            // A concurrent delete of one of them fails the batch: read the partition again.
            if !r.is_success() && !r.results.iter().any(|o| o.status_code == 404) {
                let why = r.error_message.unwrap_or_default();
                return Err(Failed::reported(Error::Unavailable(why), charge));
            }
        }
        Ok(ItemResponse {
            status_code: 200,
            resource: None,
            etag: None,
            request_charge: (charge * 100.0).round() / 100.0,
            diagnostics,
        })
    }
}
