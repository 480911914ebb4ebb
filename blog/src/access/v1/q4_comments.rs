//! [Q4] V1: a post's comments (a single-partition query), then the username of every commenter
//! (27.72 RU in the article; V2 denormalizes the names: 7.72 RU).

use cosmos::Labelled;
use cosmos::QueryOptions;
use serde_json::json;

use super::{lookups, Db};
use crate::access::q4_comments::{PAGE_SIZE, QUERY};
use crate::access::{Page, Result};
use crate::model::v1::CommentV1;
use crate::model::Comment;

pub async fn comments(
    db: &Db,
    post_id: &str,
    continuation: Option<String>,
) -> Result<Page<Comment>> {
    let r = db
        .posts
        .query_items::<CommentV1>(
            QUERY,
            &[("@postId", json!(post_id))],
            QueryOptions {
                partition_key: Some(post_id.into()),
                max_item_count: Some(PAGE_SIZE),
                continuation,
                ..Default::default()
            },
        )
        .labelled("[Q4] query comments")
        .await?;
    let names = lookups::usernames(db, "[Q4]", r.items.iter().map(|c| c.user_id.as_str())).await?;
    Ok(Page {
        items: r
            .items
            .into_iter()
            .map(|c| {
                let name = lookups::name_of(&names, &c.user_id);
                c.with(name)
            })
            .collect(),
        continuation: r.continuation,
    })
}
