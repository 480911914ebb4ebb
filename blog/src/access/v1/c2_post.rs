//! [C2] V1: create or edit a post: one write to `posts`, without username or counts (8.76 RU in
//! the article).

use cosmos::Labelled;
use cosmos::PatchOperation;
use serde_json::json;

use super::Db;
use crate::access::Result;
use crate::model::v1::PostV1;
use crate::model::Post;

pub async fn create_post(db: &Db, post: &Post) -> Result<()> {
    db.posts
        .create_item(&PostV1::from(post), None, None)
        .labelled("[C2] create post")
        .await?;
    Ok(())
}

pub async fn edit_post(db: &Db, post_id: &str, title: &str, content: &str) -> Result<()> {
    db.posts
        .patch_item::<PostV1>(
            post_id,
            post_id,
            &[
                PatchOperation::set("/title", json!(title)),
                PatchOperation::set("/content", json!(content)),
            ],
            None,
        )
        .labelled("[C2] edit post")
        .await?;
    Ok(())
}
