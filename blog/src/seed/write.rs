//! Writing a generated user into each model's containers: upserts and transactional batches (a
//! post with its comments, then its likes), so a restarted seed rewrites the same items and a
//! post's counts always equal the comments and likes stored with it.

use cosmos::{Container, TransactionalBatch};
use serde::Serialize;

use super::generate::Generated;
use crate::access::{v1, v2};
use crate::containers::Containers;
use crate::model::v1::{CommentV1, LikeV1, PostV1};
use crate::model::PostShort;

/// Items per batch: a post's likes go in chunks of this many.
const BATCH: usize = 100;

async fn run(c: &Container, b: TransactionalBatch) -> cosmos::Result<()> {
    let r = c.execute_batch(b).await?;
    match r.error_message {
        Some(e) => Err(cosmos::Error::bad_request(format!("seeding failed: {e}"))),
        None => Ok(()),
    }
}

/// A post with its comments in one batch, its likes in batches of [`BATCH`].
async fn post_with_replies<P: Serialize, C: Serialize, L: Serialize>(
    c: &Container,
    post_id: &str,
    post: &P,
    comments: &[C],
    likes: &[L],
) -> cosmos::Result<()> {
    let mut b = TransactionalBatch::new(post_id).upsert_item(post);
    for cm in comments {
        b = b.upsert_item(cm);
    }
    run(c, b).await?;
    for chunk in likes.chunks(BATCH) {
        let mut b = TransactionalBatch::new(post_id);
        for l in chunk {
            b = b.upsert_item(l);
        }
        run(c, b).await?;
    }
    Ok(())
}

/// V3: the user with short copies of their posts in their partition of `users`; returns the
/// short copies (the feed is written once all users are).
pub async fn v3(c: &Containers, g: &Generated) -> cosmos::Result<Vec<PostShort>> {
    for claim in &g.claims {
        c.users.upsert_item(claim, None, None).await?;
    }
    let mut user_batch = TransactionalBatch::new(g.user.user_id.as_str()).upsert_item(&g.user);
    let mut shorts = Vec::with_capacity(g.posts.len());
    for (post, comments, likes) in &g.posts {
        post_with_replies(&c.posts, &post.post_id, post, comments, likes).await?;
        let short = post.short();
        user_batch = user_batch.upsert_item(&short);
        shorts.push(short);
    }
    run(&c.users, user_batch).await?;
    Ok(shorts)
}

/// V2: the same posts, comments and likes as V3; `users` holds the user only.
pub async fn v2(c: &v2::Containers, g: &Generated) -> cosmos::Result<()> {
    for claim in &g.claims {
        c.users.upsert_item(claim, None, None).await?;
    }
    for (post, comments, likes) in &g.posts {
        post_with_replies(&c.posts, &post.post_id, post, comments, likes).await?;
    }
    c.users.upsert_item(&g.user, None, None).await?;
    Ok(())
}

/// V1: posts, comments and likes without usernames or counts.
pub async fn v1(c: &v1::Containers, g: &Generated) -> cosmos::Result<()> {
    for claim in &g.claims {
        c.users.upsert_item(claim, None, None).await?;
    }
    for (post, comments, likes) in &g.posts {
        let comments: Vec<CommentV1> = comments.iter().map(CommentV1::from).collect();
        let likes: Vec<LikeV1> = likes.iter().map(LikeV1::from).collect();
        post_with_replies(
            &c.posts,
            &post.post_id,
            &PostV1::from(post),
            &comments,
            &likes,
        )
        .await?;
    }
    c.users.upsert_item(&g.user, None, None).await?;
    Ok(())
}
