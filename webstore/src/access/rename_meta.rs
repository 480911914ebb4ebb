//! Renaming a category or a tag in the back office: one replace of its `productMeta` document,
//! guarded by its etag. The copies of the name in products are not touched here: the change feed
//! carries the rename to them (see `cascade_renames`), out of band, as `000_*` does with an Azure
//! Function.

use cosmos::ItemOptions;
use cosmos::Labelled;
use serde_json::Value;

use super::{Db, Result, StoreError};

/// Renames the `kind` ("category" or "tag") document `id`; returns the old name.
pub async fn rename_meta(db: &Db, kind: &str, id: &str, new_name: &str) -> Result<String> {
    let current = db
        .product_meta
        .read_item::<Value>(id, kind, None)
        .labelled(format!("[C4] read {kind}"))
        .await?;
    let mut doc = current.resource.unwrap_or_default();
    let old = doc["name"].as_str().unwrap_or_default().to_owned();
    doc["name"] = Value::from(new_name);
    // When, so the back office asks whether the rename reached the products only while it may
    // not have (Unix seconds).
    doc["renamedAt"] = Value::from(sitekit::pages::time::unix_now());
    db.product_meta
        .replace_item(
            &doc,
            id,
            Some(kind.into()),
            current.etag.map(ItemOptions::if_match),
        )
        .labelled(format!("[C4] replace {kind}"))
        .await
        .map_err(|e| match e {
            cosmos::Error::PreconditionFailed { .. } => {
                StoreError::Invalid(format!("The {kind} changed meanwhile; please try again."))
            }
            e => e.into(),
        })?;
    Ok(old)
}

/// The current name of a category or tag (a point read), for pages that have no copy of it.
pub async fn meta_name(db: &Db, kind: &str, id: &str) -> Result<String> {
    let r = db
        .product_meta
        .read_item::<Value>(id, kind, None)
        .labelled(format!("[C4] read {kind}"))
        .await?;
    Ok(r.resource
        .and_then(|d| d["name"].as_str().map(str::to_owned))
        .unwrap_or_default())
}
