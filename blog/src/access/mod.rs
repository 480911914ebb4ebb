//! The requests of `004_*`, one file each (C1–C4 commands, Q1–Q6 queries), holding every engine
//! call the request makes on the V3 model. Lay a file beside the article's section of the same
//! name. V2 runs the same requests but Q3 and Q6 (`v2/`); V1 runs its own, with the extra
//! queries the article starts from (`v1/`). Only C1 and Q1 are the same in all three.

pub mod c1_user;
pub mod c2_post;
pub mod c3_comment;
pub mod c4_like;
pub mod q1_user;
pub mod q2_post;
pub mod q3_user_posts;
pub mod q4_comments;
pub mod q5_likes;
pub mod q6_feed;
pub mod sign_in;
pub mod v1;
pub mod v2;

use cosmos::{Container, FeedResponse};

/// The V3 model's containers with the request's RU ledger.
pub type Db = sitekit::Db<crate::containers::Containers>;
/// Any model's containers with the request's RU ledger.
pub type DbOf<C> = sitekit::Db<C>;

/// A model with the article's `users` container (all three): C1 and Q1 are written once.
pub trait UsersContainer: 'static {
    fn users(&self) -> &Container;
}

/// A model whose `posts` hold V2's denormalized posts, comments and likes (V2 and V3): C2–C4,
/// Q2, Q4 and Q5 are written once.
pub trait PostsContainer: 'static {
    fn posts(&self) -> &Container;
}

impl UsersContainer for crate::containers::Containers {
    fn users(&self) -> &Container {
        &self.users
    }
}

impl PostsContainer for crate::containers::Containers {
    fn posts(&self) -> &Container {
        &self.posts
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BlogError {
    #[error("That username is taken.")]
    UsernameTaken,
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Engine(#[from] cosmos::Error),
}

impl From<BlogError> for sitekit::WebError {
    fn from(e: BlogError) -> Self {
        match e {
            BlogError::UsernameTaken => sitekit::WebError::BadRequest(e.to_string()),
            BlogError::Invalid(m) => sitekit::WebError::BadRequest(m),
            BlogError::Engine(e) => sitekit::WebError::Engine(e),
        }
    }
}

pub type Result<T, E = BlogError> = std::result::Result<T, E>;

/// One page of a listing and where the next starts.
#[derive(Debug, Clone)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub continuation: Option<String>,
}

impl<T> From<FeedResponse<T>> for Page<T> {
    fn from(r: FeedResponse<T>) -> Self {
        Page {
            items: r.items,
            continuation: r.continuation,
        }
    }
}
