//! "Denormalizing with the change feed" (`000_*`): products carry copies of their category's and
//! tags' names; when a name changes in `productMeta`, this handler — fed by a change-feed
//! processor on `productMeta` — rewrites every copy. A category's products are one logical
//! partition (single-partition query); a tag's products are spread over every category (fan-out).
//! The home page's `featured` document copies category names too, and is rewritten with them.
//! It is idempotent (only stale copies are written), so a batch delivered twice after a crash or
//! restart changes nothing the second time. What each rename cost — copies rewritten and RU —
//! is reported to [`Propagations`] for the admin page that made it.

use cosmos::{PatchOperation, QueryOptions};
use serde_json::{json, Value};
use sitekit::background::propagation::{self, Propagations};

use super::featured_products::FEATURED_ID;
use crate::containers::Containers;

pub const PROCESSOR: &str = "renameCascade";

/// Handles one batch of changed `productMeta` documents, reporting each rename's copies and RU
/// to `progress` (under [`propagation::key`]`(type, id, new name)`).
pub async fn cascade_renames(
    c: &Containers,
    progress: &Propagations,
    changes: Vec<Value>,
) -> cosmos::Result<()> {
    for doc in changes {
        let (Some(id), Some(name), Some(kind)) = (
            doc["id"].as_str(),
            doc["name"].as_str(),
            doc["type"].as_str(),
        ) else {
            continue;
        };
        // Measured on a ledger of its own: the worker runs outside any page's.
        let (copies, spent) = match kind {
            "category" => cosmos::ledger::measured(rename_category_copies(c, id, name)).await,
            "tag" => cosmos::ledger::measured(rename_tag_copies(c, id, name)).await,
            _ => continue,
        };
        let key = propagation::key(kind, id, name);
        match copies {
            Ok(n) => progress.add(&key, n, spent.total(), true).await,
            Err(e) => {
                // The retry redoes only what is still stale: its copies count then.
                progress.add(&key, 0, spent.total(), false).await;
                return Err(e);
            }
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
) -> cosmos::Result<u64> {
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
    let mut copies = 0;
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
        copies += 1;
    }
    Ok(copies + rename_featured_copies(c, category_id, name).await?)
}

/// The `featured` document's copies of the category's name (one point read, one patch); how
/// many copies it rewrote.
async fn rename_featured_copies(
    c: &Containers,
    category_id: &str,
    name: &str,
) -> cosmos::Result<u64> {
    let featured = match c
        .product_meta
        .read_item::<Value>(FEATURED_ID, "featured", None)
        .await
    {
        Ok(r) => r,
        Err(cosmos::Error::NotFound { .. }) => return Ok(0),
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
        return Ok(0);
    }
    let copies = ops.len() as u64;
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
    Ok(copies)
}

async fn rename_tag_copies(c: &Containers, tag_id: &str, name: &str) -> cosmos::Result<u64> {
    let carriers = c
        .product
        .query_all::<Value>(
            "SELECT p.id, p.categoryId, p.tags FROM p WHERE ARRAY_CONTAINS(p.tags, {\"id\": @id}, true)",
            &[("@id", json!(tag_id))],
            QueryOptions::default(),
        )
        .await?;
    let mut copies = 0;
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
        copies += 1;
    }
    Ok(copies)
}
