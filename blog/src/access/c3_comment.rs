//! [C3] Create a comment: the `createComment` stored procedure writes the comment and bumps the
//! post's `commentCount` in one transaction (the post and its comments share a partition).

use super::{DbOf, PostsContainer, Result};
use crate::model::Comment;

pub async fn create_comment<C: PostsContainer>(db: &DbOf<C>, comment: &Comment) -> Result<Comment> {
    let args = [
        serde_json::json!(comment.post_id),
        serde_json::to_value(comment).map_err(engine::Error::from)?,
    ];
    let r = db
        .posts()
        .scripts()
        .execute_stored_procedure::<Comment>("createComment", comment.post_id.as_str(), &args)
        .await?;
    db.ru
        .procedure("[C3] execute createComment", db.posts(), &r);
    Ok(r.resource)
}
