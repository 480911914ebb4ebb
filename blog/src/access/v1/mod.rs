//! The article's V1: `users` and `posts`, nothing denormalized. Every request that shows a
//! username or a count makes extra queries for them (`lookups.rs`), and Q3 and Q6 query `posts`
//! across every physical partition. C1 and Q1 are the same as in V2 and V3 (`access/c1_user.rs`,
//! `access/q1_user.rs`).

pub mod c2_post;
pub mod c3_comment;
pub mod c4_like;
pub mod lookups;
pub mod q2_post;
pub mod q3_user_posts;
pub mod q4_comments;
pub mod q5_likes;
pub mod q6_feed;

use cosmos::{Container, Database};

use super::UsersContainer;
use crate::containers::{posts_properties, users_properties};

pub const DATABASE: &str = "blog-v1";

pub type Db = sitekit::Db<Containers>;

#[derive(Clone)]
pub struct Containers {
    /// pk `/userId` (= `id`): users and username claims.
    pub users: Container,
    /// pk `/postId`: posts, comments and likes, referencing users by id only.
    pub posts: Container,
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
        })
    }
}

impl UsersContainer for Containers {
    fn users(&self) -> &Container {
        &self.users
    }
}
