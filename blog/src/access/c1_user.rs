//! [C1] Create/edit a user: one write to `users` (5.71 RU in the article).
//!
//! Usernames are unique across the site, but `users` is partitioned by `userId`: checking every
//! partition for a name would be a fan-out on every sign-up. Each name instead owns a claim
//! document in its own logical partition (`userId = "username:<name>"`), created first: the
//! engine refuses a second create of the same id in one partition (409), so two people can never
//! hold one name, and sign-in finds a user by name with a point read. A rename claims the new
//! name, updates the user, then releases the old claim; the change feed carries the new name to
//! every copy (`workers::propagate_usernames`).

use engine::{ItemOptions, PatchOperation};
use serde_json::json;

use super::{BlogError, DbOf, Result, UsersContainer};
use crate::model::{User, UsernameClaim};

/// The claim's partition key value: names are unique case-insensitively.
pub fn claim_key(username: &str) -> String {
    format!("username:{}", username.to_lowercase())
}

fn claim(username: &str, owner: &str) -> UsernameClaim {
    let key = claim_key(username);
    UsernameClaim {
        id: key.clone(),
        kind: "username".into(),
        user_id: key,
        owner_id: owner.to_owned(),
    }
}

async fn claim_name<C: UsersContainer>(db: &DbOf<C>, username: &str, owner: &str) -> Result<()> {
    let c = claim(username, owner);
    match db.users().create_item(&c, None, None).await {
        Ok(r) => {
            db.ru.item("[C1] claim username", db.users(), &r);
            Ok(())
        }
        Err(engine::Error::Conflict { .. }) => {
            // Taken, unless its owner no longer exists (a crash between claim and user).
            let existing = db
                .users()
                .read_item::<UsernameClaim>(&c.id, c.user_id.as_str(), None)
                .await?;
            db.ru
                .item("[C1] read username claim", db.users(), &existing);
            let holder = existing.resource.map(|x| x.owner_id).unwrap_or_default();
            if holder == owner {
                return Ok(());
            }
            match db
                .users()
                .read_item::<serde_json::Value>(&holder, holder.as_str(), None)
                .await
            {
                Err(engine::Error::NotFound { .. }) => {
                    let r = db
                        .users()
                        .replace_item(
                            &c,
                            &c.id,
                            Some(c.user_id.as_str().into()),
                            existing.etag.map(ItemOptions::if_match),
                        )
                        .await
                        .map_err(|e| match e {
                            engine::Error::PreconditionFailed { .. } => BlogError::UsernameTaken,
                            e => e.into(),
                        })?;
                    db.ru.item("[C1] reclaim username", db.users(), &r);
                    Ok(())
                }
                Ok(_) => Err(BlogError::UsernameTaken),
                Err(e) => Err(e.into()),
            }
        }
        Err(e) => Err(e.into()),
    }
}

async fn release_name<C: UsersContainer>(db: &DbOf<C>, username: &str) {
    let key = claim_key(username);
    if let Ok(r) = db.users().delete_item(&key, key.as_str(), None).await {
        db.ru.item("[C1] release username", db.users(), &r);
    }
}

/// Signs a user up: claims the name, then writes the user.
pub async fn create_user<C: UsersContainer>(db: &DbOf<C>, user: User) -> Result<User> {
    claim_name(db, &user.username, &user.user_id).await?;
    match db.users().create_item(&user, None, None).await {
        Ok(r) => {
            db.ru.item("[C1] create user", db.users(), &r);
            Ok(r.resource.unwrap_or(user))
        }
        Err(e) => {
            release_name(db, &user.username).await;
            Err(e.into())
        }
    }
}

/// Changes a username: claim the new name, patch the user (bumping `usernameVersion`, which the
/// propagation worker compares with `propagatedVersion`), release the old name.
pub async fn change_username<C: UsersContainer>(
    db: &DbOf<C>,
    user_id: &str,
    old: &str,
    new: &str,
) -> Result<User> {
    if old.to_lowercase() != new.to_lowercase() {
        claim_name(db, new, user_id).await?;
    }
    let r = db
        .users()
        .patch_item::<User>(
            user_id,
            user_id,
            &[
                PatchOperation::set("/username", json!(new)),
                PatchOperation::increment("/usernameVersion", 1),
            ],
            None,
        )
        .await;
    let r = match r {
        Ok(r) => r,
        Err(e) => {
            if old.to_lowercase() != new.to_lowercase() {
                release_name(db, new).await;
            }
            return Err(e.into());
        }
    };
    db.ru.item("[C1] edit user", db.users(), &r);
    if old.to_lowercase() != new.to_lowercase() {
        release_name(db, old).await;
    }
    r.resource.ok_or_else(|| {
        engine::Error::NotFound {
            what: format!("user {user_id}"),
        }
        .into()
    })
}
