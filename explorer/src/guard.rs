//! Who may use the explorer. It shows every document (customers' password hashes included) and,
//! with writes allowed, edits them, so a page elsewhere in the visitor's browser must not reach it:
//!
//! - **Host**: only loopback names (`localhost`, `127.0.0.1`, `[::1]`, any port) and the names
//!   given with `--explorer-host`. A DNS-rebinding page reaches 127.0.0.1 under its own name, so
//!   its requests carry that name in `Host` and are refused here.
//! - **Token**: a secret per start, as Jupyter's. `/?token=…` (the URL the launcher prints) sets
//!   an HttpOnly SameSite=Strict cookie and redirects to the URL without it; `Authorization:
//!   Bearer …` is accepted too (Prometheus scraping `/metrics`). Anything else is a 401. This
//!   keeps out other local users and the cross-site requests the Host check cannot see.
//!
//! Both run on every request, assets and 404s included ([`sitekit::http::gate`]); the stylesheet alone
//! needs no token (the 401 page uses it, and it holds nothing secret).

use actix_web::cookie::{Cookie, SameSite};
use actix_web::dev::ServiceRequest;
use actix_web::http::header::{self, ContentType};
use actix_web::http::{Method, StatusCode};
use actix_web::HttpResponse;
use subtle::ConstantTimeEq;

pub use netguard::hosts::{bound_name, parse_host_name};
use netguard::hosts::{AllowedHosts, Refused};

/// Served without the token (still only to allowed hosts).
const PUBLIC_PATHS: [&str; 1] = ["/static/site.css"];

/// A fresh token: 32 random bytes from the thread's CSPRNG, as hex.
pub fn new_token() -> String {
    let bytes: [u8; 32] = rand::random();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A token given by hand (`--explorer-token`): it goes into a URL and a cookie unescaped, so only
/// URL-unreserved characters.
pub fn check_token(token: &str) -> Result<(), String> {
    if token.is_empty() {
        return Err("the explorer token must not be empty".into());
    }
    if let Some(c) = token
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "-._~".contains(*c)))
    {
        return Err(format!(
            "the explorer token may hold only letters, digits and - . _ ~ (not {c:?})"
        ));
    }
    Ok(())
}

/// The explorer's guard: the hosts it answers and its token.
#[derive(Clone)]
pub struct Guard {
    hosts: AllowedHosts,
    token: String,
}

impl Guard {
    pub fn new(extra_hosts: &[String], token: &str) -> Guard {
        Guard {
            hosts: AllowedHosts::new(extra_hosts),
            token: token.to_owned(),
        }
    }

    /// `None` to serve the request, else the refusal (or the redirect that sets the cookie).
    pub fn check(&self, req: &ServiceRequest) -> Option<HttpResponse> {
        if let Some(refusal) = self.check_host(req) {
            return Some(refusal);
        }
        if PUBLIC_PATHS.contains(&req.path()) {
            return None;
        }
        let cookie = cookie_name(req);
        if let Some(given) = query_token(req.query_string()) {
            if !self.is_token(given) {
                return Some(unauthorized("The token in the URL is not this explorer's"));
            }
            if req.method() != Method::GET && req.method() != Method::HEAD {
                return None;
            }
            // Take the token out of the address bar (and of history, bookmarks, Referer).
            return Some(
                HttpResponse::SeeOther()
                    .insert_header((header::LOCATION, without_token(req)))
                    .cookie(
                        Cookie::build(cookie, self.token.clone())
                            .path("/")
                            .http_only(true)
                            .same_site(SameSite::Strict)
                            .finish(),
                    )
                    .finish(),
            );
        }
        let bearer = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, t)| t.trim().to_owned());
        if let Some(given) = bearer {
            return (!self.is_token(&given))
                .then(|| unauthorized("The bearer token is not this explorer's"));
        }
        match req.cookie(&cookie) {
            Some(c) if self.is_token(c.value()) => None,
            // A cookie of an earlier start (the token changes with every start).
            Some(_) => Some(unauthorized(
                "This explorer was restarted since you opened it",
            )),
            None => Some(unauthorized("This explorer needs its access token")),
        }
    }

    /// The refusal of a Host not allowed, if it is not.
    fn check_host(&self, req: &ServiceRequest) -> Option<HttpResponse> {
        let host = req
            .headers()
            .get(header::HOST)
            .and_then(|v| v.to_str().ok());
        // An absolute-form request target names the host too; both must be allowed.
        match self
            .hosts
            .check(host, req.uri().authority().map(|a| a.as_str()))
        {
            Ok(()) => None,
            Err(Refused::Foreign(name)) => Some(misdirected(&format!(
                "This Data Explorer does not answer to the host {name:?}: it answers to \
                 localhost, 127.0.0.1 and [::1] only, so that a web page under another \
                 name (DNS rebinding) cannot read or change the data. To open it under \
                 another name, start it with --explorer-host NAME (EXPLORER_HOST, comma \
                 separated)."
            ))),
            Err(Refused::Missing) => Some(misdirected(
                "This Data Explorer needs a Host header (localhost, 127.0.0.1, [::1] or a name \
                 given with --explorer-host).",
            )),
        }
    }

    fn is_token(&self, given: &str) -> bool {
        !given.is_empty() && bool::from(given.as_bytes().ct_eq(self.token.as_bytes()))
    }
}

