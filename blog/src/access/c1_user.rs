//! [C1] Create/edit a user: one write to `users` (5.71 RU in the article).
//!
//! Usernames are unique across the site, but `users` is partitioned by `userId`: checking every
//! partition for a name would be a fan-out on every sign-up. Each name instead owns a claim
//! document in its own logical partition (`userId = "username:<name>"`, see
//! [`sitekit::claim`]), created first: the engine refuses a second create of the same id in one
//! partition (409), so two people can never hold one name, and sign-in finds a user by name with
//! a point read. Names are compared folded (NFKC + case folding: `ＤＥＭＯ` is `demo`). A rename
//! claims the new name, updates the user only if nobody changed it since it was read, then
//! releases the old name (only if this user still holds it); the change feed carries the new
//! name to every copy (`workers::propagate_usernames`).

use cosmos::Labelled;
use cosmos::{ItemOptions, PatchOperation};
use serde_json::json;
use sitekit::claim::{ClaimError, UniqueValue};

use super::{BlogError, DbOf, Result, UsersContainer};
use crate::model::User;

/// The claim's id and partition key value.
pub fn claim_key(username: &str) -> String {
    format!("username:{}", sitekit::names::fold(username))
}

pub const USERNAME: UniqueValue = UniqueValue {
    kind: "username",
    partition_key: "userId",
    owner_property: "username",
    locate: |folded| {
        let key = format!("username:{folded}");
        (key.clone(), key)
    },
    normalize: sitekit::names::fold,
};

fn taken(e: ClaimError) -> BlogError {
    match e {
        ClaimError::Taken => BlogError::Taken(super::USERNAME_TAKEN),
        ClaimError::Engine(e) => e.into(),
    }
}

/// Signs a user up: claims the name, then writes the user.
pub async fn create_user<C: UsersContainer>(db: &DbOf<C>, user: User) -> Result<User> {
    USERNAME
        .claim(db.users(), &user.username, &user.user_id)
        .await
        .map_err(taken)?;
    match db
        .users()
        .create_item(&user, None, None)
        .labelled("[C1] create user")
        .await
    {
        Ok(r) => Ok(r.resource.unwrap_or(user)),
        Err(e) => {
            USERNAME
                .release(db.users(), &user.username, &user.user_id)
                .await;
            Err(e.into())
        }
    }
}

/// How many times a rename re-reads the user when its patch finds the user changed since it was
/// read. The propagation worker writes `propagatedVersion` into the same document after every
/// rename, so a second rename soon after the first can lose to it once or twice.
const RENAME_ATTEMPTS: usize = 5;

/// Changes a username: claim the new name, patch the user if it is as read (bumping
/// `usernameVersion`, which the propagation worker compares with `propagatedVersion`), release
/// the old name. The old name is the one in the database, never one a page or cookie remembers.
/// A patch that finds the user changed since the read reads again (optimistic concurrency): the
/// new name stays claimed meanwhile, so no one else can take it.
pub async fn change_username<C: UsersContainer>(
    db: &DbOf<C>,
    user_id: &str,
    new: &str,
) -> Result<User> {
    let mut claimed = false;
    for _ in 0..RENAME_ATTEMPTS {
        let read = db
            .users()
            .read_item::<User>(user_id, user_id, None)
            .labelled("[C1] read user")
            .await?;
        let old = read
            .resource
            .as_ref()
            .map(|u| u.username.clone())
            .unwrap_or_default();
        let same_name = sitekit::names::fold(&old) == sitekit::names::fold(new);
        if !same_name && !claimed {
            USERNAME
                .claim(db.users(), new, user_id)
                .await
                .map_err(taken)?;
            claimed = true;
        }
        let patched = db
            .users()
            .patch_item::<User>(
                user_id,
                user_id,
                &[
                    PatchOperation::set("/username", json!(new)),
                    PatchOperation::increment("/usernameVersion", 1),
                ],
                read.etag.map(ItemOptions::if_match),
            )
            .labelled("[C1] edit user")
            .await;
        match patched {
            Ok(r) => {
                if !same_name {
                    USERNAME.release(db.users(), &old, user_id).await;
                }
                return r.resource.ok_or_else(|| {
                    cosmos::Error::NotFound {
                        what: format!("user {user_id}"),
                    }
                    .into()
                });
            }
            // Written since the read (the worker, or another rename): read again.
            Err(cosmos::Error::PreconditionFailed { .. }) => continue,
            Err(e) => {
                give_back(db, new, user_id, claimed).await;
                return Err(e.into());
            }
        }
    }
    give_back(db, new, user_id, claimed).await;
    Err(BlogError::Invalid(
        "Your account kept changing while renaming: reload and try again.".into(),
    ))
}

/// A rename that failed gives its claim back, unless the user holds that name after all (a
/// concurrent rename to the same name won): then the claim is theirs to keep.
async fn give_back<C: UsersContainer>(db: &DbOf<C>, name: &str, user_id: &str, claimed: bool) {
    if claimed {
        USERNAME
            .release_unless_held(db.users(), name, user_id)
            .await;
    }
}
