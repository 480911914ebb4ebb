//! The requests of `004_*`, one file each (C1–C4 commands, Q1–Q6 queries), holding every engine
//! call the request makes on the V3 model. Lay a file beside the article's section of the same
//! name.

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

use engine::FeedResponse;

pub type Db = sitekit::Db<crate::containers::Containers>;

#[derive(Debug, thiserror::Error)]
pub enum BlogError {
    #[error("That username is taken.")]
    UsernameTaken,
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Engine(#[from] engine::Error),
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

/// A bad continuation in a URL is the visitor's mistake, not a server fault.
pub(crate) fn continuation_error(e: engine::Error) -> BlogError {
    match e {
        engine::Error::BadRequest { field: Some(f), .. } if f == "continuation" => {
            BlogError::Invalid("That page link is no longer valid.".into())
        }
        e => e.into(),
    }
}
