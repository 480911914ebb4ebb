//! [C4] Like a post, and take the like back: stored procedures that write (or delete) the like
//! and change the post's `likeCount` in one transaction. The unique key of `posts`
//! (`containers::POSTS_UNIQUE_KEY`) makes a second like by the same user a 409 inside
//! `createLike`, which leaves the count as it was.

use cosmos::{Container, Labelled, QueryOptions};
use serde_json::json;

use super::{BlogError, DbOf, PostsContainer, Result};
use crate::model::Like;

/// Ok(false) when the user had already liked the post.
pub async fn like<C: PostsContainer>(db: &DbOf<C>, like: &Like) -> Result<bool> {
    let args = [
        json!(like.post_id),
        serde_json::to_value(like).map_err(cosmos::Error::from)?,
    ];
    match db
        .posts()
        .execute_stored_procedure::<serde_json::Value>("createLike", like.post_id.as_str(), &args)
        .labelled("[C4] execute createLike")
        .await
    {
        Ok(_) => Ok(true),
        Err(cosmos::Error::UniqueKey { .. } | cosmos::Error::Conflict { .. }) => Ok(false),
        Err(e) => Err(BlogError::from(e)),
    }
}

/// Ok(false) when the user had not liked the post.
pub async fn unlike<C: PostsContainer>(db: &DbOf<C>, post_id: &str, user_id: &str) -> Result<bool> {
    let r = db
        .posts()
        .execute_stored_procedure::<serde_json::Value>(
            "deleteLike",
            post_id,
            &[json!(post_id), json!(user_id)],
        )
        .labelled("[C4] execute deleteLike")
        .await?;
    Ok(r.resource == json!(true))
}

/// Whether the user likes the post.
pub async fn likes_post<C: PostsContainer>(
    db: &DbOf<C>,
    post_id: &str,
    user_id: &str,
) -> Result<bool> {
    Ok(like_of(db.posts(), post_id, user_id).await?.is_some())
}

/// The id of the user's like of the post, if any: a query in the post's partition (the like's id
/// says nothing of its user; the unique key keeps it to one).
pub async fn like_of(posts: &Container, post_id: &str, user_id: &str) -> Result<Option<String>> {
    let r = posts
        .query_all::<String>(
            "SELECT VALUE p.id FROM p WHERE p.type = 'like' AND p.userId = @userId",
            &[("@userId", json!(user_id))],
            QueryOptions {
                partition_key: Some(post_id.into()),
                ..Default::default()
            },
        )
        .labelled("[C4] query own like")
        .await?;
    Ok(r.items.into_iter().next())
}
