//! Unique values (a customer's email, a blog username) without a fan-out.
//!
//! The accounts are partitioned by their own id, so "is this email taken?" would have to ask
//! every partition. Instead each value owns a small claim document in its own logical partition,
//! created before the value is used: the engine refuses a second create of one id in one
//! partition (409), so two concurrent sign-ups can never both hold a value, and sign-in finds the
//! account with a point read.
//!
//! The claim and the account are in different partitions, so no transaction spans them. A claim
//! whose account never got the value (a crash between the two writes) would block the value
//! forever; it is taken over only when that is provable: the claim is older than
//! [`ABANDONED_AFTER`] (far longer than any request lives, so its writer is gone) and its owner
//! does not exist or no longer holds the value. "The owner is not written yet" is never read as
//! "the owner crashed": that was how a double-clicked sign-up made two accounts.

use cosmos::Labelled;
use std::time::Duration;

use cosmos::{Container, ItemOptions};
use serde_json::{json, Value};

/// How old a claim must be before its owner can be presumed gone.
pub const ABANDONED_AFTER: Duration = Duration::from_secs(10 * 60);

#[derive(Debug, thiserror::Error)]
pub enum ClaimError {
    #[error("taken")]
    Taken,
    #[error(transparent)]
    Engine(#[from] cosmos::Error),
}

/// How an app keeps one kind of unique value in one container.
pub struct UniqueValue {
    /// The claim documents' `type` ("login", "username").
    pub kind: &'static str,
    /// The container's partition key property: each claim is its own logical partition.
    pub partition_key: &'static str,
    /// The owner document's property that holds the value. Owners are documents whose id is
    /// also their partition key value (a customer, a user).
    pub owner_property: &'static str,
    /// The claim's (id, partition key value) for a normalized value.
    pub locate: fn(&str) -> (String, String),
    /// How values compare (e.g. lower case, or NFKC + case folding for names).
    pub normalize: fn(&str) -> String,
}

fn now_secs() -> i64 {
    chrono::Utc::now().timestamp()
}

impl UniqueValue {
    fn document(&self, value: &str, owner: &str) -> Value {
        let (id, pk) = (self.locate)(&(self.normalize)(value));
        json!({
            "id": id,
            "type": self.kind,
            self.partition_key: pk,
            "ownerId": owner,
            "createdAt": now_secs(),
        })
    }

    /// Makes `owner` the holder of `value`: Ok if it is (or already was) theirs, `Taken` if
    /// someone else holds it. "Already theirs" means two requests of one owner may count on one
    /// claim, and either may release it: a caller that changes an owner's value lets one change
    /// run at a time (the blog's rename marks the user first).
    pub async fn claim(&self, c: &Container, value: &str, owner: &str) -> Result<(), ClaimError> {
        let doc = self.document(value, owner);
        let (id, pk) = (self.locate)(&(self.normalize)(value));
        match c
            .create_item(&doc, None, None)
            .labelled(format!("claim {}", self.kind))
            .await
        {
            Ok(_) => return Ok(()),
            Err(cosmos::Error::Conflict { .. }) => {}
            Err(e) => return Err(e.into()),
        }
        let existing = match c
            .read_item::<Value>(&id, pk.as_str(), None)
            .labelled(format!("read {} claim", self.kind))
            .await
        {
            Ok(r) => r,
            // Released in between: try once more, as a fresh claim.
            Err(cosmos::Error::NotFound { .. }) => {
                c.create_item(&doc, None, None)
                    .labelled(format!("claim {}", self.kind))
                    .await
                    .map_err(|e| match e {
                        cosmos::Error::Conflict { .. } => ClaimError::Taken,
                        e => e.into(),
                    })?;
                return Ok(());
            }
            Err(e) => return Err(e.into()),
        };
        let held = existing.resource.clone().unwrap_or(Value::Null);
        let holder = held["ownerId"].as_str().unwrap_or_default().to_owned();
        if holder == owner {
            return Ok(());
        }
        // Claims written before `createdAt` existed count as old.
        let age = now_secs() - held["createdAt"].as_i64().unwrap_or(0);
        if age < ABANDONED_AFTER.as_secs() as i64 || self.holds(c, &holder, value).await? {
            return Err(ClaimError::Taken);
        }
        c.replace_item(
            &doc,
            &id,
            Some(pk.as_str().into()),
            existing.etag.map(ItemOptions::if_match),
        )
        .labelled(format!("take over abandoned {} claim", self.kind))
        .await
        .map_err(|e| match e {
            // Someone else took it over first.
            cosmos::Error::PreconditionFailed { .. } => ClaimError::Taken,
            e => e.into(),
        })?;
        Ok(())
    }

