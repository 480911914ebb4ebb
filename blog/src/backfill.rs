//! Claims that users created before a claim kind existed do not hold, given to them at start.
//!
//! The look-alike claim ([`c1_user::LOOK_ALIKE`], one per UTS #39 skeleton) came after the name
//! claim: a user signed up before it holds only its name's claim, so a Cyrillic look-alike of an
//! old name could still sign up. At start each model's `users` is read once (a fan-out, paged)
//! and every user's look-alike claim taken for it; a marker in `users` says it was done, so later
//! starts pay one point read. Taking a claim its user already holds is a no-op, so a start
//! stopped half-way just runs it again. Two old users whose names look alike cannot both hold
//! the claim: the first keeps it, the other keeps its name (it is only logged), and a third
//! look-alike is refused either way.

use cosmos::{Container, QueryOptions};
use futures_util::{stream, StreamExt};
use serde::Deserialize;
use serde_json::json;
use sitekit::accounts::claim::ClaimError;

use crate::access::c1_user::LOOK_ALIKE;

/// The marker's id and partition key value in `users`.
pub const MARKER_ID: &str = "backfill-look-alike-claims";

/// Claims taken at once.
const IN_FLIGHT: usize = 16;

#[derive(Deserialize)]
struct Name {
    id: String,
    username: String,
}

/// Whether `users` was backfilled (or seeded with the claims).
async fn done(users: &Container) -> cosmos::Result<bool> {
    match users
        .read_item::<serde_json::Value>(MARKER_ID, MARKER_ID, None)
        .await
    {
        Ok(_) => Ok(true),
        Err(cosmos::Error::NotFound { .. }) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Records that every user of `users` holds its look-alike claim (the seed calls it after
/// writing users with their claims).
pub async fn mark_done(users: &Container) -> cosmos::Result<()> {
    users
        .upsert_item(
            &json!({"id": MARKER_ID, "userId": MARKER_ID, "type": "backfill"}),
            None,
            None,
        )
        .await
        .map(drop)
}

/// Gives every user of `users` its look-alike claim, once per data directory; returns how many
/// users were looked at (0 when the marker says it was done).
pub async fn look_alike_claims(users: &Container) -> cosmos::Result<usize> {
    if done(users).await? {
        return Ok(0);
    }
    let names = users
        .query_all::<Name>(
            "SELECT c.id, c.username FROM c WHERE c.type = 'user'",
            cosmos::NO_PARAMS,
            QueryOptions::default(),
        )
        .await?
        .items;
    let seen = names.len();
    let results: Vec<cosmos::Result<()>> = stream::iter(names)
        .map(|n| async move {
            match LOOK_ALIKE.claim(users, &n.username, &n.id).await {
                Ok(()) => Ok(()),
                Err(ClaimError::Taken) => {
                    tracing::warn!(
                        user = %n.id,
                        username = %n.username,
                        "an older user's name looks like this one's: it keeps its name, without the look-alike claim"
                    );
                    Ok(())
                }
                Err(ClaimError::Engine(e)) => Err(e),
            }
        })
        .buffer_unordered(IN_FLIGHT)
        .collect()
        .await;
    results.into_iter().collect::<cosmos::Result<Vec<()>>>()?;
    mark_done(users).await?;
    Ok(seen)
}
