//! The sign-in both sites run, written once: throttle check (per account and per address),
//! look the account up, verify the password (against a dummy hash when there is no account, so
//! a wrong name and a wrong password cost the same time and give the same answer), count the
//! failure or clear the account's counter, and start a session. A site brings how it finds an
//! account by what was typed, and its own form pages.

use std::future::Future;

use actix_web::HttpRequest;

use crate::auth;
use crate::throttle::SignInThrottle;
use crate::{Ctx, WebError};

/// An account found by what the visitor typed.
pub struct Account<T> {
    /// The account's id: what its session names.
    pub id: String,
    /// Its argon2id PHC string.
    pub password_hash: String,
    /// The account itself, handed back on success (e.g. to know where to go next).
    pub record: T,
}

/// Signs the visitor in as the account `key` names (already normalized: the throttle's key),
/// if `password` is its password. `Ok(None)` is a wrong name or password (counted; the page
/// must say so without saying which); a throttled key or address is a 429 before any lookup.
pub async fn sign_in<T, F, Fut>(
    ctx: &Ctx,
    req: &HttpRequest,
    throttle: &SignInThrottle,
    key: &str,
    password: String,
    lookup: F,
) -> Result<Option<T>, WebError>
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = Result<Option<Account<T>>, WebError>>,
{
    let address = auth::client_address(req);
    throttle.check(key, &address)?;
    let account = lookup().await?;
    // Without an account this verifies against a dummy hash: the same time, the same answer.
    let verified =
        auth::verify_password(account.as_ref().map(|a| a.password_hash.clone()), password).await;
    match account {
        Some(account) if verified => {
            throttle.succeeded(key);
            ctx.sign_in(&account.id).await?;
            Ok(Some(account.record))
        }
        _ => {
            throttle.failed(key, &address);
            Ok(None)
        }
    }
}
