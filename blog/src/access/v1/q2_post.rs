//! [Q2] V1: the post, then three more requests for what the page shows beside it: the author's
//! username (a point read in `users`) and the comment and like counts (two count queries in the
//! post's partition). Four operations for one post (19.54 RU in the article; V2: 1 RU).

use super::{lookups, Db};
use crate::access::Result;
use crate::model::v1::PostV1;
use crate::model::Post;
use cosmos::Labelled;

pub async fn post(db: &Db, post_id: &str) -> Result<Post> {
    let r = db
        .posts
        .read_item::<PostV1>(post_id, post_id, None)
        .labelled("[Q2] read post")
        .await?;
    let post = r
        .resource
        .filter(|p| p.kind == "post")
        .ok_or_else(|| cosmos::Error::NotFound {
            what: format!("post {post_id}"),
        })?;
    let names = lookups::usernames(db, "[Q2]", [post.user_id.as_str()]).await?;
    let (comments, likes) = lookups::counts(db, "[Q2]", post_id).await?;
    let name = lookups::name_of(&names, &post.user_id);
    Ok(post.with(name, comments, likes))
}
