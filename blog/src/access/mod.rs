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

use cosmos::Container;

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

/// What a request refuses beyond the engine's own errors (shared with WebStore).
pub use sitekit::data::access::{AccessError as BlogError, Page};

/// A sign-up or rename to a name someone holds ([`BlogError::Taken`]).
pub const USERNAME_TAKEN: &str = "That username is taken.";

pub type Result<T, E = BlogError> = std::result::Result<T, E>;
