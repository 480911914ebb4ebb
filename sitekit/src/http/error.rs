//! Errors at the HTTP edge: each becomes a status code and a page (never internals), with
//! `Retry-After` on 429s.

use std::time::Duration;

use actix_web::http::header::{self, ContentType};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use askama::Template;

use crate::pages::layout::Page;

#[derive(Debug, thiserror::Error)]
pub enum WebError {
    #[error("That page does not exist.")]
    NotFound,
    #[error("You do not have access to this page.")]
    Forbidden,
    /// Not signed in: answered with a redirect to the sign-in page of the site's mount (its
    /// base path: `/v1` signs in to V1's users, not the site's), returning to the page asked
    /// for (a GET's path and query) once signed in.
    #[error("Please sign in.")]
    SignInRequired(&'static str, Option<String>),
    #[error("{0}")]
    BadRequest(String),
    #[error(
        "The form expired or did not come from this site. Go back, reload the page and try again."
    )]
    Csrf,
    #[error("Forms must be sent as application/x-www-form-urlencoded.")]
    UnsupportedMediaType,
    #[error("Too many attempts. Try again in {} seconds.", .0.as_secs().max(1))]
    TooManyAttempts(Duration),
    #[error(transparent)]
    Engine(#[from] cosmos::Error),
    #[error("{0}")]
    Internal(String),
}

#[derive(Template)]
#[template(path = "error.html")]
struct ErrorPage {
    page: Page,
    status: u16,
    reason: String,
    message: String,
}

impl WebError {
    /// What a person may read: the message, except for server faults.
    fn public_message(&self) -> String {
        match self.status_code() {
            s if s.is_server_error() => match self {
                WebError::Engine(e) if e.status_code() == 503 => {
                    "The store is shutting down. Try again in a moment.".into()
                }
                WebError::Engine(e) if e.status_code() == 507 => {
                    "The store is out of disk space. Nothing you saved was lost.".into()
                }
                _ => "Something went wrong on our side. It has been logged.".into(),
            },
            _ => match self {
                WebError::Engine(cosmos::Error::NotFound { .. }) => WebError::NotFound.to_string(),
                // A `?page=` link from an old page, or edited by hand: the visitor's mistake.
                WebError::Engine(cosmos::Error::BadRequest { field: Some(f), .. })
                    if f == "continuation" =>
                {
                    "That page link is no longer valid.".into()
                }
                WebError::Engine(cosmos::Error::TooManyRequests { .. }) => {
                    "The store is busy (request rate too large). Try again shortly.".into()
                }
                other => other.to_string(),
            },
        }
    }

    fn retry_after(&self) -> Option<Duration> {
        match self {
            WebError::TooManyAttempts(d) => Some(*d),
            WebError::Engine(e) => e.retry_after(),
            _ => None,
        }
    }
}

