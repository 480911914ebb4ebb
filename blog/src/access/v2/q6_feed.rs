//! [Q6] V2: the 100 newest posts, queried on `posts` sorted by date. Nothing to aggregate any
//! more, but no partition key to route on: every physical partition returns its own 100 newest
//! and the merge keeps 100 (532.33 RU in the article; V3's `feed`: 16.97 RU).

use cosmos::Labelled;
use cosmos::QueryOptions;

use super::Db;
use crate::access::Result;
use crate::model::{Post, PostShort};

/// The statement, also V1's (which then counts comments and likes and looks up the names).
pub const QUERY: &str =
    "SELECT TOP 100 * FROM p WHERE p.type = 'post' ORDER BY p.creationDate DESC";

pub async fn feed(db: &Db) -> Result<Vec<PostShort>> {
    let r = db
        .posts
        .query_items::<Post>(
            QUERY,
            cosmos::NO_PARAMS,
            QueryOptions {
                max_item_count: Some(100),
                ..Default::default()
            },
        )
        .labelled("[Q6] query newest posts")
        .await?;
    Ok(r.items.iter().map(Post::short).collect())
}
