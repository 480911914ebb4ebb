//! Server-side sessions, kept in the account's own document.
//!
//! The cookie (encrypted and signed) only names a session: `{account id, session id}`. The
//! session itself is an entry in the account document's `sessions` array — one-to-few, always
//! read with the account, so the way Cosmos DB modeling says to store it: embedded. Every
//! signed-in request makes one point read (1 RU, in the footer as `read account (session)`),
//! which both checks the session and reads the name and roles as they are now. Sign-out removes
//! the entry, "sign out everywhere" empties the array, and an entry past its `expires` counts as
//! gone (pruned at the next sign-in). A separate sessions container with a TTL would cost a
//! second point read on every page to read the roles.

use cosmos::Labelled;
use std::time::Duration;

use actix_session::Session;
use cosmos::{Container, ItemOptions};
use rand::RngCore;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::accounts::auth::SignedIn;
use crate::WebError;

/// The footer's name for the session check of a signed-in request.
pub const SESSION_READ: &str = "read account (session)";

/// How long a sign-in lasts.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(14 * 24 * 3600);
/// Sessions kept per account (the oldest goes first): a bound on the document's growth.
pub const MAX_SESSIONS: usize = 10;

/// An entry of the account document's `sessions` array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionEntry {
    pub id: String,
    /// Unix seconds.
    pub expires: i64,
}

/// What the cookie holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct SessionRef {
    account: String,
    session: String,
}

/// Where a site's accounts are and how to read who one is. Accounts are documents whose id is
/// also their partition key value (a customer, a blog user).
#[derive(Clone)]
pub struct Accounts {
    pub container: Container,
    /// The property shown as the signed-in name (`firstName`, `username`).
    pub name_property: &'static str,
    /// A boolean property granting admin pages, if the site has any.
    pub admin_property: Option<&'static str>,
}

fn now_secs() -> i64 {
    chrono::Utc::now().timestamp()
}

fn cookie_key(base: &str) -> String {
    format!("account{base}")
}

