//! [Q5] V1: a post's likes (a single-partition query), then the username of every liker
//! (58.92 RU in the article; V2 denormalizes the names: 8.92 RU).

use cosmos::Labelled;
use cosmos::QueryOptions;
use serde_json::json;

use super::{lookups, Db};
use crate::access::q5_likes::{PAGE_SIZE, QUERY};
use crate::access::{Page, Result};
use crate::model::v1::LikeV1;
use crate::model::Like;

pub async fn likes(db: &Db, post_id: &str, continuation: Option<String>) -> Result<Page<Like>> {
    let r = db
        .posts
        .query_items::<LikeV1>(
            QUERY,
            &[("@postId", json!(post_id))],
            QueryOptions {
                partition_key: Some(post_id.into()),
                max_item_count: Some(PAGE_SIZE),
                continuation,
                ..Default::default()
            },
        )
        .labelled("[Q5] query likes")
        .await?;
    let names = lookups::usernames(db, "[Q5]", r.items.iter().map(|l| l.user_id.as_str())).await?;
    Ok(Page {
        items: r
            .items
            .into_iter()
            .map(|l| {
                let name = lookups::name_of(&names, &l.user_id);
                l.with(name)
            })
            .collect(),
        continuation: r.continuation,
    })
}
