//! [Q3] V1: a user's posts, queried on `posts` by `userId` — not the partition key, so every
//! physical partition is visited — then, for every post returned, its comment and like counts,
//! and the author's username (619.41 RU in the article; V3: 6.46 RU).

use cosmos::Labelled;
use cosmos::QueryOptions;
use serde_json::json;

use super::{lookups, Db};
use crate::access::v2::q3_user_posts::QUERY;
use crate::access::{Page, Result};
use crate::model::v1::PostV1;
use crate::model::PostShort;

pub async fn user_posts(
    db: &Db,
    user_id: &str,
    continuation: Option<String>,
) -> Result<Page<PostShort>> {
    let r = db
        .posts
        .query_items::<PostV1>(
            QUERY,
            &[("@userId", json!(user_id))],
            QueryOptions {
                max_item_count: Some(20),
                continuation,
                ..Default::default()
            },
        )
        .labelled("[Q3] query user's posts")
        .await?;
    let names = lookups::usernames(db, "[Q3]", [user_id]).await?;
    let mut items = Vec::with_capacity(r.items.len());
    for post in r.items {
        let (comments, likes) = lookups::counts(db, "[Q3]", &post.post_id).await?;
        let name = lookups::name_of(&names, &post.user_id);
        items.push(post.with(name, comments, likes).short());
    }
    Ok(Page {
        items,
        continuation: r.continuation,
    })
}
