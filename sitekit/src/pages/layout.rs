//! What every page shows around its content: the site, who is signed in, the CSRF token for the
//! header's forms, and the engine calls the page cost (the footer). Templates extend
//! `templates/layout.html` and read these fields as `page.*`.

use std::future::Future;
use std::pin::Pin;

use actix_session::{Session, SessionExt};
use actix_web::dev::Payload;
use actix_web::http::header::{self, ContentType};
use actix_web::http::StatusCode;
use actix_web::{web, FromRequest, HttpMessage, HttpRequest, HttpResponse};
use askama::Template;

use crate::accounts::auth::SignedIn;
use crate::accounts::csrf;
use crate::accounts::sessions::Accounts;
use crate::data::ru::{EngineCall, LastAction, RequestCharge};
use crate::WebError;

/// A site's identity, registered with `app_data(web::Data::new(Site { .. }))` by the server.
#[derive(Debug, Clone)]
pub struct Site {
    pub name: &'static str,
    pub tagline: &'static str,
    /// Session cookie name, distinct per site so the two sites never share a session.
    pub cookie_name: &'static str,
    /// Where the site is mounted: "" for `/`, "/v1" for a copy under `/v1/` (templates prefix
    /// their links with it; each mount has its own sign-in).
    pub base: &'static str,
    /// Whether the site serves its access patterns at
    /// [`PATTERNS_PATH`](crate::http::assets::PATTERNS_PATH) (the footer then says where its
    /// codes are explained).
    pub patterns: bool,
}

impl Site {
    const BARE: Site = Site {
        name: "cosmos-lmdb",
        tagline: "",
        cookie_name: "session",
        base: "",
        patterns: false,
    };
}

/// The layout's data.
#[derive(Debug, Clone)]
pub struct Page {
    pub site: Site,
    pub title: String,
    pub user: Option<SignedIn>,
    pub csrf_token: String,
    pub calls: Vec<EngineCall>,
    pub total_ru: f64,
    /// A one-time message from the previous request (e.g. "Order placed").
    pub flash: Option<String>,
    /// What the form post that led here cost (a write's 303 has no page of its own).
    pub last_action: Option<LastAction>,
}

impl Page {
    /// A page without a request (error pages).
    pub fn bare(title: &str) -> Page {
        Page {
            site: Site::BARE,
            title: title.to_owned(),
            user: None,
            csrf_token: String::new(),
            calls: Vec::new(),
            total_ru: 0.0,
            flash: None,
            last_action: None,
        }
    }

    /// Footer rows shown before the rest fold away.
    pub const FOOTER_ROWS: usize = 20;

    /// The first [`FOOTER_ROWS`](Self::FOOTER_ROWS) calls, and the rest (folded).
    pub fn calls_shown(&self) -> &[EngineCall] {
        &self.calls[..self.calls.len().min(Self::FOOTER_ROWS)]
    }

    pub fn calls_folded(&self) -> &[EngineCall] {
        &self.calls[self.calls.len().min(Self::FOOTER_ROWS)..]
    }

    /// The sign-in page of this mount, returning to the page at `path` of this mount (given
    /// in pieces, as a template has them: `["/posts/", id]`).
    pub fn signin_href(&self, path: &[&str]) -> String {
        let next = format!("{}{}", self.site.base, path.concat());
        crate::accounts::next::signin_url(self.site.base, Some(&next))
    }

    pub fn is_admin(&self) -> bool {
        self.user.as_ref().is_some_and(|u| u.admin)
    }
}

/// Everything a handler needs besides its inputs: the session, the signed-in user and the
/// request's RU ledger.
pub struct Ctx {
    pub session: Session,
    pub user: Option<SignedIn>,
    pub ru: RequestCharge,
    site: Site,
    accounts: Option<web::Data<Accounts>>,
    req: HttpRequest,
}

/// Who the session said is signed in, kept in the request's extensions by the first [`Ctx`] of
/// a request: the session check is a point read, made once per request (an error page drawn
/// again in the site's layout after the handler reuses it). Signing in or out forgets it.
#[derive(Clone)]
struct SessionChecked(Option<SignedIn>);

