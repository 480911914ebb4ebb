//! The V3 model of `004_*`: `users` (users and short copies of their posts), `posts` (posts with
//! their comments and likes), `feed` (the 100 newest posts in one logical partition), plus the
//! change feed's leases. Each indexes only the paths its queries filter or sort on.

use cosmos::{Container, ContainerProperties, Database};
use serde_json::json;

pub const DATABASE: &str = "blog";

#[derive(Clone)]
pub struct Containers {
    /// pk `/userId`: users, username claims, and each user's posts in short form (Q3).
    pub users: Container,
    /// pk `/postId`: a post with its comments and likes in one logical partition.
    pub posts: Container,
    /// pk `/type`: the 100 most recent posts in short form, all in partition `post` (Q6).
    pub feed: Container,
    /// pk `/processor`: the change feed's checkpoints.
    pub leases: Container,
}

/// Physical partitions of every blog container: what `engine/RU.md` derives from the article's
/// V2 fan-out figures, so V1/V2/V3 are measured like the article's (a fan-out pays per partition).
pub const PHYSICAL_PARTITIONS: u32 = 35;

/// `users` (pk `/userId`) in every model: Q3 (V3) sorts a user's post copies by date inside the
/// user's partition.
pub fn users_properties() -> ContainerProperties {
    ContainerProperties::new("users", "/userId")
        .with_initial_partitions(PHYSICAL_PARTITIONS)
        .with_indexing_policy(json!({
            "includedPaths": [{"path": "/type/?"}, {"path": "/creationDate/?"}],
            "excludedPaths": [{"path": "/*"}]
        }))
}

/// The unique key of `posts`: a user likes a post once. A post's partition also holds the post
/// and its comments, all with a `userId`, and a unique key has no filter, so the key names the
/// kind and gives each comment its own value: `(post, author, —)` once, `(like, user, —)` once
/// per user, `(comment, user, its id)` as often as they like. (A missing path counts as a value,
/// as in Cosmos DB.)
pub const POSTS_UNIQUE_KEY: [&str; 3] = ["/type", "/userId", "/commentId"];

/// `posts` (pk `/postId`) in every model: Q4/Q5 sort a post's comments and likes by date inside
/// its partition; Q3/Q6 of V1 and V2 filter on `userId` and sort by date across partitions (as
/// does the username propagation).
pub fn posts_properties() -> ContainerProperties {
    ContainerProperties::new("posts", "/postId")
        .with_initial_partitions(PHYSICAL_PARTITIONS)
        .with_unique_key(&POSTS_UNIQUE_KEY)
        .with_indexing_policy(json!({
            "includedPaths": [{"path": "/type/?"}, {"path": "/creationDate/?"}, {"path": "/userId/?"}],
            "excludedPaths": [{"path": "/*"}]
        }))
}

impl Containers {
    pub async fn create_if_not_exists(db: &Database) -> cosmos::Result<Containers> {
        // Q6 and the truncating trigger sort the feed by date.
        let feed = ContainerProperties::new("feed", "/type")
            .with_initial_partitions(PHYSICAL_PARTITIONS)
            .with_indexing_policy(json!({
                "includedPaths": [{"path": "/creationDate/?"}],
                "excludedPaths": [{"path": "/*"}]
            }));
        Ok(Containers {
            users: db
                .create_container_if_not_exists(users_properties())
                .await?,
            posts: db
                .create_container_if_not_exists(posts_properties())
                .await?,
            feed: db.create_container_if_not_exists(feed).await?,
            leases: db
                .create_container_if_not_exists(ContainerProperties::new("leases", "/processor"))
                .await?,
        })
    }
}
