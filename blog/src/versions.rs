//! The article's three models behind one set of pages. Each model implements the requests the
//! pages make (its files in `access/`, `access/v2/`, `access/v1/`); the routes are written once,
//! generic over the model, and mounted at `/` (V3, the site), `/v2` and `/v1`. C1 and Q1 are the
//! same in all three and are called directly (`access::c1_user`, `access::q1_user`).

use crate::access::{self, v1, v2, DbOf, Page, PostsContainer, Result, UsersContainer};
use crate::model::{Comment, Like, Post, PostShort};

/// One of the article's models, as the pages use it.
#[allow(async_fn_in_trait)] // handlers run on actix's single-threaded workers: no Send needed
pub trait Version: 'static {
    type Containers: UsersContainer;
    /// "V1", "V2", "V3".
    const NAME: &'static str;
    /// Where its pages are mounted ("" for the site itself).
    const BASE: &'static str;

    async fn q2_post(db: &DbOf<Self::Containers>, post_id: &str) -> Result<Post>;
    async fn q3_user_posts(
        db: &DbOf<Self::Containers>,
        user_id: &str,
        continuation: Option<String>,
    ) -> Result<Page<PostShort>>;
    async fn q4_comments(
        db: &DbOf<Self::Containers>,
        post_id: &str,
        continuation: Option<String>,
    ) -> Result<Page<Comment>>;
    async fn q5_likes(
        db: &DbOf<Self::Containers>,
        post_id: &str,
        continuation: Option<String>,
    ) -> Result<Page<Like>>;
    async fn q6_feed(db: &DbOf<Self::Containers>) -> Result<Vec<PostShort>>;
    async fn c2_create_post(db: &DbOf<Self::Containers>, post: Post) -> Result<()>;
    async fn c2_edit_post(
        db: &DbOf<Self::Containers>,
        post_id: &str,
        title: &str,
        content: &str,
        html: &str,
    ) -> Result<()>;
    async fn c3_create_comment(db: &DbOf<Self::Containers>, comment: &Comment) -> Result<()>;
    /// Ok(false) when the user already liked the post.
    async fn c4_like(db: &DbOf<Self::Containers>, like: &Like) -> Result<bool>;
    /// Ok(false) when the user had not liked the post.
    async fn c4_unlike(db: &DbOf<Self::Containers>, post_id: &str, user_id: &str) -> Result<bool>;
    async fn likes_post(db: &DbOf<Self::Containers>, post_id: &str, user_id: &str) -> Result<bool>;
}

/// The site's model: denormalized posts, post copies in `users`, the `feed` container.
pub struct V3;
/// Denormalized posts, no copies: Q3 and Q6 fan out.
pub struct V2;
/// References only: extra queries for usernames and counts; Q3 and Q6 fan out.
pub struct V1;

/// V3 and V2: the denormalized models. Both keep whole posts, with their counts and author's
/// name, in `posts`, so every request but Q3 and Q6 is the same call; they differ in where a
/// user's posts and the feed come from (V3's copies in `users` and its `feed`; V2 fans out).
/// Each implements those two, and [`Version`] comes with the rest.
#[allow(async_fn_in_trait)] // as Version
pub trait Denormalized: 'static {
    type Containers: UsersContainer + PostsContainer;
    const NAME: &'static str;
    const BASE: &'static str;

    async fn q3_user_posts(
        db: &DbOf<Self::Containers>,
        user_id: &str,
        continuation: Option<String>,
    ) -> Result<Page<PostShort>>;
    async fn q6_feed(db: &DbOf<Self::Containers>) -> Result<Vec<PostShort>>;
}

impl Denormalized for V3 {
    type Containers = crate::containers::Containers;
    const NAME: &'static str = "V3";
    const BASE: &'static str = "";

    async fn q3_user_posts(
        db: &access::Db,
        user_id: &str,
        continuation: Option<String>,
    ) -> Result<Page<PostShort>> {
        access::q3_user_posts::user_posts(db, user_id, continuation).await
    }
    async fn q6_feed(db: &access::Db) -> Result<Vec<PostShort>> {
        access::q6_feed::feed(db).await
    }
}

impl Denormalized for V2 {
    type Containers = v2::Containers;
    const NAME: &'static str = "V2";
    const BASE: &'static str = "/v2";

    async fn q3_user_posts(
        db: &v2::Db,
        user_id: &str,
        continuation: Option<String>,
    ) -> Result<Page<PostShort>> {
        v2::q3_user_posts::user_posts(db, user_id, continuation).await
    }
    async fn q6_feed(db: &v2::Db) -> Result<Vec<PostShort>> {
        v2::q6_feed::feed(db).await
    }
}