impl ResponseError for WebError {
    fn status_code(&self) -> StatusCode {
        match self {
            WebError::NotFound => StatusCode::NOT_FOUND,
            WebError::Forbidden | WebError::Csrf => StatusCode::FORBIDDEN,
            WebError::SignInRequired(..) => StatusCode::SEE_OTHER,
            WebError::BadRequest(_) => StatusCode::BAD_REQUEST,
            WebError::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            WebError::TooManyAttempts(_) => StatusCode::TOO_MANY_REQUESTS,
            WebError::Engine(e) => {
                StatusCode::from_u16(e.status_code()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
            }
            WebError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let status = self.status_code();
        if let WebError::SignInRequired(base, next) = self {
            return HttpResponse::SeeOther()
                .insert_header((
                    header::LOCATION,
                    crate::accounts::next::signin_url(base, next.as_deref()),
                ))
                .finish();
        }
        if status.is_server_error() {
            tracing::error!(error = %self, "request failed");
        }
        let body = error_page(status, self.public_message());
        let mut res = HttpResponse::build(status);
        res.content_type(ContentType::html());
        if let Some(d) = self.retry_after() {
            res.insert_header((
                header::RETRY_AFTER,
                d.as_secs_f64().ceil().max(1.0).to_string(),
            ));
        }
        res.body(body)
    }
}

/// Declares an app's `ERROR_PAGE` ([`SiteErrorPage`]) rendered by the template at `$path`
/// (which extends the site's base and includes `error_body.html`).
#[macro_export]
macro_rules! site_error_page {
    ($path:literal) => {
        #[derive(askama::Template)]
        #[template(path = $path)]
        struct ErrorPage {
            page: $crate::Page,
            status: u16,
            reason: String,
            message: String,
        }

        /// Error pages in the site's own layout (see `sitekit::http::error::in_site_layout`).
        pub const ERROR_PAGE: $crate::http::error::SiteErrorPage =
            $crate::http::error::SiteErrorPage(|page, status, reason, message| {
                askama::Template::render(&ErrorPage {
                    page,
                    status,
                    reason,
                    message,
                })
            });
    };
}

/// How a site draws its error pages in its own layout (navigation, signed-in user): registered
/// by the app as app data; sites without one get the bare [`error_page`].
#[derive(Clone, Copy)]
pub struct SiteErrorPage(pub fn(Page, u16, String, String) -> Result<String, askama::Error>);

/// Middleware (innermost, in [`crate::http::server::serve`]): an error answer of a site with a
/// [`SiteErrorPage`] is drawn again in the site's layout, with the visitor's session (so a
/// signed-in visitor's 404 says who they are), keeping the status and headers. The session is
/// checked once per request: the handler's [`crate::Ctx`] left what it read in the request's
/// extensions, and this one reuses it (it reads only when no handler did, e.g. an unknown URL).
pub async fn in_site_layout(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<actix_web::dev::ServiceResponse<actix_web::body::BoxBody>, actix_web::Error> {
    use actix_web::FromRequest;
    let res = next.call(req).await?;
    let info = res
        .response()
        .error()
        .and_then(|e| e.as_error::<WebError>())
        .filter(|e| !matches!(e, WebError::SignInRequired(..)))
        .map(|e| (e.status_code(), e.public_message()));
    let render = res
        .request()
        .app_data::<actix_web::web::Data<SiteErrorPage>>()
        .map(|r| r.0);
    let (Some((status, message)), Some(render)) = (info, render) else {
        return Ok(res.map_into_boxed_body());
    };
    let reason = status.canonical_reason().unwrap_or("Error").to_owned();
    let ctx = crate::Ctx::extract(res.request()).await?;
    let Ok(html) = render(ctx.page(reason.clone()), status.as_u16(), reason, message) else {
        return Ok(res.map_into_boxed_body());
    };
    let (req, old) = res.into_parts();
    let mut new = HttpResponse::build(status);
    for (name, value) in old.headers() {
        if name != header::CONTENT_LENGTH {
            new.insert_header((name.clone(), value.clone()));
        }
    }
    Ok(actix_web::dev::ServiceResponse::new(req, new.body(html)))
}

/// The error page of every site: the status, its reason and `message` (shown as is, escaped).
pub fn error_page(status: StatusCode, message: String) -> String {
    let reason = status.canonical_reason().unwrap_or("Error").to_owned();
    ErrorPage {
        page: Page::bare(&reason),
        status: status.as_u16(),
        reason,
        message: message.clone(),
    }
    .render()
    .unwrap_or(message)
}

impl From<askama::Error> for WebError {
    fn from(e: askama::Error) -> Self {
        WebError::Internal(format!("template: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use actix_web::body::MessageBody;
    use actix_web::ResponseError;

    use super::WebError;

    fn body(e: &WebError) -> (u16, Option<String>, String) {
        let res = e.error_response();
        let retry = res
            .headers()
            .get("retry-after")
            .map(|v| v.to_str().unwrap().to_owned());
        let status = res.status().as_u16();
        let bytes = res.into_body().try_into_bytes().unwrap_or_default();
        (status, retry, String::from_utf8_lossy(&bytes).into_owned())
    }

    #[test]
    fn a_throttled_engine_call_is_a_429_page_with_retry_after() {
        let e = WebError::Engine(cosmos::Error::TooManyRequests {
            partition: 0,
            budget_ru_per_s: 400.0,
            retry_after: Duration::from_millis(1200),
        });
        let (status, retry, page) = body(&e);
        assert_eq!(status, 429);
        assert_eq!(retry.as_deref(), Some("2"));
        assert!(page.contains("The store is busy"), "{page}");
    }

    #[test]
    fn server_faults_are_500_pages_without_internals() {
        let e = WebError::Engine(cosmos::Error::Corrupt("key 0xdeadbeef in /var/lib".into()));
        let (status, _, page) = body(&e);
        assert_eq!(status, 500);
        assert!(
            !page.contains("deadbeef") && !page.contains("/var/lib"),
            "{page}"
        );
        assert!(page.contains("Something went wrong on our side"));
        let (status, _, page) = body(&WebError::Internal("template: secret".into()));
        assert_eq!(status, 500);
        assert!(!page.contains("secret"));
    }

    #[test]
    fn engine_statuses_map_one_to_one() {
        let cases = [
            (cosmos::Error::bad("id", "must not contain '/'"), 400),
            (cosmos::Error::NotFound { what: "x".into() }, 404),
            (cosmos::Error::Conflict { id: "x".into() }, 409),
            (cosmos::Error::StorageFull("disk".into()), 507),
            (cosmos::Error::Unavailable("closing".into()), 503),
        ];
        for (e, code) in cases {
            assert_eq!(body(&WebError::Engine(e)).0, code);
        }
        let (status, _, page) = body(&WebError::Engine(cosmos::Error::NotFound {
            what: "customer c1".into(),
        }));
        assert_eq!(status, 404);
        assert!(page.contains("That page does not exist."));
        assert_eq!(body(&WebError::SignInRequired("", None)).0, 303);
    }
}
