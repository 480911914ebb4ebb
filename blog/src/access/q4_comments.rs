//! [Q4] List a post's comments: one single-partition query on the post's partition, usernames
//! included (denormalized), paged (7.72 RU in the article for V2/V3).

use cosmos::Labelled;
use cosmos::QueryOptions;
use serde_json::json;

use super::{DbOf, Page, PostsContainer, Result};
use crate::model::Comment;

pub const PAGE_SIZE: usize = 25;
/// The statement, also V1's (which then looks up each commenter's name).
pub const QUERY: &str =
    "SELECT * FROM p WHERE p.postId = @postId AND p.type = 'comment' ORDER BY p.creationDate";

pub async fn comments<C: PostsContainer>(
    db: &DbOf<C>,
    post_id: &str,
    continuation: Option<String>,
) -> Result<Page<Comment>> {
    let r = db
        .posts()
        .query_items::<Comment>(
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
    Ok(r.into())
}
