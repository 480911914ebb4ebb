//! [Q3] List a user's posts in short form: V3 keeps a short copy of each post in its author's
//! partition of `users`, so this is a single-partition query (6.46 RU in the article, against
//! 619.41 RU for V1's fan-out).

use cosmos::Labelled;
use cosmos::QueryOptions;
use serde_json::json;

use super::{Db, Page, Result};
use crate::model::PostShort;

pub async fn user_posts(
    db: &Db,
    user_id: &str,
    continuation: Option<String>,
) -> Result<Page<PostShort>> {
    let r = db
        .users
        .query_items::<PostShort>(
            "SELECT * FROM u WHERE u.userId = @userId AND u.type = 'post' ORDER BY u.creationDate DESC",
            &[("@userId", json!(user_id))],
            QueryOptions {
                partition_key: Some(user_id.into()),
                max_item_count: Some(20),
                continuation,
                ..Default::default()
            },
        )
        .labelled("[Q3] query user's posts").await
        ?;
    Ok(r.into())
}
