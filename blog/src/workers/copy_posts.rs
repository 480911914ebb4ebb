//! Posts in short form, copied by the `posts` change feed to their author's partition of `users`
//! (for Q3) and to `feed` (for Q6, truncated to the 100 newest by the `truncateFeed`
//! post-trigger). Comments and likes in the feed are skipped; updates (a new count, a new
//! username) are copied again, so the copies follow the post. Idempotent: upserts only. A post
//! that cannot be decoded never will be: it is set aside at once (`sitekit::background::dead_letter`); any
//! other failure is retried by the processor a bounded number of times, then the changes that
//! still fail alone are set aside too, and the worker goes on.
//!
//! A post rewritten by a username rename (`propagate_usernames`) comes through here too: its
//! copies and their RU are reported under the rename's key, so the account page shows the whole
//! cost of the rename, not only the first worker's share.

use serde_json::Value;
use sitekit::background::propagation::{self, Propagations};

use crate::containers::Containers;
use crate::deploy::feed_write;
use crate::model::Post;

pub const PROCESSOR: &str = "copyPosts";

pub async fn copy_posts(
    c: &Containers,
    progress: &Propagations,
    changes: Vec<Value>,
) -> cosmos::Result<()> {
    // The newest copy of each post in this batch is enough (with when it changed).
    let mut posts: Vec<(Post, u64)> = Vec::new();
    for doc in changes {
        if doc["type"] != "post" {
            continue;
        }
        let post: Post = match serde_json::from_value(doc.clone()) {
            Ok(p) => p,
            Err(e) => {
                sitekit::background::dead_letter::set_aside(
                    &c.leases,
                    PROCESSOR,
                    &doc,
                    &e.to_string(),
                )
                .await?;
                continue;
            }
        };
        posts.retain(|(p, _)| p.id != post.id);
        posts.push((post, doc["_ts"].as_u64().unwrap_or(0)));
    }
    let oldest_in_feed = oldest_in_full_feed(c).await?;
    // A rename's copies in this batch, added up: kept with one write per rename, not per post.
    let mut renames: std::collections::BTreeMap<String, (u64, f64)> = Default::default();
    for (post, changed_at) in posts {
        let (copied, spent) = cosmos::ledger::measured(copy(c, &post, &oldest_in_feed)).await;
        let (copied, spent) = (copied?, spent.total());
        let rename = propagation::key("username", &post.user_id, &post.user_username);
        if progress.add_downstream(&rename, changed_at, copied, spent) {
            let sum = renames.entry(rename).or_default();
            *sum = (sum.0 + copied, sum.1 + spent);
        }
    }
    for (rename, (copies, charge)) in renames {
        progress.keep_downstream(&rename, copies, charge).await;
    }
    Ok(())
}

/// Writes `post`'s short copies; how many.
async fn copy(c: &Containers, post: &Post, oldest_in_feed: &Option<String>) -> cosmos::Result<u64> {
    let short = post.short();
    c.users.upsert_item(&short, None, None).await?;
    // A post older than everything in a full feed would be written and truncated at once.
    if oldest_in_feed
        .as_ref()
        .is_none_or(|oldest| short.creation_date >= *oldest)
    {
        c.feed.upsert_item(&short, None, feed_write()).await?;
        return Ok(2);
    }
    if c.feed
        .read_item::<Value>(&short.id, "post", None)
        .await
        .is_ok()
    {
        c.feed.upsert_item(&short, None, None).await?;
        return Ok(2);
    }
    Ok(1)
}

/// The date of the oldest post in the feed when it holds its 100, else `None`.
async fn oldest_in_full_feed(c: &Containers) -> cosmos::Result<Option<String>> {
    let r = c
        .feed
        .query_all::<Value>(
            "SELECT VALUE f.creationDate FROM f ORDER BY f.creationDate",
            cosmos::NO_PARAMS,
            cosmos::QueryOptions {
                partition_key: Some("post".into()),
                ..Default::default()
            },
        )
        .await?;
    Ok((r.items.len() >= crate::deploy::FEED_SIZE)
        .then(|| r.items.first().and_then(Value::as_str).map(str::to_owned))
        .flatten())
}