fn new_id() -> String {
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn entries(doc: &Value) -> Vec<SessionEntry> {
    serde_json::from_value(doc["sessions"].clone()).unwrap_or_default()
}

impl Accounts {
    fn identity(&self, doc: &Value, id: &str) -> SignedIn {
        SignedIn {
            id: id.to_owned(),
            name: doc[self.name_property]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            admin: self
                .admin_property
                .is_some_and(|p| doc[p].as_bool() == Some(true)),
        }
    }

    /// Who this browser is signed in as, checked against the account document: `None` when not
    /// signed in, signed out, expired, revoked or the account is gone.
    pub async fn current(
        &self,
        session: &Session,
        base: &str,
    ) -> Result<Option<SignedIn>, WebError> {
        let Ok(Some(r)) = session.get::<SessionRef>(&cookie_key(base)) else {
            return Ok(None);
        };
        let read = match self
            .container
            .read_item::<Value>(&r.account, r.account.as_str(), None)
            .labelled(SESSION_READ)
            .await
        {
            Ok(read) => read,
            Err(cosmos::Error::NotFound { .. }) => {
                session.remove(&cookie_key(base));
                return Ok(None);
            }
            Err(e) => return Err(e.into()),
        };
        let doc = read.resource.unwrap_or(Value::Null);
        let now = now_secs();
        if entries(&doc)
            .iter()
            .any(|s| s.id == r.session && s.expires > now)
        {
            Ok(Some(self.identity(&doc, &r.account)))
        } else {
            session.remove(&cookie_key(base));
            Ok(None)
        }
    }

    /// Signs `account` in on this browser: a new session entry, a new cookie id (against
    /// fixation) and a new CSRF token, keeping what the anonymous session held (a cart).
    pub async fn sign_in(
        &self,
        session: &Session,
        base: &str,
        account: &str,
    ) -> Result<(), WebError> {
        let entry = SessionEntry {
            id: new_id(),
            expires: now_secs() + SESSION_LIFETIME.as_secs() as i64,
        };
        let added = entry.clone();
        self.edit(account, "add session", move |list| {
            list.push(added.clone());
            let excess = list.len().saturating_sub(MAX_SESSIONS);
            list.drain(..excess);
        })
        .await?;
        session.renew();
        session
            .insert(
                cookie_key(base),
                SessionRef {
                    account: account.to_owned(),
                    session: entry.id,
                },
            )
            .map_err(|e| WebError::Internal(format!("session: {e}")))?;
        crate::accounts::csrf::rotate(session);
        Ok(())
    }

    /// Ends this browser's session (on the server too) and clears the cookie.
    pub async fn sign_out(&self, session: &Session, base: &str) -> Result<(), WebError> {
        if let Ok(Some(r)) = session.get::<SessionRef>(&cookie_key(base)) {
            let id = r.session.clone();
            self.edit(&r.account, "remove session", move |list| {
                list.retain(|s| s.id != id)
            })
            .await?;
        }
        session.purge();
        Ok(())
    }

    /// Ends every session of `account`, on every browser.
    pub async fn sign_out_everywhere(
        &self,
        session: &Session,
        account: &str,
    ) -> Result<(), WebError> {
        self.edit(account, "remove all sessions", |list| list.clear())
            .await?;
        session.purge();
        Ok(())
    }

    /// Read, change the `sessions` array, replace if nobody wrote in between (else again).
    async fn edit(
        &self,
        account: &str,
        what: &str,
        change: impl Fn(&mut Vec<SessionEntry>),
    ) -> Result<(), WebError> {
        for _ in 0..8 {
            let read = match self
                .container
                .read_item::<Value>(account, account, None)
                .labelled("read account")
                .await
            {
                Ok(r) => r,
                Err(cosmos::Error::NotFound { .. }) => return Ok(()),
                Err(e) => return Err(e.into()),
            };
            let mut doc = read.resource.unwrap_or(Value::Null);
            let now = now_secs();
            let mut list = entries(&doc);
            list.retain(|s| s.expires > now);
            change(&mut list);
            doc["sessions"] = serde_json::to_value(&list)
                .map_err(|e| WebError::Internal(format!("sessions: {e}")))?;
            match self
                .container
                .replace_item(
                    &doc,
                    account,
                    Some(account.into()),
                    read.etag.map(ItemOptions::if_match),
                )
                .labelled(what.to_owned())
                .await
            {
                Ok(_) => return Ok(()),
                Err(cosmos::Error::PreconditionFailed { .. }) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(WebError::Internal(format!(
            "{what}: the account kept changing"
        )))
    }
}

#[cfg(test)]
mod tests {
    use actix_session::SessionExt;
    use cosmos::ContainerProperties;
    use serde_json::json;

    use super::*;

    #[tokio::test]
    async fn an_expired_session_is_refused() {
        let (db, _dir) = crate::test_database().await;
        let container = db
            .create_container_if_not_exists(ContainerProperties::new("users", "/userId"))
            .await
            .unwrap();
        container
            .create_item(
                &json!({"id": "u1", "userId": "u1", "username": "ada"}),
                None,
                None,
            )
            .await
            .unwrap();
        let accounts = Accounts {
            container: container.clone(),
            name_property: "username",
            admin_property: None,
        };
        // A browser's session, as the cookie middleware would hand it to a handler.
        let session = actix_web::test::TestRequest::default()
            .to_http_request()
            .get_session();
        accounts.sign_in(&session, "", "u1").await.unwrap();
        let me = accounts.current(&session, "").await.unwrap();
        assert_eq!(me.map(|u| u.name).as_deref(), Some("ada"));

        // Its entry's time runs out (a second ago): the same cookie no longer signs in.
        let mut doc: Value = container
            .read_item("u1", "u1", None)
            .await
            .unwrap()
            .resource
            .unwrap();
        doc["sessions"][0]["expires"] = json!(now_secs() - 1);
        container
            .replace_item(&doc, "u1", None, None)
            .await
            .unwrap();
        assert_eq!(accounts.current(&session, "").await.unwrap(), None);
        assert!(
            session
                .get::<SessionRef>(&cookie_key(""))
                .unwrap()
                .is_none(),
            "the cookie's reference is dropped"
        );
    }
}
