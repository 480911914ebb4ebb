//! The article's V2: usernames and counts denormalized into `posts` (so C2–C4, Q2, Q4 and Q5 are
//! V3's, in the files beside this folder), but no copies yet: Q3 and Q6 still query `posts`
//! across every physical partition.

pub mod q3_user_posts;
pub mod q6_feed;

use engine::{ContainerClient, ContainerProperties, DatabaseClient};
use sitekit::container::ensure;

use super::{PostsContainer, UsersContainer};
use crate::containers::{posts_properties, users_properties};

pub const DATABASE: &str = "blog-v2";

pub type Db = sitekit::Db<Containers>;

#[derive(Clone)]
pub struct Containers {
    /// pk `/userId`: users and username claims (no post copies in V2).
    pub users: ContainerClient,
    /// pk `/postId`: posts with username and counts, their comments and likes.
    pub posts: ContainerClient,
    /// pk `/processor`: the username propagation's checkpoints.
    pub leases: ContainerClient,
}

impl Containers {
    pub async fn create_if_not_exists(db: &DatabaseClient) -> engine::Result<Containers> {
        Ok(Containers {
            users: ensure(db, users_properties()).await?,
            posts: ensure(db, posts_properties()).await?,
            leases: ensure(db, ContainerProperties::new("leases", "/processor")).await?,
        })
    }
}

impl UsersContainer for Containers {
    fn users(&self) -> &ContainerClient {
        &self.users
    }
}

impl PostsContainer for Containers {
    fn posts(&self) -> &ContainerClient {
        &self.posts
    }
}
