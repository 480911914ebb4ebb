//! The explorer's errors: a write refused because the explorer is read-only, or anything
//! sitekit already knows how to answer (engine errors keep their Cosmos DB status codes).

use actix_web::http::header::ContentType;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use askama::Template;
use sitekit::{Page, WebError};

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

/// The shared error page (`templates/error.html`).
#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage {
    page: Page,
    status: u16,
    reason: String,
    message: String,
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
                let reason = status.canonical_reason().unwrap_or("Forbidden").to_owned();
                let message = self.to_string();
                let body = ErrorPage {
                    page: Page::bare(&reason),
                    status: status.as_u16(),
                    reason,
                    message: message.clone(),
                }
                .render()
                .unwrap_or(message);
                HttpResponse::build(status)
                    .content_type(ContentType::html())
                    .body(body)
            }
        }
    }
}
