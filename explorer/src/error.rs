//! The explorer's errors: a write refused because the explorer is read-only, or anything
//! sitekit already knows how to answer (engine errors keep their Cosmos DB status codes).

use actix_web::http::header::ContentType;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use sitekit::WebError;

#[derive(Debug, thiserror::Error)]
pub enum ExplorerError {
    #[error(
        "The explorer is read-only: restart it with --explorer-writes (EXPLORER_WRITES=true) to \
         edit or delete items and run stored procedures."
    )]
    ReadOnly,
    #[error(transparent)]
    Web(#[from] WebError),
}

impl From<engine::Error> for ExplorerError {
    fn from(e: engine::Error) -> Self {
        ExplorerError::Web(WebError::Engine(e))
    }
}

impl From<askama::Error> for ExplorerError {
    fn from(e: askama::Error) -> Self {
        ExplorerError::Web(e.into())
    }
}

impl ResponseError for ExplorerError {
    fn status_code(&self) -> StatusCode {
        match self {
            ExplorerError::ReadOnly => StatusCode::FORBIDDEN,
            ExplorerError::Web(e) => e.status_code(),
        }
    }

    fn error_response(&self) -> HttpResponse {
        match self {
            ExplorerError::Web(e) => e.error_response(),
            ExplorerError::ReadOnly => {
                let status = self.status_code();
                HttpResponse::build(status)
                    .content_type(ContentType::html())
                    .body(sitekit::http::error::error_page(status, self.to_string()))
            }
        }
    }
}
