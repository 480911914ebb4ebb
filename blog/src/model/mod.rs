//! The documents of the V3 model of `004_*`, as stored (camelCase JSON names).

pub mod v1;

use serde::{Deserialize, Serialize};

/// A user, in `users` (partition key `/userId`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct User {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub user_id: String,
    pub username: String,
    /// argon2id PHC string: never rendered, never logged.
    pub password: String,
    pub creation_date: String,
    /// Bumped by every username change; the propagation worker copies it to
    /// `propagatedVersion` once every copy carries the new name.
    #[serde(default)]
    pub username_version: u64,
    #[serde(default)]
    pub propagated_version: u64,
    /// When the worker set `propagatedVersion` (Unix seconds): the copies of the posts follow
    /// through the posts' change feed moments later, so only then is the lag worth asking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub propagated_at: Option<u64>,
    /// Set while a rename of this user is under way (`access::c1_user`): one rename at a time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renaming: Option<Renaming>,
}

/// A rename in progress: which request holds the user, for what name, until when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Renaming {
    pub to: String,
    /// Unix seconds; past it the mark is a crashed request's and the next rename may go on.
    pub until: u64,
    /// The request's own random token: a request that finds another token lost its mark.
    pub token: String,
}

/// Makes usernames unique without a fan-out: one document per username, in its own logical
/// partition of `users` (`userId = "username:<name>"`), created before the name is used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsernameClaim {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub user_id: String,
    pub owner_id: String,
}

/// A post, in `posts` (partition key `/postId`), with the author's username and the comment and
/// like counts denormalized into it (V2 of the article).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Post {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub post_id: String,
    pub user_id: String,
    pub user_username: String,
    pub title: String,
    pub content: String,
    /// `content` rendered to sanitized HTML when the post is written, so a view never renders
    /// (absent on posts written before it was stored: those render on view).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub html: String,
    pub comment_count: u64,
    pub like_count: u64,
    pub creation_date: String,
}

/// A post in short form: what `users` (Q3) and `feed` (Q6) hold, content truncated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PostShort {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub post_id: String,
    pub user_id: String,
    pub user_username: String,
    pub title: String,
    pub content: String,
    pub comment_count: u64,
    pub like_count: u64,
    pub creation_date: String,
}

/// A comment, in the post's partition of `posts`. `commentId` repeats the id for the unique key
/// of `posts` (`/type, /userId, /commentId`, see `containers.rs`): every comment has its own
/// value there, so the key that lets a user like a post once never limits their comments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Comment {
    pub id: String,
    /// The id again (read leniently: a comment written past the app may lack it).
    #[serde(default)]
    pub comment_id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub post_id: String,
    pub user_id: String,
    pub user_username: String,
    pub content: String,
    pub creation_date: String,
}

/// A like, in the post's partition of `posts`. A user likes a post at most once: the unique key
/// of `posts` (`/type, /userId, /commentId`; a like has no `commentId`) refuses a second like of
/// one user in the post's partition (409).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Like {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub post_id: String,
    pub user_id: String,
    pub user_username: String,
    pub creation_date: String,
}

impl Comment {
    /// A new comment's id (also its `commentId`).
    pub fn new_id() -> String {
        format!("comment-{:016x}", rand::random::<u64>())
    }
}

impl Like {
    /// A new like's id: any id unique in the post's partition; the unique key, not the id, makes
    /// the like the user's only one.
    pub fn new_id() -> String {
        format!("like-{:016x}", rand::random::<u64>())
    }
}

/// Characters of content kept in a short copy.
pub const SHORT_CONTENT: usize = 280;

impl Post {
    /// The post in short form: its content becomes a plain-text excerpt (listings showed raw
    /// Markdown: `**bold**`, `# Hello`).
    pub fn short(&self) -> PostShort {
        let content = crate::markdown::excerpt(&self.content, SHORT_CONTENT);
        PostShort {
            id: self.id.clone(),
            kind: "post".into(),
            post_id: self.post_id.clone(),
            user_id: self.user_id.clone(),
            user_username: self.user_username.clone(),
            title: self.title.clone(),
            content,
            comment_count: self.comment_count,
            like_count: self.like_count,
            creation_date: self.creation_date.clone(),
        }
    }
}
