//! [C3] Create a comment: the `createComment` stored procedure writes the comment and bumps the
//! post's `commentCount` in one transaction (the post and its comments share a partition).

use super::{DbOf, PostsContainer, Result};
use crate::model::Comment;
use cosmos::Labelled;

pub async fn create_comment<C: PostsContainer>(db: &DbOf<C>, comment: &Comment) -> Result<Comment> {
    let args = [
        serde_json::json!(comment.post_id),
        serde_json::to_value(comment).map_err(cosmos::Error::from)?,
    ];
    let r = db
        .posts()
        .execute_stored_procedure::<Comment>("createComment", comment.post_id.as_str(), &args)
        .labelled("[C3] execute createComment")
        .await?;
    Ok(r.resource)
}
