//! [C2] Create/edit a post: one write to `posts` (8.76 RU in the article). The author's username
//! and zeroed counts go in with it (V2's denormalization); the change feed then copies the post
//! in short form to its author's partition of `users` (Q3) and to `feed` (Q6).

use cosmos::Labelled;
use cosmos::PatchOperation;
use serde_json::json;

use super::{DbOf, PostsContainer, Result};
use crate::model::Post;

pub async fn create_post<C: PostsContainer>(db: &DbOf<C>, post: Post) -> Result<Post> {
    let r = db
        .posts()
        .create_item(&post, None, None)
        .labelled("[C2] create post")
        .await?;
    Ok(r.resource.unwrap_or(post))
}

/// Edits title and content with a patch, so counts bumped meanwhile by comments and likes are
/// never overwritten.
pub async fn edit_post<C: PostsContainer>(
    db: &DbOf<C>,
    post_id: &str,
    title: &str,
    content: &str,
    html: &str,
) -> Result<Post> {
    let r = db
        .posts()
        .patch_item::<Post>(
            post_id,
            post_id,
            &[
                PatchOperation::set("/title", json!(title)),
                PatchOperation::set("/content", json!(content)),
                PatchOperation::set("/html", json!(html)),
            ],
            None,
        )
        .labelled("[C2] edit post")
        .await?;
    r.resource.ok_or_else(|| {
        cosmos::Error::NotFound {
            what: format!("post {post_id}"),
        }
        .into()
    })
}
