//! Sign-in: argon2id password hashes (hashed off the async threads), verification that costs the
//! same whether or not the account exists (no user enumeration), who is signed in, and the
//! client's address. Sessions are in [`crate::accounts::sessions`], throttles in [`crate::accounts::throttle`].

use std::sync::OnceLock;

use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::Argon2;
use serde::{Deserialize, Serialize};

use crate::WebError;

/// Who is signed in, as the account document says now (read on every request).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SignedIn {
    /// The user's id (customerId, userId).
    pub id: String,
    /// What the header shows.
    pub name: String,
    #[serde(default)]
    pub admin: bool,
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

/// How many times a password was verified against each hash, for tests (e.g. that simultaneous
/// guesses verify no more passwords than the throttle lets through).
#[cfg(feature = "testing")]
fn verifications() -> &'static parking_lot::Mutex<std::collections::HashMap<String, u64>> {
    static COUNTS: OnceLock<parking_lot::Mutex<std::collections::HashMap<String, u64>>> =
        OnceLock::new();
    COUNTS.get_or_init(Default::default)
}

/// How many passwords were verified against `phc` in this process (tests only).
#[cfg(feature = "testing")]
pub fn verifications_against(phc: &str) -> u64 {
    verifications().lock().get(phc).copied().unwrap_or(0)
}

/// Whether `password` matches `phc`; `None` (no such account) takes as long and answers false.
pub async fn verify_password(phc: Option<String>, password: String) -> bool {
    let known = phc.is_some();
    #[cfg(feature = "testing")]
    if let Some(phc) = &phc {
        *verifications().lock().entry(phc.clone()).or_default() += 1;
    }
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

/// The client's address for throttling (see [`crate::http::proxy`]).
pub fn client_address(req: &actix_web::HttpRequest) -> String {
    crate::http::proxy::client_address(req)
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
}
