//! CSRF protection by synchronizer token: a random token kept in the (signed, encrypted) session,
//! sent back in every form as the hidden `csrf_token` field and compared in constant time, plus
//! a check that the browser says the post came from this site (`Sec-Fetch-Site` / `Origin`).
//! Handlers that change state take a [`CsrfForm`], so a form without the check cannot compile in.

use std::future::Future;
use std::pin::Pin;

use actix_session::{Session, SessionExt};
use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::web::Bytes;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use rand::RngCore;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use subtle::ConstantTimeEq;

use crate::WebError;

const KEY: &str = "csrf";
/// Largest form body accepted (the biggest form is a post or a product description).
pub const MAX_FORM_BYTES: usize = 256 * 1024;

/// The session's token, created on first use.
pub fn token(session: &Session) -> String {
    if let Ok(Some(t)) = session.get::<String>(KEY) {
        return t;
    }
    let t = new_token();
    let _ = session.insert(KEY, &t);
    t
}

/// A fresh token (after sign-in, so a token seen before sign-in is useless after it).
pub fn rotate(session: &Session) {
    let _ = session.insert(KEY, new_token());
}

fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(Deserialize)]
struct TokenField {
    csrf_token: Option<String>,
}

/// A form with nothing in it but the CSRF token (sign out, like, measure).
#[derive(Debug, Deserialize)]
pub struct Empty {}

/// A url-encoded form whose `csrf_token` matched the session's; `T` is the rest of the form.
pub struct CsrfForm<T>(pub T);

impl<T> CsrfForm<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for CsrfForm<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

fn same_origin(req: &HttpRequest) -> bool {
    if let Some(site) = req.headers().get("sec-fetch-site") {
        if !matches!(site.to_str(), Ok("same-origin") | Ok("none")) {
            return false;
        }
    }
    match req.headers().get(header::ORIGIN).map(|o| o.to_str()) {
        None => true,
        Some(Ok(origin)) => {
            let host = crate::http::proxy::requested_host(req).unwrap_or_default();
            origin == format!("{}://{host}", crate::http::proxy::requested_scheme(req))
        }
        Some(Err(_)) => false,
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for CsrfForm<T> {
    type Error = actix_web::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let req = req.clone();
        let mut payload = payload.take();
        Box::pin(async move {
            if req.content_type() != "application/x-www-form-urlencoded" {
                return Err(WebError::UnsupportedMediaType.into());
            }
            let body = actix_web::web::Bytes::from_request(&req, &mut payload)
                .await
                .map_err(|e| WebError::BadRequest(format!("unreadable form: {e}")))?;
            check(&req, &req.get_session(), &body)?;
            // Errors name the field at fault ("quantity: invalid digit found in string").
            let fields = serde_urlencoded::Deserializer::new(form_urlencoded::parse(&body));
            let form = serde_path_to_error::deserialize::<_, T>(fields).map_err(|e| {
                let field = e.path().to_string();
                let message = e.into_inner();
                WebError::BadRequest(if field == "." {
                    format!("Invalid form: {message}.")
                } else {
                    format!("Invalid form field '{field}': {message}.")
                })
            })?;
            Ok(CsrfForm(form))
        })
    }
}

fn check(req: &HttpRequest, session: &Session, body: &Bytes) -> Result<(), WebError> {
    if body.len() > MAX_FORM_BYTES {
        return Err(WebError::BadRequest(format!(
            "the form is larger than {MAX_FORM_BYTES} bytes"
        )));
    }
    if !same_origin(req) {
        return Err(WebError::Csrf);
    }
    let sent = serde_urlencoded::from_bytes::<TokenField>(body)
        .ok()
        .and_then(|f| f.csrf_token)
        .ok_or(WebError::Csrf)?;
    let expected = session
        .get::<String>(KEY)
        .ok()
        .flatten()
        .ok_or(WebError::Csrf)?;
    if bool::from(sent.as_bytes().ct_eq(expected.as_bytes())) {
        Ok(())
    } else {
        Err(WebError::Csrf)
    }
}