impl Ctx {
    /// The signed-in user, or a redirect to the sign-in page.
    pub fn require_user(&self) -> Result<&SignedIn, WebError> {
        self.user.as_ref().ok_or_else(|| {
            // A page asked for comes back after signing in; a form post's target does not.
            let next = (self.req.method() == actix_web::http::Method::GET)
                .then(|| self.req.uri().path_and_query().map(|p| p.to_string()))
                .flatten();
            WebError::SignInRequired(self.site.base, next)
        })
    }

    /// The signed-in admin; 403 for anyone else signed in.
    pub fn require_admin(&self) -> Result<&SignedIn, WebError> {
        let user = self.require_user()?;
        if user.admin {
            Ok(user)
        } else {
            Err(WebError::Forbidden)
        }
    }

    /// The layout data, read last (just before rendering) so the footer has every engine call.
    pub fn page(&self, title: impl Into<String>) -> Page {
        Page {
            site: self.site.clone(),
            title: title.into(),
            user: self.user.clone(),
            csrf_token: csrf::token(&self.session),
            calls: self.ru.calls(),
            total_ru: self.ru.total(),
            flash: self
                .session
                .remove_as::<String>("flash")
                .and_then(Result::ok),
            last_action: self
                .session
                .remove_as::<LastAction>(crate::data::ru::LAST_ACTION)
                .and_then(Result::ok),
        }
    }

    fn accounts(&self) -> Result<&Accounts, WebError> {
        self.accounts
            .as_ref()
            .map(|a| a.get_ref())
            .ok_or_else(|| WebError::Internal("the site registered no Accounts".into()))
    }

    /// Signs `account` in to this site (its mount): a server-side session in the account.
    pub async fn sign_in(&self, account: &str) -> Result<(), WebError> {
        self.forget_session_check();
        self.accounts()?
            .sign_in(&self.session, self.site.base, account)
            .await
    }

    /// Ends this browser's session, on the server too.
    pub async fn sign_out(&self) -> Result<(), WebError> {
        self.forget_session_check();
        self.accounts()?
            .sign_out(&self.session, self.site.base)
            .await
    }

    /// Ends every session of the signed-in account, on every browser.
    pub async fn sign_out_everywhere(&self) -> Result<(), WebError> {
        let me = self.require_user()?;
        self.forget_session_check();
        self.accounts()?
            .sign_out_everywhere(&self.session, &me.id)
            .await
    }

    /// The session changes: a later [`Ctx`] of this request checks it again.
    fn forget_session_check(&self) {
        self.req.extensions_mut().remove::<SessionChecked>();
    }

    /// Where this site is mounted ("" or "/v1").
    pub fn base(&self) -> &'static str {
        self.site.base
    }

    /// Keeps a message for the next page this browser sees.
    pub fn flash(&self, message: impl Into<String>) {
        let _ = self.session.insert("flash", message.into());
    }
}

impl FromRequest for Ctx {
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let session = req.get_session();
        let ru = crate::data::ru::request_charge(req);
        let site = req
            .app_data::<web::Data<Site>>()
            .map(|s| s.get_ref().clone())
            .unwrap_or(Site::BARE);
        let accounts = req.app_data::<web::Data<Accounts>>().cloned();
        let checked = req.extensions().get::<SessionChecked>().cloned();
        let req = req.clone();
        Box::pin(async move {
            let user = match (checked, &accounts) {
                (Some(SessionChecked(user)), _) => user,
                (None, Some(a)) => {
                    let user = a.current(&session, site.base).await?;
                    req.extensions_mut().insert(SessionChecked(user.clone()));
                    user
                }
                (None, None) => None,
            };
            Ok(Ctx {
                session,
                user,
                ru,
                site,
                accounts,
                req,
            })
        })
    }
}

/// A rendered template as a 200 page.
pub fn html(template: &impl Template) -> Result<HttpResponse, WebError> {
    html_status(StatusCode::OK, template)
}

/// A rendered template with another status (a form re-shown with its errors is a 400 or 409).
pub fn html_status(status: StatusCode, template: &impl Template) -> Result<HttpResponse, WebError> {
    Ok(HttpResponse::build(status)
        .content_type(ContentType::html())
        .body(template.render()?))
}

/// The answer to a successful form post: go to `location` (post/redirect/get).
pub fn see_other(location: &str) -> HttpResponse {
    HttpResponse::SeeOther()
        .insert_header((header::LOCATION, location))
        .finish()
}
