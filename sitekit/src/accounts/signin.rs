//! The sign-in both sites run, written once: count the attempt as a failure first (per account,
//! or per device cookie for a browser the account recognises, and per address: a 429 when one
//! must wait), look the account up, verify the password (against a dummy hash when there is no
//! account, so a wrong name and a wrong password cost the same time and give the same answer),
//! then on success give the attempt back, start a session and remember the browser (a device
//! cookie). Counting before verifying is what bounds simultaneous guesses: each verification
//! needs an attempt taken under the throttle's lock. A site brings how it finds an account by
//! what was typed, and its own form pages.

use std::future::Future;

use actix_web::HttpRequest;

use crate::accounts::throttle::SignInThrottle;
use crate::accounts::{auth, device};
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
/// must say so without saying which); a throttled key, device or address is a 429 before any
/// lookup.
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
    let device = device::recognised(req, key);
    let attempt = throttle.begin(key, &address, device.as_deref())?;
    let account = lookup().await?;
    // Without an account this verifies against a dummy hash: the same time, the same answer.
    let verified =
        auth::verify_password(account.as_ref().map(|a| a.password_hash.clone()), password).await;
    match account {
        Some(account) if verified => {
            throttle.succeeded(attempt);
            ctx.sign_in(&account.id).await?;
            device::remember(req, key);
            Ok(Some(account.record))
        }
        _ => {
            throttle.failed(attempt);
            Ok(None)
        }
    }
}
