//! Deploys the blog's server-side JavaScript (`blog/scripts/*.js`, the article's scripts) on
//! start, as `az cosmosdb sql stored-procedure create` would: the engine runs them as Cosmos DB
//! does, each in one transaction of one logical partition.

use cosmos::{Container, ItemOptions, TriggerOperation};

/// Most posts the feed keeps (`004_*`: "we just need to get the 100 most recent posts"); the
/// `maxDocs` of `truncateFeed.js` (a test keeps the two equal).
pub const FEED_SIZE: usize = 100;
pub const TRUNCATE_FEED: &str = "truncateFeed";

/// The stored procedures of a `posts` container (V2 and V3), by id.
pub const PROCEDURES: [(&str, &str); 4] = [
    ("createComment", include_str!("../scripts/createComment.js")),
    ("createLike", include_str!("../scripts/createLike.js")),
    ("deleteLike", include_str!("../scripts/deleteLike.js")),
    (
        "updateUsernames",
        include_str!("../scripts/updateUsernames.js"),
    ),
];
pub const TRUNCATE_FEED_JS: &str = include_str!("../scripts/truncateFeed.js");

/// Options of every feed write: run `truncateFeed` after it, in its transaction.
pub fn feed_write() -> Option<ItemOptions> {
    Some(ItemOptions::with_triggers(&[], &[TRUNCATE_FEED]))
}

/// Registers the procedures on a `posts` container and, with V3's `feed`, the truncating
/// post-trigger.
pub async fn register(posts: &Container, feed: Option<&Container>) -> cosmos::Result<()> {
    for (id, body) in PROCEDURES {
        posts.upsert_stored_procedure(id, body).await?;
    }
    match feed {
        Some(feed) => {
            feed.upsert_post_trigger(TRUNCATE_FEED, TRUNCATE_FEED_JS, TriggerOperation::All)
                .await
        }
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_trigger_keeps_feed_size_posts() {
        assert!(super::TRUNCATE_FEED_JS.contains(&format!("const maxDocs = {};", super::FEED_SIZE)));
    }
}
