//! [Q6] List the 100 most recent posts in short form: V3 serves it from `feed`, whose posts all
//! sit in one logical partition (`type = "post"`) kept at 100 by the `truncateFeed` post-trigger:
//! one single-partition query (16.97 RU in the article, against 2 063.54 RU for V1's fan-out).

use cosmos::Labelled;
use cosmos::QueryOptions;

use super::{Db, Result};
use crate::model::PostShort;

pub async fn feed(db: &Db) -> Result<Vec<PostShort>> {
    let r = db
        .feed
        .query_items::<PostShort>(
            "SELECT TOP 100 * FROM f WHERE f.type = 'post' ORDER BY f.creationDate DESC",
            cosmos::NO_PARAMS,
            QueryOptions {
                partition_key: Some("post".into()),
                max_item_count: Some(100),
                ..Default::default()
            },
        )
        .labelled("[Q6] query feed")
        .await?;
    Ok(r.items)
}
