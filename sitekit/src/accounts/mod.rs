//! Who is signed in and what they may do: argon2id sign-in and its throttles, sessions (the
//! cookie that names one, and the server-side record that makes it revocable), device cookies,
//! CSRF tokens, which names are the same name, unique claims, and where to go after signing in.

pub mod auth;
pub mod claim;
pub mod cookie;
pub mod csrf;
pub mod device;
pub mod names;
pub mod next;
pub mod sessions;
pub mod signin;
pub mod throttle;
