//! OWASP's device cookies: a browser that signed in to an account with its password gets a
//! cookie naming the account and a random device id, encrypted and signed with the site's key
//! (unguessable, unforgeable, useless for another account). A sign-in attempt from such a
//! browser is throttled on that device's own counter instead of the account's
//! ([`crate::accounts::throttle::SignInThrottle::begin`]), so failures sent from anywhere else can slow
//! the attacker down but never keep the owner out. The cookie outlives sign-out (it is not the
//! session) and is renewed at each successful sign-in.

use actix_web::body::MessageBody;
use actix_web::cookie::{time, Cookie, CookieJar, Key, SameSite};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage, HttpRequest};
use rand::RngCore;
use serde::{Deserialize, Serialize};

use crate::Site;

/// The key device cookies are encrypted with, and whether they are HTTPS-only (registered by
/// the server).
#[derive(Clone)]
pub struct DeviceKey {
    pub key: Key,
    pub secure: bool,
}

/// How long a browser stays recognised without signing in again.
const LIFETIME_DAYS: i64 = 365;

#[derive(Serialize, Deserialize)]
struct DeviceCookie {
    /// The throttle's key of the account (a folded name, a lower-cased email).
    account: String,
    device: String,
}

/// A cookie to set on this request's response (see [`set_cookie`]).
struct Pending(Cookie<'static>);

/// One cookie per site mount: each mount (`/v1`, `/v2`) has its own accounts.
fn cookie_name(req: &HttpRequest) -> String {
    let site = req.app_data::<web::Data<Site>>();
    let (name, base) = site.map_or(("session", ""), |s| (s.cookie_name, s.base));
    format!("{name}_device{}", base.replace('/', "_"))
}

/// The device id this browser holds for `account`, if its cookie is genuine and names it.
pub fn recognised(req: &HttpRequest, account: &str) -> Option<String> {
    let key = req.app_data::<web::Data<DeviceKey>>()?;
    let name = cookie_name(req);
    let mut jar = CookieJar::new();
    jar.add_original(req.cookie(&name)?.into_owned());
    let cookie = jar.private(&key.key).get(&name)?;
    let value: DeviceCookie = serde_json::from_str(cookie.value()).ok()?;
    (value.account == account).then_some(value.device)
}

/// Remembers this browser for `account` (its password was right): a new device cookie, set
/// on the response.
pub fn remember(req: &HttpRequest, account: &str) {
    let Some(key) = req.app_data::<web::Data<DeviceKey>>() else {
        return;
    };
    let mut id = [0u8; 16];
    rand::rng().fill_bytes(&mut id);
    let value = DeviceCookie {
        account: account.to_owned(),
        device: id.iter().map(|b| format!("{b:02x}")).collect(),
    };
    let Ok(value) = serde_json::to_string(&value) else {
        return;
    };
    let name = cookie_name(req);
    let mut jar = CookieJar::new();
    jar.private_mut(&key.key).add(
        Cookie::build(name.clone(), value)
            .path("/")
            .http_only(true)
            .same_site(SameSite::Lax)
            .secure(key.secure)
            .max_age(time::Duration::days(LIFETIME_DAYS))
            .finish(),
    );
    if let Some(cookie) = jar.get(&name) {
        req.extensions_mut().insert(Pending(cookie.clone()));
    }
}

/// Middleware (in [`crate::http::server::serve`]): sets the cookie [`remember`] made.
pub async fn set_cookie(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let mut res = next.call(req).await?;
    let pending = res.request().extensions_mut().remove::<Pending>();
    if let Some(Pending(cookie)) = pending {
        res.response_mut().add_cookie(&cookie)?;
    }
    Ok(res)
}
