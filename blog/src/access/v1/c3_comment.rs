//! [C3] V1: a comment is one write to `posts`: no count to keep (8.57 RU in the article; V2's
//! stored procedure also bumps the post's `commentCount`: 15.27 RU).

use super::Db;
use crate::access::Result;
use crate::model::v1::CommentV1;
use crate::model::Comment;
use cosmos::Labelled;

pub async fn create_comment(db: &Db, comment: &Comment) -> Result<()> {
    // The post must exist (V2's procedure reads it anyway; here it is one more point read).
    db.posts
        .read_item::<serde_json::Value>(&comment.post_id, comment.post_id.as_str(), None)
        .labelled("[C3] read post")
        .await?;
    db.posts
        .create_item(&CommentV1::from(comment), None, None)
        .labelled("[C3] create comment")
        .await?;
    Ok(())
}
