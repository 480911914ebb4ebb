//! Sign-in: argon2id password hashes (hashed off the async threads), verification that costs the
//! same whether or not the account exists (no user enumeration), the signed-in identity in the
//! session, and a throttle on failed attempts.

use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use actix_session::Session;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::Argon2;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use crate::{csrf, WebError};

/// Who is signed in, as kept in the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignedIn {
    /// The user's id (customerId, userId).
    pub id: String,
    /// What the header shows.
    pub name: String,
    #[serde(default)]
    pub admin: bool,
}

/// The session key of the signed-in user of the site mounted at `base` ("" for `/`): a site
/// mounted twice (the blog's `/v1`, `/v2` models) keeps one sign-in per mount, since each has its
/// own users.
fn user_key(base: &str) -> String {
    format!("user{base}")
}

pub fn signed_in(session: &Session, base: &str) -> Option<SignedIn> {
    session.get::<SignedIn>(&user_key(base)).ok().flatten()
}

/// Starts a signed-in session: a new session id (against fixation) and a new CSRF token, keeping
/// what the anonymous session held (a cart, say).
pub fn sign_in(session: &Session, base: &str, user: SignedIn) -> Result<(), WebError> {
    session.renew();
    session
        .insert(user_key(base), user)
        .map_err(|e| WebError::Internal(format!("session: {e}")))?;
    csrf::rotate(session);
    Ok(())
}

/// Updates the identity shown (after a rename) without a new session.
pub fn update_signed_in(session: &Session, base: &str, user: SignedIn) -> Result<(), WebError> {
    session
        .insert(user_key(base), user)
        .map_err(|e| WebError::Internal(format!("session: {e}")))
}

pub fn sign_out(session: &Session) {
    session.purge();
}

/// At most one argon2id computation per core at a time. Each takes 19 MiB and ~40 ms of CPU: a
/// burst of sign-ups would otherwise start one blocking thread per request, starve the page
/// requests of CPU, and hold 19 MiB per thread at once.
fn argon2_slots() -> &'static tokio::sync::Semaphore {
    static SLOTS: OnceLock<tokio::sync::Semaphore> = OnceLock::new();
    SLOTS.get_or_init(|| {
        tokio::sync::Semaphore::new(std::thread::available_parallelism().map_or(2, |n| n.get()))
    })
}

/// argon2id (m=19456 KiB, t=2, p=1: OWASP's minimum) as a PHC string.
pub async fn hash_password(password: String) -> Result<String, WebError> {
    let _slot = argon2_slots()
        .acquire()
        .await
        .map_err(|e| WebError::Internal(format!("argon2 slots: {e}")))?;
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .hash_password(password.as_bytes())
            .map(|h| h.to_string())
            .map_err(|e| WebError::Internal(format!("argon2: {e}")))
    })
    .await
    .map_err(|e| WebError::Internal(format!("hashing task: {e}")))?
}

/// A hash of nothing anyone knows, verified against when the account does not exist, so a
/// wrong email and a wrong password take the same time.
fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| {
        Argon2::default()
            .hash_password(b"no account has this password")
            .map(|h| h.to_string())
            .unwrap_or_default()
    })
}

/// Whether `password` matches `phc`; `None` (no such account) takes as long and answers false.
pub async fn verify_password(phc: Option<String>, password: String) -> bool {
    let known = phc.is_some();
    let Ok(_slot) = argon2_slots().acquire().await else {
        return false;
    };
    tokio::task::spawn_blocking(move || {
        let phc = phc.unwrap_or_else(|| dummy_hash().to_owned());
        let ok = PasswordHash::new(&phc)
            .map(|h| {
                Argon2::default()
                    .verify_password(password.as_bytes(), &h)
                    .is_ok()
            })
            .unwrap_or(false);
        ok && known
    })
    .await
    .unwrap_or(false)
}

/// The client's address for throttling: the connection's peer, never a header the client
/// chooses (`X-Forwarded-For` would let anyone dodge the lock, or lock out someone else). Behind
/// a reverse proxy, key on what the proxy guarantees instead.
pub fn client_address(req: &actix_web::HttpRequest) -> String {
    req.peer_addr()
        .map(|a| a.ip().to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// Failed sign-ins per key (the identifier tried and the client address): after `max_failures`
/// within `window`, further attempts get a 429 until the window passes. In memory: a restart
/// forgets, which only ever helps a legitimate user.
pub struct Throttle {
    max_failures: u32,
    window: Duration,
    failures: Mutex<HashMap<String, (u32, Instant)>>,
}

impl Default for Throttle {
    fn default() -> Self {
        Throttle::new(5, Duration::from_secs(15 * 60))
    }
}

impl Throttle {
    pub fn new(max_failures: u32, window: Duration) -> Self {
        Throttle {
            max_failures,
            window,
            failures: Mutex::new(HashMap::new()),
        }
    }

    /// Err(wait) when any of `keys` is locked out.
    pub fn check(&self, keys: &[&str]) -> Result<(), WebError> {
        let map = self.failures.lock();
        for k in keys {
            if let Some((n, since)) = map.get(*k) {
                let age = since.elapsed();
                if *n >= self.max_failures && age < self.window {
                    return Err(WebError::TooManyAttempts(self.window - age));
                }
            }
        }
        Ok(())
    }

    pub fn failed(&self, keys: &[&str]) {
        let mut map = self.failures.lock();
        if map.len() > 100_000 {
            let window = self.window;
            map.retain(|_, (_, since)| since.elapsed() < window);
        }
        for k in keys {
            let e = map.entry((*k).to_owned()).or_insert((0, Instant::now()));
            if e.1.elapsed() >= self.window {
                *e = (0, Instant::now());
            }
            e.0 += 1;
        }
    }

    pub fn succeeded(&self, keys: &[&str]) {
        let mut map = self.failures.lock();
        for k in keys {
            map.remove(*k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_are_argon2id_and_verify() {
        let phc = hash_password("correct horse".into()).await.unwrap();
        assert!(phc.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{phc}");
        assert!(verify_password(Some(phc.clone()), "correct horse".into()).await);
        assert!(!verify_password(Some(phc), "wrong".into()).await);
        assert!(!verify_password(None, "no account has this password".into()).await);
        assert!(!verify_password(Some("not a phc".into()), "x".into()).await);
    }

    #[test]
    fn throttle_locks_after_max_failures_and_clears_on_success() {
        let t = Throttle::new(3, Duration::from_secs(60));
        for _ in 0..3 {
            assert!(t.check(&["a", "ip"]).is_ok());
            t.failed(&["a", "ip"]);
        }
        assert!(matches!(t.check(&["a"]), Err(WebError::TooManyAttempts(_))));
        assert!(matches!(
            t.check(&["b", "ip"]),
            Err(WebError::TooManyAttempts(_))
        ));
        t.succeeded(&["a", "ip"]);
        assert!(t.check(&["a", "ip"]).is_ok());
    }
}
