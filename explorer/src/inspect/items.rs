//! The item browser: a logical partition's items a page at a time, one item as JSON, and the
//! writes on it (replace and delete), both checked against the etag the page was shown with.

use cosmos::Labelled;
use engine::{ContainerClient, ItemOptions, PartitionKey, QueryOptions, NO_PARAMS};
use serde_json::Value;

/// Items per page of the browser.
pub const PAGE: usize = 20;

pub struct ItemRow {
    pub id: String,
    /// Size of the stored JSON in bytes.
    pub bytes: u64,
    /// Last write, Unix seconds.
    pub ts: u64,
}

pub struct ItemPage {
    pub items: Vec<ItemRow>,
    pub continuation: Option<String>,
}

/// One page of the items of logical partition `pk`, in key order.
pub async fn list(
    c: &ContainerClient,
    pk: PartitionKey,
    continuation: Option<String>,
) -> engine::Result<ItemPage> {
    let options = QueryOptions {
        partition_key: Some(pk),
        max_item_count: Some(PAGE),
        continuation,
        ..Default::default()
    };
    let r = cosmos::Container::embedded(c.clone())
        .query_items::<Value>("SELECT * FROM c", NO_PARAMS, options)
        .labelled("browse a logical partition")
        .await?;
    let items = r
        .items
        .iter()
        .map(|item| ItemRow {
            id: item["id"].as_str().unwrap_or_default().to_owned(),
            bytes: item.to_string().len() as u64,
            ts: item["_ts"].as_u64().unwrap_or_default(),
        })
        .collect();
    Ok(ItemPage {
        items,
        continuation: r.continuation,
    })
}

/// An item as the editor shows it.
pub struct OpenItem {
    pub id: String,
    pub json: String,
    pub etag: String,
}

fn open(id: &str, item: &Value, etag: Option<String>) -> engine::Result<OpenItem> {
    Ok(OpenItem {
        id: id.to_owned(),
        json: serde_json::to_string_pretty(item)?,
        etag: etag
            .or_else(|| item["_etag"].as_str().map(str::to_owned))
            .unwrap_or_default(),
    })
}

pub async fn read(c: &ContainerClient, id: &str, pk: PartitionKey) -> engine::Result<OpenItem> {
    let r = cosmos::Container::embedded(c.clone())
        .read_item::<Value>(id, pk, None)
        .labelled("read item")
        .await?;
    let item = r.resource.clone().unwrap_or_default();
    open(id, &item, r.etag)
}

/// Replaces item `id` with `json` if its etag is still `etag` (412 otherwise).
pub async fn replace(
    c: &ContainerClient,
    id: &str,
    pk: PartitionKey,
    json: &str,
    etag: &str,
) -> engine::Result<OpenItem> {
    let item: Value = serde_json::from_str(json)
        .map_err(|e| engine::Error::bad("item", format!("the item is not valid JSON: {e}")))?;
    if !item.is_object() {
        return Err(engine::Error::bad("item", "an item is a JSON object"));
    }
    let r = cosmos::Container::embedded(c.clone())
        .replace_item(&item, id, Some(pk), Some(ItemOptions::if_match(etag)))
        .labelled("replace item")
        .await?;
    let stored = r.resource.clone().unwrap_or(item);
    open(id, &stored, r.etag)
}

/// Deletes item `id` if its etag is still `etag` (412 otherwise).
pub async fn delete(
    c: &ContainerClient,
    id: &str,
    pk: PartitionKey,
    etag: &str,
) -> engine::Result<()> {
    cosmos::Container::embedded(c.clone())
        .delete_item(id, pk, Some(ItemOptions::if_match(etag)))
        .labelled("delete item")
        .await?;
    Ok(())
}
