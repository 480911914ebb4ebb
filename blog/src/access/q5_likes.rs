//! [Q5] List a post's likes: one single-partition query, usernames included (8.92 RU in the
//! article for V2/V3).

use cosmos::Labelled;
use cosmos::QueryOptions;
use serde_json::json;

use super::{DbOf, Page, PostsContainer, Result};
use crate::model::Like;

pub const PAGE_SIZE: usize = 100;
/// The statement, also V1's (which then looks up each liker's name).
pub const QUERY: &str =
    "SELECT * FROM p WHERE p.postId = @postId AND p.type = 'like' ORDER BY p.creationDate";

pub async fn likes<C: PostsContainer>(
    db: &DbOf<C>,
    post_id: &str,
    continuation: Option<String>,
) -> Result<Page<Like>> {
    let r = db
        .posts()
        .query_items::<Like>(
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
    Ok(r.into())
}
