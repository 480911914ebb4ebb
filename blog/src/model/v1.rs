//! The documents of the article's V1: nothing denormalized. Posts, comments and likes reference
//! their author by `userId` only, and a post carries no counts.

use serde::{Deserialize, Serialize};

use super::{Comment, Like, Post};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PostV1 {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub post_id: String,
    pub user_id: String,
    pub title: String,
    pub content: String,
    pub creation_date: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommentV1 {
    pub id: String,
    /// The id again, for the unique key of `posts` (see [`Comment`]).
    #[serde(default)]
    pub comment_id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub post_id: String,
    pub user_id: String,
    pub content: String,
    pub creation_date: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LikeV1 {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub post_id: String,
    pub user_id: String,
    pub creation_date: String,
}

/// V1 stores what V2 stores minus the denormalized fields.
impl From<&Post> for PostV1 {
    fn from(p: &Post) -> Self {
        PostV1 {
            id: p.id.clone(),
            kind: p.kind.clone(),
            post_id: p.post_id.clone(),
            user_id: p.user_id.clone(),
            title: p.title.clone(),
            content: p.content.clone(),
            creation_date: p.creation_date.clone(),
        }
    }
}

impl From<&Comment> for CommentV1 {
    fn from(c: &Comment) -> Self {
        CommentV1 {
            id: c.id.clone(),
            comment_id: c.comment_id.clone(),
            kind: c.kind.clone(),
            post_id: c.post_id.clone(),
            user_id: c.user_id.clone(),
            content: c.content.clone(),
            creation_date: c.creation_date.clone(),
        }
    }
}

impl From<&Like> for LikeV1 {
    fn from(l: &Like) -> Self {
        LikeV1 {
            id: l.id.clone(),
            kind: l.kind.clone(),
            post_id: l.post_id.clone(),
            user_id: l.user_id.clone(),
            creation_date: l.creation_date.clone(),
        }
    }
}

impl PostV1 {
    /// The post as V2 stores it, once its username and counts have been looked up.
    pub fn with(self, user_username: String, comment_count: u64, like_count: u64) -> Post {
        Post {
            id: self.id,
            kind: self.kind,
            post_id: self.post_id,
            user_id: self.user_id,
            user_username,
            title: self.title,
            content: self.content,
            html: String::new(),
            comment_count,
            like_count,
            creation_date: self.creation_date,
        }
    }
}

impl CommentV1 {
    pub fn with(self, user_username: String) -> Comment {
        Comment {
            id: self.id,
            comment_id: self.comment_id,
            kind: self.kind,
            post_id: self.post_id,
            user_id: self.user_id,
            user_username,
            content: self.content,
            creation_date: self.creation_date,
        }
    }
}

impl LikeV1 {
    pub fn with(self, user_username: String) -> Like {
        Like {
            id: self.id,
            kind: self.kind,
            post_id: self.post_id,
            user_id: self.user_id,
            user_username,
            creation_date: self.creation_date,
        }
    }
}
