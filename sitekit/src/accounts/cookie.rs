//! Sessions in a cookie: encrypted and signed with a key kept in the data directory (so
//! sessions survive a restart), HttpOnly, SameSite=Lax, one cookie name per site.

use std::io::{Read, Write};
use std::path::Path;

use actix_session::config::{CookieContentSecurity, PersistentSession};
use actix_session::storage::CookieSessionStore;
use actix_session::SessionMiddleware;
use actix_web::cookie::{time, Key, SameSite};

/// The session middleware for one site. `secure` marks the cookie HTTPS-only: turn it on behind
/// TLS (the demo serves plain HTTP on loopback).
pub fn middleware(
    key: Key,
    cookie_name: &str,
    secure: bool,
) -> SessionMiddleware<CookieSessionStore> {
    SessionMiddleware::builder(CookieSessionStore::default(), key)
        .cookie_name(cookie_name.to_owned())
        .cookie_content_security(CookieContentSecurity::Private)
        .cookie_http_only(true)
        .cookie_same_site(SameSite::Lax)
        .cookie_secure(secure)
        .session_lifecycle(PersistentSession::default().session_ttl(time::Duration::days(14)))
        .build()
}

/// The 64-byte key in `dir/session.key`, created (mode 0600) on first start.
pub fn load_or_create_key(dir: &Path) -> std::io::Result<Key> {
    let path = dir.join("session.key");
    if let Ok(mut f) = std::fs::File::open(&path) {
        let mut bytes = Vec::new();
        f.read_to_end(&mut bytes)?;
        if bytes.len() >= 64 {
            return Ok(Key::from(&bytes));
        }
    }
    std::fs::create_dir_all(dir)?;
    let key = Key::generate();
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut f = options.open(&path)?;
    f.write_all(key.master())?;
    f.sync_all()?;
    Ok(key)
}
