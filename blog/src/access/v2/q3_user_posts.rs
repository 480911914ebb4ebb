//! [Q3] V2: a user's posts, queried on `posts` by `userId`. Usernames and counts are in the posts
//! now (no extra queries), but `posts` is partitioned by `postId`, so the query visits every
//! physical partition (201.54 RU in the article; V3 moves it to `users`: 6.46 RU).

use cosmos::Labelled;
use cosmos::QueryOptions;
use serde_json::json;

use super::Db;
use crate::access::{Page, Result};
use crate::model::{Post, PostShort};

/// The statement, also V1's (which then counts comments and likes and looks up the name).
pub const QUERY: &str =
    "SELECT * FROM p WHERE p.userId = @userId AND p.type = 'post' ORDER BY p.creationDate DESC";

pub async fn user_posts(
    db: &Db,
    user_id: &str,
    continuation: Option<String>,
) -> Result<Page<PostShort>> {
    let r = db
        .posts
        .query_items::<Post>(
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
    Ok(Page {
        items: r.items.iter().map(Post::short).collect(),
        continuation: r.continuation,
    })
}
