//! Items by `_rid`. An item's `_self` names it by its resource id, a hash of its key
//! (`item::item_links`), so the item is found among the keys of its logical partition (every
//! item request names its partition key): one hash per key, no JSON parsed unless the id was
//! truncated in its key. Not charged: the service addresses an item by rid as cheaply as by
//! name, and the request itself is charged as usual.

use serde_json::Value;

use super::container::ContainerClient;
use crate::error::{Error, Result};
use crate::partition::PartitionKey;
use crate::rid::{self, ChildKind};
use crate::storage::keys::{self, DocHeader};

impl ContainerClient {
    /// The id of the item of partition `pk` whose `_rid` is `item_rid`; `None` when there is
    /// none, or when `item_rid` is no item id of this container.
    pub fn item_id_of_rid(&self, item_rid: &str, pk: &PartitionKey) -> Result<Option<String>> {
        let def = self.read_container()?;
        let Some(bytes) = rid::decode(item_rid) else {
            return Ok(None);
        };
        if rid::child_kind(&bytes) != Some(ChildKind::Document)
            || bytes[..8] != def.resource_bytes()
        {
            return Ok(None);
        }
        let wanted = u64::from_le_bytes(bytes[8..16].try_into().expect("16 bytes"));
        let epk = def
            .partition_key
            .epk(&def.partition_key.full_key(pk.clone())?);
        let prefix = keys::partition_prefix(def.rid, &epk);
        let store = &self.engine.inner.store;
        store.read(|rtxn| {
            for entry in store.docs.prefix_iter(rtxn, &prefix)? {
                let (key, value) = entry?;
                if rid::hashed_number(key) != wanted {
                    continue;
                }
                let id_bytes = key.get(20..).unwrap_or_default();
                if id_bytes.len() < keys::ID_INLINE {
                    if let Ok(id) = std::str::from_utf8(id_bytes) {
                        return Ok(Some(id.to_owned()));
                    }
                }
                // A long id is truncated in its key: the stored item has it whole.
                let (_, json) = DocHeader::read(key, value, &def.full_id())?;
                let doc: Value =
                    serde_json::from_slice(json).map_err(|e| Error::Corrupt(e.to_string()))?;
                return Ok(doc.get("id").and_then(Value::as_str).map(str::to_owned));
            }
            Ok(None)
        })
    }
}