/// One cookie per port: explorers on two ports of one host (cookies ignore ports) keep theirs.
fn cookie_name(req: &ServiceRequest) -> String {
    format!("explorer_token_{}", req.app_config().local_addr().port())
}

/// The value of the first `token=` of a query string (tokens are URL-unreserved: no decoding).
fn query_token(query: &str) -> Option<&str> {
    query.split('&').find_map(|kv| kv.strip_prefix("token="))
}

/// The request's path and query without `token=`; a relative path (never `//host`).
fn without_token(req: &ServiceRequest) -> String {
    let path = req.path();
    let path = if path.starts_with('/') && !path.starts_with("//") {
        path
    } else {
        "/"
    };
    let rest: Vec<&str> = req
        .query_string()
        .split('&')
        .filter(|kv| !kv.is_empty() && !kv.starts_with("token=") && *kv != "token")
        .collect();
    if rest.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{}", rest.join("&"))
    }
}

fn misdirected(message: &str) -> HttpResponse {
    HttpResponse::build(StatusCode::FORBIDDEN)
        .content_type(ContentType::plaintext())
        .body(format!("{message}\n"))
}

/// The 401 page: the explorer's own header (no site's sign-in; the nav would only 401 again)
/// and how to get in.
#[derive(askama::Template)]
#[template(path = "explorer/unauthorized.html")]
struct Unauthorized {
    page: sitekit::Page,
    writes: bool,
    message: String,
}

fn unauthorized(why: &str) -> HttpResponse {
    let message = format!(
        "{why}. Open the Explorer URL the launcher printed when it started (its line \
         \"Explorer\", ending in ?token=…); it sets a cookie for this browser. Scripts send \
         \"Authorization: Bearer TOKEN\". Start the launcher with --explorer-token TOKEN \
         (EXPLORER_TOKEN) to choose the token yourself."
    );
    let mut page = sitekit::Page::bare("Unauthorized");
    page.site = crate::SITE;
    let body = askama::Template::render(&Unauthorized {
        page,
        writes: false,
        message: message.clone(),
    })
    .unwrap_or(message);
    HttpResponse::build(StatusCode::UNAUTHORIZED)
        .insert_header((header::WWW_AUTHENTICATE, "Bearer realm=\"Data Explorer\""))
        .content_type(ContentType::html())
        .body(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_checked() {
        let t = new_token();
        assert_eq!(t.len(), 64);
        assert!(check_token(&t).is_ok());
        assert_ne!(t, new_token());
        assert!(check_token("").is_err());
        assert!(check_token("a b").unwrap_err().contains("letters, digits"));
    }

    #[test]
    fn the_query_token_is_found_and_removed() {
        assert_eq!(query_token("a=1&token=abc&b=2"), Some("abc"));
        assert_eq!(query_token("mytoken=abc"), None);
        let req = actix_web::test::TestRequest::get()
            .uri("/dbs/a/colls/b/query?sql=x&token=abc&pk=1")
            .to_srv_request();
        assert_eq!(without_token(&req), "/dbs/a/colls/b/query?sql=x&pk=1");
    }
}