    /// Whether account `owner` exists and holds `value`.
    async fn holds(&self, c: &Container, owner: &str, value: &str) -> Result<bool, cosmos::Error> {
        if owner.is_empty() {
            return Ok(false);
        }
        match c
            .read_item::<Value>(owner, owner, None)
            .labelled(format!("read {} claim's owner", self.kind))
            .await
        {
            Ok(r) => {
                let current = r
                    .resource
                    .as_ref()
                    .and_then(|d| d[self.owner_property].as_str())
                    .map(self.normalize);
                Ok(current.as_deref() == Some((self.normalize)(value).as_str()))
            }
            Err(cosmos::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Gives `value` back, only if `owner` holds it (a stale page or a lost race must never
    /// free someone else's name). Best effort: a claim left behind is taken over later.
    pub async fn release(&self, c: &Container, value: &str, owner: &str) {
        let (id, pk) = (self.locate)(&(self.normalize)(value));
        let Ok(existing) = c
            .read_item::<Value>(&id, pk.as_str(), None)
            .labelled(format!("read {} claim", self.kind))
            .await
        else {
            return;
        };
        let holder = existing
            .resource
            .as_ref()
            .and_then(|d| d["ownerId"].as_str())
            .unwrap_or_default();
        if holder != owner {
            return;
        }
        let options = existing.etag.clone().map(ItemOptions::if_match);
        let _ = c
            .delete_item(&id, pk.as_str(), options)
            .labelled(format!("release {} claim", self.kind))
            .await;
    }

    /// Gives `value` back after a failed change, unless `owner`'s account holds it after all (a
    /// write that timed out may have landed). One more point read than [`release`](Self::release);
    /// an unreadable owner keeps the claim (taken over later). The read and the delete are two
    /// requests: the caller must keep other changes of the owner's value out meanwhile (the blog
    /// marks a user as renaming).
    pub async fn release_unless_held(&self, c: &Container, value: &str, owner: &str) {
        if let Ok(false) = self.holds(c, owner, value).await {
            self.release(c, value, owner).await;
        }
    }

    /// The id of the account holding `value` (a point read), if any.
    pub async fn owner_of(
        &self,
        c: &Container,
        value: &str,
    ) -> Result<Option<String>, cosmos::Error> {
        let (id, pk) = (self.locate)(&(self.normalize)(value));
        match c
            .read_item::<Value>(&id, pk.as_str(), None)
            .labelled(format!("read {} claim", self.kind))
            .await
        {
            Ok(r) => Ok(r
                .resource
                .and_then(|d| d["ownerId"].as_str().map(str::to_owned))),
            Err(cosmos::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use cosmos::ContainerProperties;

    use super::*;

    const EMAIL: UniqueValue = UniqueValue {
        kind: "login",
        partition_key: "pk",
        owner_property: "email",
        locate: |v| (format!("login:{v}"), format!("login:{v}")),
        normalize: |v| v.to_lowercase(),
    };

    /// A container on a real embedded engine in a temporary directory (kept alive by the dir).
    async fn accounts() -> (Container, tempfile::TempDir) {
        let (db, dir) = crate::test_database().await;
        let c = db
            .create_container_if_not_exists(ContainerProperties::new("accounts", "/pk"))
            .await
            .unwrap();
        (c, dir)
    }

    /// A claim on `value` by `owner`, written `age` ago, as a crashed sign-up leaves it.
    async fn left_behind(c: &Container, value: &str, owner: &str, age: Duration) {
        let mut doc = EMAIL.document(value, owner);
        doc["createdAt"] = json!(now_secs() - age.as_secs() as i64);
        c.create_item(&doc, None, None).await.unwrap();
    }

    #[tokio::test]
    async fn an_abandoned_claim_is_taken_over_a_young_one_is_not() {
        let (c, _dir) = accounts().await;
        let old = ABANDONED_AFTER + Duration::from_secs(60);
        // Owners that never got written: their sign-ups crashed between the two writes.
        left_behind(&c, "old@example.com", "gone-1", old).await;
        left_behind(&c, "young@example.com", "gone-2", Duration::from_secs(5)).await;

        EMAIL.claim(&c, "old@example.com", "me").await.unwrap();
        assert_eq!(
            EMAIL
                .owner_of(&c, "OLD@example.com")
                .await
                .unwrap()
                .as_deref(),
            Some("me")
        );
        // Its owner may still be on its way (a double-clicked sign-up): not taken over.
        assert!(matches!(
            EMAIL.claim(&c, "young@example.com", "me").await,
            Err(ClaimError::Taken)
        ));
        assert_eq!(
            EMAIL
                .owner_of(&c, "young@example.com")
                .await
                .unwrap()
                .as_deref(),
            Some("gone-2")
        );
    }

    #[tokio::test]
    async fn an_old_claim_whose_owner_holds_the_value_stays_its_owners() {
        let (c, _dir) = accounts().await;
        c.create_item(
            &json!({"id": "o1", "pk": "o1", "email": "Taken@example.com"}),
            None,
            None,
        )
        .await
        .unwrap();
        left_behind(&c, "taken@example.com", "o1", ABANDONED_AFTER * 2).await;
        assert!(matches!(
            EMAIL.claim(&c, "taken@example.com", "me").await,
            Err(ClaimError::Taken)
        ));
        // The owner itself claiming again is fine (a retried request).
        EMAIL.claim(&c, "taken@example.com", "o1").await.unwrap();
    }
}
