//! [C1] Create/edit a user: one write to `users` (5.71 RU in the article).
//!
//! Usernames are unique across the site, but `users` is partitioned by `userId`: checking every
//! partition for a name would be a fan-out on every sign-up. Each name instead owns a claim
//! document in its own logical partition (`userId = "username:<name>"`, see
//! [`sitekit::accounts::claim`]), created first: the engine refuses a second create of the same id in one
//! partition (409), so two people can never hold one name, and sign-in finds a user by name with
//! a point read. Names are compared folded (NFKC + case folding: `ＤＥＭＯ` is `demo`). Names
//! that look alike are one name too: each user also holds a second claim, on the name's UTS #39
//! skeleton (`skeleton:<skeleton>`, [`LOOK_ALIKE`]), taken the same way, so a Cyrillic
//! `јеѕѕісароре92` beside the Latin `jessicapope92` is refused as taken, whatever the
//! concurrency (a claim per value, one create wins). A rename claims the new name (both
//! claims), updates the user only if nobody changed it since it was read, then releases the old
//! name's claims (only if this user still holds them); the change feed carries the new name to
//! every copy (`workers::propagate_usernames`).

use cosmos::Labelled;
use cosmos::{ItemOptions, PatchOperation};
use serde_json::json;
use sitekit::accounts::claim::{ClaimError, UniqueValue};

use super::{BlogError, DbOf, Result, UsersContainer};
use crate::model::{Renaming, User};

/// The claim's id and partition key value.
pub fn claim_key(username: &str) -> String {
    format!("username:{}", sitekit::accounts::names::fold(username))
}

pub const USERNAME: UniqueValue = UniqueValue {
    kind: "username",
    partition_key: "userId",
    owner_property: "username",
    locate: |folded| {
        let key = format!("username:{folded}");
        (key.clone(), key)
    },
    normalize: sitekit::accounts::names::fold,
};

/// The look-alike claim's id and partition key value (the skeleton, with the characters an id
/// may not hold escaped).
pub fn skeleton_key(username: &str) -> String {
    locate_skeleton(&sitekit::accounts::names::skeleton(username)).0
}

fn locate_skeleton(skeleton: &str) -> (String, String) {
    let mut key = String::from("skeleton:");
    for c in skeleton.chars() {
        if "/\\?#~".contains(c) {
            key.push_str(&format!("~{:x}", c as u32));
        } else {
            key.push(c);
        }
    }
    (key.clone(), key)
}

/// One claim per skeleton: names that look alike are one name.
pub const LOOK_ALIKE: UniqueValue = UniqueValue {
    kind: "usernameSkeleton",
    partition_key: "userId",
    owner_property: "username",
    locate: locate_skeleton,
    normalize: sitekit::accounts::names::skeleton,
};

/// Claims both of `name`'s values for `owner`: the name, then its look-alikes (the first given
/// back when the second is taken).
async fn claim_name<C: UsersContainer>(db: &DbOf<C>, name: &str, owner: &str) -> Result<()> {
    USERNAME
        .claim(db.users(), name, owner)
        .await
        .map_err(taken)?;
    if let Err(e) = LOOK_ALIKE.claim(db.users(), name, owner).await {
        USERNAME.release(db.users(), name, owner).await;
        return Err(taken(e));
    }
    Ok(())
}

fn taken(e: ClaimError) -> BlogError {
    match e {
        ClaimError::Taken => BlogError::Taken(super::USERNAME_TAKEN),
        ClaimError::Engine(e) => e.into(),
    }
}

/// Signs a user up: claims the name, then writes the user.
pub async fn create_user<C: UsersContainer>(db: &DbOf<C>, user: User) -> Result<User> {
    claim_name(db, &user.username, &user.user_id).await?;
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
            LOOK_ALIKE
                .release(db.users(), &user.username, &user.user_id)
                .await;
            Err(e.into())
        }
    }
}

/// How many times a step of a rename reads the user again when its patch finds the user written
/// since the read: the propagation worker writes `propagatedVersion`, and a session its
/// bookkeeping, into the same document.
const ATTEMPTS: usize = 5;

/// How long a rename holds its mark on the user: far longer than a rename takes, short enough
/// that a request that crashed mid-rename blocks the next one only briefly.
const MARK_SECS: u64 = 60;

/// Changes a username, one rename of a user at a time:
/// 1. mark the user as renaming (a patch guarded by the etag read; a live mark of another
///    request refuses: "in progress");
/// 2. claim the new name (taken: the mark comes off, nothing else changed);
/// 3. set the name, bump `usernameVersion` (which the propagation worker compares with
///    `propagatedVersion`) and take the mark off, guarded by the etag;
/// 4. release the old name: the one in the database, never one a page or cookie remembers.
///
/// While the mark is on no other request of the user gets past step 1, so two requests of one
/// user never count on one claim, and a release never frees a name the user holds. A patch that
/// finds the user written since its read reads again (optimistic concurrency).
pub async fn change_username<C: UsersContainer>(
    db: &DbOf<C>,
    user_id: &str,
    new: &str,
) -> Result<User> {
    let token = format!("{:016x}", rand::random::<u64>());
    let (old, etag) = match mark(db, user_id, new, &token).await? {
        Marked::Done(user) => return Ok(user),
        Marked::Renaming { old, etag } => (old, etag),
    };
    // `rn` → `m`: another name, the same look-alike claim (already this user's, kept).
    let same_skeleton =
        sitekit::accounts::names::skeleton(&old) == sitekit::accounts::names::skeleton(new);
    if let Err(e) = claim_name(db, new, user_id).await {
        unmark(db, user_id, &token).await;
        return Err(e);
    }
    match set_name(db, user_id, new, &token, etag).await {
        Ok(user) => {
            USERNAME.release(db.users(), &old, user_id).await;
            if !same_skeleton {
                LOOK_ALIKE.release(db.users(), &old, user_id).await;
            }
            Ok(user)
        }
        Err(e) => {
            // A patch that failed on the way back may still have landed: keep a name it set.
            USERNAME.release_unless_held(db.users(), new, user_id).await;
            if !same_skeleton {
                LOOK_ALIKE
                    .release_unless_held(db.users(), new, user_id)
                    .await;
            }
            unmark(db, user_id, &token).await;
            Err(e)
        }
    }
}

