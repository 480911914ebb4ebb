//! A username change, carried by the `users` change feed to every post, comment and like of the
//! user (`004_*`: "we use the change feed of the users container to react whenever users update
//! their usernames"). A stored procedure cannot span partitions, so the worker finds the
//! partitions holding the user's items (a fan-out query, off the request path) and runs
//! `updateUsernames` in each, one logical partition at a time. The posts it rewrites flow on
//! through the posts change feed to the copies in `users` and `feed` (V3; V2 has no copies). When every partition is
//! done, the user's `propagatedVersion` catches up with `usernameVersion`: the account page
//! shows that, with the copies the stored procedures rewrote and the RU this worker spent
//! (reported to [`Propagations`], measured on the worker's own ledger), and the copies the posts'
//! change feed then makes of them (`copy_posts` reports under the same key).

use cosmos::{Container, ItemOptions, PatchOperation, QueryOptions};
use serde_json::{json, Value};
use sitekit::background::propagation::{self, Propagations};

pub const PROCESSOR: &str = "propagateUsernames";

/// `users` and `posts` of V3 or V2 (the article's V2 introduces this worker; V3 keeps it).
pub struct Target {
    pub users: Container,
    pub posts: Container,
    /// Where each rename's copies and RU are reported (the account page reads them).
    pub progress: Propagations,
}

pub async fn propagate_usernames(c: &Target, changes: Vec<Value>) -> cosmos::Result<()> {
    for user in changes {
        if user["type"] != "user" {
            continue;
        }
        let version = user["usernameVersion"].as_u64().unwrap_or(0);
        if user["propagatedVersion"].as_u64().unwrap_or(0) >= version {
            continue;
        }
        let (Some(user_id), Some(username)) = (user["userId"].as_str(), user["username"].as_str())
        else {
            continue;
        };
        let key = propagation::key("username", user_id, username);
        // Registered first: the posts it rewrites reach the copy worker while it runs.
        c.progress.add(&key, 0, 0.0, false).await;
        let (done, spent) = cosmos::ledger::measured(propagate(c, &user, user_id, username)).await;
        match done {
            Ok((copies, partitions)) => {
                c.progress.add(&key, copies, spent.total(), true).await;
                // One line per change handled: with two app processes on one account, each
                // rename shows up once across both logs (the leases split the work, not copy it).
                tracing::info!(
                    target: "workers",
                    "{PROCESSOR}: {user_id} is {username:?} in {partitions} partitions \
                     ({copies} copies, {:.2} RU)",
                    spent.total()
                );
            }
            Err(e) => {
                c.progress.add(&key, 0, spent.total(), false).await;
                return Err(e);
            }
        }
    }
    Ok(())
}

/// Carries one user's new name to every partition holding their items; the copies rewritten
/// (what the stored procedures changed) and the partitions visited.
async fn propagate(
    c: &Target,
    user: &Value,
    user_id: &str,
    username: &str,
) -> cosmos::Result<(u64, usize)> {
    let version = user["usernameVersion"].as_u64().unwrap_or(0);
    // Not `SELECT DISTINCT`: across partitions and without TOP, the Rust SDK would have to
    // buffer it client-side and refuses ("requires a finite window"); the set dedupes.
    let partitions: std::collections::BTreeSet<String> = c
        .posts
        .query_all::<String>(
            "SELECT VALUE p.postId FROM p WHERE p.userId = @userId",
            &[("@userId", json!(user_id))],
            QueryOptions::default(),
        )
        .await?
        .items
        .into_iter()
        .collect();
    let mut copies = 0;
    for post_id in &partitions {
        let changed = c
            .posts
            .execute_stored_procedure::<Value>(
                "updateUsernames",
                post_id.as_str(),
                &[json!(user_id), json!(username)],
            )
            .await?;
        copies += changed.resource.as_u64().unwrap_or(0);
    }
    // Only if the user is unchanged since: a newer rename has its own change to handle.
    let etag = user["_etag"]
        .as_str()
        .map(|e| ItemOptions::if_match(e.to_owned()));
    match c
        .users
        .patch_item::<Value>(
            user_id,
            user_id,
            &[
                PatchOperation::set("/propagatedVersion", json!(version)),
                PatchOperation::set("/propagatedAt", json!(sitekit::pages::time::unix_now())),
            ],
            etag,
        )
        .await
    {
        Ok(_) | Err(cosmos::Error::PreconditionFailed { .. }) => {}
        Err(e) => return Err(e),
    }
    Ok((copies, partitions.len()))
}
