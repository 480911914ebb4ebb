//! What V1 has to look up because it stores references only: a username per author (a point read
//! in `users`) and a post's comment and like counts (a count query in the post's partition).

use cosmos::Labelled;
use std::collections::HashMap;

use serde_json::json;

use super::Db;
use crate::access::Result;
use crate::model::User;

/// Shown for an author whose user item is gone.
const UNKNOWN: &str = "(unknown)";

/// The usernames of `user_ids`, one point read per distinct user.
pub async fn usernames<'a>(
    db: &Db,
    request: &str,
    user_ids: impl IntoIterator<Item = &'a str>,
) -> Result<HashMap<String, String>> {
    let mut names = HashMap::new();
    for id in user_ids {
        if names.contains_key(id) {
            continue;
        }
        let name = match db
            .users
            .read_item::<User>(id, id, None)
            .labelled(format!("{request} read username"))
            .await
        {
            Ok(r) => r.resource.map(|u| u.username),
            Err(cosmos::Error::NotFound { .. }) => None,
            Err(e) => return Err(e.into()),
        };
        names.insert(id.to_owned(), name.unwrap_or_else(|| UNKNOWN.into()));
    }
    Ok(names)
}

pub fn name_of(names: &HashMap<String, String>, user_id: &str) -> String {
    names
        .get(user_id)
        .cloned()
        .unwrap_or_else(|| UNKNOWN.into())
}

/// How many comments and likes a post has: two count queries in its partition.
pub async fn counts(db: &Db, request: &str, post_id: &str) -> Result<(u64, u64)> {
    let mut counts = [0u64; 2];
    for (n, kind) in counts.iter_mut().zip(["comment", "like"]) {
        let r = db
            .posts
            .query_items::<u64>(
                "SELECT VALUE COUNT(1) FROM p WHERE p.postId = @postId AND p.type = @type",
                &[("@postId", json!(post_id)), ("@type", json!(kind))],
                cosmos::QueryOptions {
                    partition_key: Some(post_id.into()),
                    ..Default::default()
                },
            )
            .labelled(format!("{request} count {kind}s"))
            .await?;
        *n = r.items.first().copied().unwrap_or(0);
    }
    Ok((counts[0], counts[1]))
}