enum Marked {
    /// Nothing to claim: the same name, or the same name in other letters (set already).
    Done(User),
    /// The user is marked as renaming by this request; `etag` is the marked document's.
    Renaming { old: String, etag: Option<String> },
}

/// A user read or written that has no document (deleted meanwhile).
fn missing(user_id: &str) -> cosmos::Error {
    cosmos::Error::NotFound {
        what: format!("user {user_id}"),
    }
}

fn now_secs() -> u64 {
    sitekit::pages::time::unix_now()
}

fn in_progress() -> BlogError {
    BlogError::Invalid(
        "Your username is being changed by another request: reload in a moment to see it.".into(),
    )
}

fn kept_changing() -> BlogError {
    BlogError::Invalid("Your account kept changing while renaming: reload and try again.".into())
}

async fn read_user<C: UsersContainer>(
    db: &DbOf<C>,
    user_id: &str,
) -> Result<(User, Option<String>)> {
    let read = db
        .users()
        .read_item::<User>(user_id, user_id, None)
        .labelled("[C1] read user")
        .await?;
    let user = read.resource.ok_or_else(|| missing(user_id))?;
    Ok((user, read.etag))
}

/// Step 1: marks the user as renaming to `new` by this request (`token`).
async fn mark<C: UsersContainer>(
    db: &DbOf<C>,
    user_id: &str,
    new: &str,
    token: &str,
) -> Result<Marked> {
    for _ in 0..ATTEMPTS {
        let (user, etag) = read_user(db, user_id).await?;
        let stale_mark = match &user.renaming {
            Some(r) if r.until > now_secs() => return Err(in_progress()),
            Some(_) => true,
            None => false,
        };
        let same_name =
            sitekit::accounts::names::fold(&user.username) == sitekit::accounts::names::fold(new);
        if same_name && user.username == new {
            return Ok(Marked::Done(user));
        }
        let mut ops = if same_name {
            // Other letters, same claim: nothing to claim or release.
            vec![
                PatchOperation::set("/username", json!(new)),
                PatchOperation::increment("/usernameVersion", 1),
            ]
        } else {
            let mark = Renaming {
                to: new.to_owned(),
                until: now_secs() + MARK_SECS,
                token: token.to_owned(),
            };
            vec![PatchOperation::set(
                "/renaming",
                serde_json::to_value(mark).map_err(cosmos::Error::from)?,
            )]
        };
        if same_name && stale_mark {
            ops.push(PatchOperation::remove("/renaming"));
        }
        match db
            .users()
            .patch_item::<User>(user_id, user_id, &ops, etag.map(ItemOptions::if_match))
            .labelled(if same_name {
                "[C1] edit user"
            } else {
                "[C1] mark user renaming"
            })
            .await
        {
            Ok(r) if same_name => return Ok(Marked::Done(r.resource.unwrap_or(user))),
            Ok(r) => {
                return Ok(Marked::Renaming {
                    old: user.username,
                    etag: r.etag,
                })
            }
            // Written since the read (the worker, a session, another rename): read again.
            Err(cosmos::Error::PreconditionFailed { .. }) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(kept_changing())
}

/// Step 3: sets the name and takes this request's mark off. The first attempt uses the etag
/// the mark left; a later one reads again, and goes on only while the mark is still its own.
async fn set_name<C: UsersContainer>(
    db: &DbOf<C>,
    user_id: &str,
    new: &str,
    token: &str,
    mut etag: Option<String>,
) -> Result<User> {
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            let (user, read_etag) = read_user(db, user_id).await?;
            if user.renaming.as_ref().map(|r| r.token.as_str()) != Some(token) {
                // The mark expired and another rename went on: this one has lost.
                return Err(kept_changing());
            }
            etag = read_etag;
        }
        match db
            .users()
            .patch_item::<User>(
                user_id,
                user_id,
                &[
                    PatchOperation::set("/username", json!(new)),
                    PatchOperation::increment("/usernameVersion", 1),
                    PatchOperation::remove("/renaming"),
                ],
                etag.clone().map(ItemOptions::if_match),
            )
            .labelled("[C1] edit user")
            .await
        {
            Ok(r) => return r.resource.ok_or_else(|| missing(user_id).into()),
            Err(cosmos::Error::PreconditionFailed { .. }) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(kept_changing())
}

/// Takes this request's mark off after a failed rename (best effort: a mark left behind expires
/// after [`MARK_SECS`]).
async fn unmark<C: UsersContainer>(db: &DbOf<C>, user_id: &str, token: &str) {
    for _ in 0..ATTEMPTS {
        let Ok((user, etag)) = read_user(db, user_id).await else {
            return;
        };
        if user.renaming.as_ref().map(|r| r.token.as_str()) != Some(token) {
            return;
        }
        match db
            .users()
            .patch_item::<User>(
                user_id,
                user_id,
                &[PatchOperation::remove("/renaming")],
                etag.map(ItemOptions::if_match),
            )
            .labelled("[C1] unmark user")
            .await
        {
            Err(cosmos::Error::PreconditionFailed { .. }) => continue,
            _ => return,
        }
    }
}
