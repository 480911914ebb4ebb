//! The article's V2: usernames and counts denormalized into `posts` (so C2–C4, Q2, Q4 and Q5 are
//! V3's, in the files beside this folder), but no copies yet: Q3 and Q6 still query `posts`
//! across every physical partition.

pub mod q3_user_posts;
pub mod q6_feed;

use cosmos::{Container, ContainerProperties, Database};

use super::{PostsContainer, UsersContainer};
use crate::containers::{posts_properties, users_properties};

pub const DATABASE: &str = "blog-v2";

pub type Db = sitekit::Db<Containers>;

#[derive(Clone)]
pub struct Containers {
    /// pk `/userId`: users and username claims (no post copies in V2).
    pub users: Container,
    /// pk `/postId`: posts with username and counts, their comments and likes.
    pub posts: Container,
    /// pk `/processor`: the username propagation's checkpoints.
    pub leases: Container,
}

impl Containers {
    pub async fn create_if_not_exists(db: &Database) -> cosmos::Result<Containers> {
        Ok(Containers {
            users: db
                .create_container_if_not_exists(users_properties())
                .await?,
            posts: db
                .create_container_if_not_exists(posts_properties())
                .await?,
            leases: db
                .create_container_if_not_exists(ContainerProperties::new("leases", "/processor"))
                .await?,
        })
    }
}

impl UsersContainer for Containers {
    fn users(&self) -> &Container {
        &self.users
    }
}

impl PostsContainer for Containers {
    fn posts(&self) -> &Container {
        &self.posts
    }
}
