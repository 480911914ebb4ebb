//! [Q2] Retrieve a post: with the author's username and the counts denormalized into it, one
//! point read (V1 needed 19.54 RU of extra queries; V2 and V3: 1 RU).

use super::{DbOf, PostsContainer, Result};
use crate::model::Post;
use cosmos::Labelled;

pub async fn post<C: PostsContainer>(db: &DbOf<C>, post_id: &str) -> Result<Post> {
    let r = db
        .posts()
        .read_item::<Post>(post_id, post_id, None)
        .labelled("[Q2] read post")
        .await?;
    r.resource.filter(|p| p.kind == "post").ok_or_else(|| {
        cosmos::Error::NotFound {
            what: format!("post {post_id}"),
        }
        .into()
    })
}
