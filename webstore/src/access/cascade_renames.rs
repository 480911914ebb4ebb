//! "Denormalizing with the change feed" (`000_*`): products carry copies of their category's and
//! tags' names; when a name changes in `productMeta`, this handler — fed by a change-feed
//! processor on `productMeta` — rewrites every copy. A category's products are one logical
//! partition (single-partition query); a tag's products are spread over every category (fan-out).
//! The home page's `featured` document copies category names too, and is rewritten with them.
//! It is idempotent (only stale copies are written), so a batch delivered twice after a crash or
//! restart changes nothing the second time.

use cosmos::{PatchOperation, QueryOptions};
use serde_json::{json, Value};

use super::featured_products::FEATURED_ID;
use crate::containers::Containers;

pub const PROCESSOR: &str = "renameCascade";

/// Handles one batch of changed `productMeta` documents.
pub async fn cascade_renames(c: &Containers, changes: Vec<Value>) -> cosmos::Result<()> {
    for doc in changes {
        let (Some(id), Some(name)) = (doc["id"].as_str(), doc["name"].as_str()) else {
            continue;
        };
        match doc["type"].as_str() {
            Some("category") => rename_category_copies(c, id, name).await?,
            Some("tag") => rename_tag_copies(c, id, name).await?,
            _ => continue,
        }
        // One line per change handled: with two app processes on one account, each rename
        // shows up once across both logs (the leases split the work, not copy it).
        tracing::info!(target: "workers", "{PROCESSOR}: carried {id} = {name:?} to its copies");
    }
    Ok(())
}

async fn rename_category_copies(
    c: &Containers,
    category_id: &str,
    name: &str,
) -> cosmos::Result<()> {
    let stale = c
        .product
        .query_all::<Value>(
            "SELECT p.id FROM p WHERE p.categoryId = @id AND p.categoryName != @name",
            &[("@id", json!(category_id)), ("@name", json!(name))],
            QueryOptions {
                partition_key: Some(category_id.into()),
                ..Default::default()
            },
        )
        .await?;
    for p in stale.items {
        let id = p["id"].as_str().unwrap_or_default();
        c.product
            .patch_item::<Value>(
                id,
                category_id,
                &[PatchOperation::set("/categoryName", name)],
                None,
            )
            .await?;
    }
    rename_featured_copies(c, category_id, name).await
}

/// The `featured` document's copies of the category's name (one point read, one patch).
async fn rename_featured_copies(
    c: &Containers,
    category_id: &str,
    name: &str,
) -> cosmos::Result<()> {
    let featured = match c
        .product_meta
        .read_item::<Value>(FEATURED_ID, "featured", None)
        .await
    {
        Ok(r) => r,
        Err(cosmos::Error::NotFound { .. }) => return Ok(()),
        Err(e) => return Err(e),
    };
    let ops: Vec<PatchOperation> = featured
        .resource
        .as_ref()
        .and_then(|f| f["products"].as_array())
        .into_iter()
        .flatten()
        .enumerate()
        .filter(|(_, p)| p["categoryId"] == category_id && p["categoryName"] != name)
        .map(|(i, _)| PatchOperation::set(&format!("/products/{i}/categoryName"), name))
        .collect();
    if ops.is_empty() {
        return Ok(());
    }
    // If the list was rewritten meanwhile, the positions may be stale: the next change (or a
    // redelivery) retries.
    c.product_meta
        .patch_item::<Value>(
            FEATURED_ID,
            "featured",
            &ops,
            featured.etag.map(cosmos::ItemOptions::if_match),
        )
        .await?;
    Ok(())
}

async fn rename_tag_copies(c: &Containers, tag_id: &str, name: &str) -> cosmos::Result<()> {
    let carriers = c
        .product
        .query_all::<Value>(
            "SELECT p.id, p.categoryId, p.tags FROM p WHERE ARRAY_CONTAINS(p.tags, {\"id\": @id}, true)",
            &[("@id", json!(tag_id))],
            QueryOptions::default(),
        )
        .await?;
    for p in carriers.items {
        let ops: Vec<PatchOperation> = p["tags"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
            .filter(|(_, t)| t["id"] == tag_id && t["name"] != name)
            .map(|(i, _)| PatchOperation::set(&format!("/tags/{i}/name"), name))
            .collect();
        if ops.is_empty() {
            continue;
        }
        let (id, category) = (
            p["id"].as_str().unwrap_or_default(),
            p["categoryId"].as_str().unwrap_or_default(),
        );
        c.product
            .patch_item::<Value>(id, category, &ops, None)
            .await?;
    }
    Ok(())
}
