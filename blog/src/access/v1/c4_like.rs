//! [C4] V1: a like is one write to `posts` (7.05 RU in the article); its id is the liker's, so a
//! second like by the same user is a 409. Unlike deletes it.

use super::Db;
use crate::access::Result;
use crate::model::v1::LikeV1;
use crate::model::Like;

/// Ok(false) when the user had already liked the post.
pub async fn like(db: &Db, like: &Like) -> Result<bool> {
    // The post must exist (a like of nothing would be counted by Q2 forever).
    let post = db
        .posts
        .read_item::<serde_json::Value>(&like.post_id, like.post_id.as_str(), None)
        .await?;
    db.ru.item("[C4] read post", &db.posts, &post);
    match db.posts.create_item(&LikeV1::from(like), None, None).await {
        Ok(r) => {
            db.ru.item("[C4] create like", &db.posts, &r);
            Ok(true)
        }
        Err(engine::Error::Conflict { .. }) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Ok(false) when the user had not liked the post.
pub async fn unlike(db: &Db, post_id: &str, user_id: &str) -> Result<bool> {
    match db
        .posts
        .delete_item(&Like::id_for(user_id), post_id, None)
        .await
    {
        Ok(r) => {
            db.ru.item("[C4] delete like", &db.posts, &r);
            Ok(true)
        }
        Err(engine::Error::NotFound { .. }) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Whether the user likes the post: a point read of the like's id.
pub async fn likes_post(db: &Db, post_id: &str, user_id: &str) -> Result<bool> {
    match db
        .posts
        .read_item::<serde_json::Value>(&Like::id_for(user_id), post_id, None)
        .await
    {
        Ok(r) => {
            db.ru.item("read own like", &db.posts, &r);
            Ok(true)
        }
        Err(engine::Error::NotFound { .. }) => Ok(false),
        Err(e) => Err(e.into()),
    }
}
