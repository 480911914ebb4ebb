//! [C4] V1: a like is one write to `posts` (7.05 RU in the article); the unique key of `posts`
//! makes a second like by the same user a 409. Unlike finds the user's like and deletes it.

use super::Db;
use crate::access::c4_like::like_of;
use crate::access::Result;
use crate::model::v1::LikeV1;
use crate::model::Like;
use cosmos::Labelled;

/// Ok(false) when the user had already liked the post.
pub async fn like(db: &Db, like: &Like) -> Result<bool> {
    // The post must exist (a like of nothing would be counted by Q2 forever).
    db.posts
        .read_item::<serde_json::Value>(&like.post_id, like.post_id.as_str(), None)
        .labelled("[C4] read post")
        .await?;
    match db
        .posts
        .create_item(&LikeV1::from(like), None, None)
        .labelled("[C4] create like")
        .await
    {
        Ok(_) => Ok(true),
        Err(cosmos::Error::UniqueKey { .. } | cosmos::Error::Conflict { .. }) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Ok(false) when the user had not liked the post.
pub async fn unlike(db: &Db, post_id: &str, user_id: &str) -> Result<bool> {
    let Some(id) = like_of(&db.posts, post_id, user_id).await? else {
        return Ok(false);
    };
    match db
        .posts
        .delete_item(&id, post_id, None)
        .labelled("[C4] delete like")
        .await
    {
        Ok(_) => Ok(true),
        // Another request took it back first.
        Err(cosmos::Error::NotFound { .. }) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Whether the user likes the post.
pub async fn likes_post(db: &Db, post_id: &str, user_id: &str) -> Result<bool> {
    Ok(like_of(&db.posts, post_id, user_id).await?.is_some())
}
