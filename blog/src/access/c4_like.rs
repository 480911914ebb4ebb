//! [C4] Like a post, and take the like back: stored procedures that write (or delete) the like
//! and change the post's `likeCount` in one transaction. A like's id is its user's, so a second
//! like by the same user is refused (409) without changing the count.

use cosmos::Labelled;
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
        Err(cosmos::Error::Conflict { .. }) => Ok(false),
        Err(e) => Err(BlogError::from(e)),
    }
}

/// Ok(false) when the user had not liked the post.
pub async fn unlike<C: PostsContainer>(db: &DbOf<C>, post_id: &str, user_id: &str) -> Result<bool> {
    let args = [json!(post_id), json!(Like::id_for(user_id))];
    match db
        .posts()
        .execute_stored_procedure::<serde_json::Value>("deleteLike", post_id, &args)
        .labelled("[C4] execute deleteLike")
        .await
    {
        Ok(_) => Ok(true),
        // The post exists (the caller checked): the like does not.
        Err(cosmos::Error::NotFound { .. }) => Ok(false),
        Err(e) => Err(BlogError::from(e)),
    }
}

/// Whether the user likes the post: a point read of the like's id.
pub async fn likes_post<C: PostsContainer>(
    db: &DbOf<C>,
    post_id: &str,
    user_id: &str,
) -> Result<bool> {
    match db
        .posts()
        .read_item::<serde_json::Value>(&Like::id_for(user_id), post_id, None)
        .labelled("read own like")
        .await
    {
        Ok(_) => Ok(true),
        Err(cosmos::Error::NotFound { .. }) => Ok(false),
        Err(e) => Err(e.into()),
    }
}
