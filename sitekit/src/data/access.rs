//! What both apps' access patterns return: their error and a page of a listing. Each app names
//! them (`StoreError`, `BlogError`, `access::Page`) but they are one type, converted to a
//! [`WebError`] one way.

use cosmos::FeedResponse;

use crate::WebError;

/// Errors an access pattern reports beyond the engine's own.
#[derive(Debug, thiserror::Error)]
pub enum AccessError {
    /// A unique value (an email, a username) is someone else's: the message says which, in
    /// the words of the form that asked for it.
    #[error("{0}")]
    Taken(&'static str),
    /// Refused input, or a write lost to a concurrent one: the message is for the visitor.
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Engine(#[from] cosmos::Error),
}

impl From<AccessError> for WebError {
    fn from(e: AccessError) -> Self {
        match e {
            AccessError::Taken(m) => WebError::BadRequest(m.to_owned()),
            AccessError::Invalid(m) => WebError::BadRequest(m),
            AccessError::Engine(e) => WebError::Engine(e),
        }
    }
}

/// One page of a listing and where the next one starts.
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

#[cfg(test)]
mod tests {
    use actix_web::ResponseError;

    use super::*;

    #[test]
    fn refusals_are_400s_with_their_message_and_engine_errors_keep_their_status() {
        let web = WebError::from(AccessError::Taken("That username is taken."));
        assert_eq!(web.status_code(), 400);
        assert_eq!(web.to_string(), "That username is taken.");
        let web = WebError::from(AccessError::Invalid("too many addresses".into()));
        assert_eq!(web.to_string(), "too many addresses");
        let web = WebError::from(AccessError::Engine(cosmos::Error::Conflict {
            id: "x".into(),
        }));
        assert_eq!(web.status_code(), 409);
    }
}
