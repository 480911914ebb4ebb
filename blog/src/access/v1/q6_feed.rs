//! [Q6] V1: the 100 newest posts, sorted by date across every physical partition of `posts`,
//! then each post's author username and comment and like counts, one by one (2 063.54 RU in the
//! article; V3's `feed`: 16.97 RU).

use cosmos::Labelled;
use cosmos::QueryOptions;

use super::{lookups, Db};
use crate::access::v2::q6_feed::QUERY;
use crate::access::Result;
use crate::model::v1::PostV1;
use crate::model::PostShort;

pub async fn feed(db: &Db) -> Result<Vec<PostShort>> {
    let r = db
        .posts
        .query_items::<PostV1>(
            QUERY,
            cosmos::NO_PARAMS,
            QueryOptions {
                max_item_count: Some(100),
                ..Default::default()
            },
        )
        .labelled("[Q6] query newest posts")
        .await?;
    let names = lookups::usernames(db, "[Q6]", r.items.iter().map(|p| p.user_id.as_str())).await?;
    let mut posts = Vec::with_capacity(r.items.len());
    for post in r.items {
        let (comments, likes) = lookups::counts(db, "[Q6]", &post.post_id).await?;
        let name = lookups::name_of(&names, &post.user_id);
        posts.push(post.with(name, comments, likes).short());
    }
    Ok(posts)
}