impl<M: Denormalized> Version for M {
    type Containers = M::Containers;
    const NAME: &'static str = M::NAME;
    const BASE: &'static str = M::BASE;

    async fn q2_post(db: &DbOf<M::Containers>, post_id: &str) -> Result<Post> {
        access::q2_post::post(db, post_id).await
    }
    async fn q3_user_posts(
        db: &DbOf<M::Containers>,
        user_id: &str,
        continuation: Option<String>,
    ) -> Result<Page<PostShort>> {
        M::q3_user_posts(db, user_id, continuation).await
    }
    async fn q4_comments(
        db: &DbOf<M::Containers>,
        post_id: &str,
        continuation: Option<String>,
    ) -> Result<Page<Comment>> {
        access::q4_comments::comments(db, post_id, continuation).await
    }
    async fn q5_likes(
        db: &DbOf<M::Containers>,
        post_id: &str,
        continuation: Option<String>,
    ) -> Result<Page<Like>> {
        access::q5_likes::likes(db, post_id, continuation).await
    }
    async fn q6_feed(db: &DbOf<M::Containers>) -> Result<Vec<PostShort>> {
        M::q6_feed(db).await
    }
    async fn c2_create_post(db: &DbOf<M::Containers>, post: Post) -> Result<()> {
        access::c2_post::create_post(db, post).await.map(drop)
    }
    async fn c2_edit_post(
        db: &DbOf<M::Containers>,
        id: &str,
        title: &str,
        content: &str,
        html: &str,
    ) -> Result<()> {
        access::c2_post::edit_post(db, id, title, content, html)
            .await
            .map(drop)
    }
    async fn c3_create_comment(db: &DbOf<M::Containers>, comment: &Comment) -> Result<()> {
        access::c3_comment::create_comment(db, comment)
            .await
            .map(drop)
    }
    async fn c4_like(db: &DbOf<M::Containers>, like: &Like) -> Result<bool> {
        access::c4_like::like(db, like).await
    }
    async fn c4_unlike(db: &DbOf<M::Containers>, post_id: &str, user_id: &str) -> Result<bool> {
        access::c4_like::unlike(db, post_id, user_id).await
    }
    async fn likes_post(db: &DbOf<M::Containers>, post_id: &str, user_id: &str) -> Result<bool> {
        access::c4_like::likes_post(db, post_id, user_id).await
    }
}

impl Version for V1 {
    type Containers = v1::Containers;
    const NAME: &'static str = "V1";
    const BASE: &'static str = "/v1";

    async fn q2_post(db: &v1::Db, post_id: &str) -> Result<Post> {
        v1::q2_post::post(db, post_id).await
    }
    async fn q3_user_posts(
        db: &v1::Db,
        user_id: &str,
        continuation: Option<String>,
    ) -> Result<Page<PostShort>> {
        v1::q3_user_posts::user_posts(db, user_id, continuation).await
    }
    async fn q4_comments(
        db: &v1::Db,
        post_id: &str,
        continuation: Option<String>,
    ) -> Result<Page<Comment>> {
        v1::q4_comments::comments(db, post_id, continuation).await
    }
    async fn q5_likes(
        db: &v1::Db,
        post_id: &str,
        continuation: Option<String>,
    ) -> Result<Page<Like>> {
        v1::q5_likes::likes(db, post_id, continuation).await
    }
    async fn q6_feed(db: &v1::Db) -> Result<Vec<PostShort>> {
        v1::q6_feed::feed(db).await
    }
    async fn c2_create_post(db: &v1::Db, post: Post) -> Result<()> {
        v1::c2_post::create_post(db, &post).await
    }
    /// V1's posts keep no rendered HTML (the article's V1 model): its views render.
    async fn c2_edit_post(
        db: &v1::Db,
        id: &str,
        title: &str,
        content: &str,
        _html: &str,
    ) -> Result<()> {
        v1::c2_post::edit_post(db, id, title, content).await
    }
    async fn c3_create_comment(db: &v1::Db, comment: &Comment) -> Result<()> {
        v1::c3_comment::create_comment(db, comment).await
    }
    async fn c4_like(db: &v1::Db, like: &Like) -> Result<bool> {
        v1::c4_like::like(db, like).await
    }
    async fn c4_unlike(db: &v1::Db, post_id: &str, user_id: &str) -> Result<bool> {
        v1::c4_like::unlike(db, post_id, user_id).await
    }
    async fn likes_post(db: &v1::Db, post_id: &str, user_id: &str) -> Result<bool> {
        v1::c4_like::likes_post(db, post_id, user_id).await
    }
}

/// The change-feed workers a model runs (V1: none), for the account page's "is my new name
/// everywhere yet?": the sites' shared set of workers.
pub use sitekit::background::workers::Workers;
