//! The article's server-side scripts, translated line for line from its JavaScript: they run as
//! one ACID transaction inside one logical partition.

use engine::{ContainerClient, Error, ItemOptions, ScriptContext, Trigger, TriggerOperation};
use serde_json::{json, Value};

/// Most posts the feed keeps (`004_*`: "we just need to get the 100 most recent posts").
pub const FEED_SIZE: usize = 100;
pub const TRUNCATE_FEED: &str = "truncateFeed";

fn post_of(ctx: &mut ScriptContext, args: &[Value]) -> engine::Result<(String, Value)> {
    let post_id = args
        .first()
        .and_then(Value::as_str)
        .ok_or_else(|| Error::bad("args[0]", "postId must be a string"))?
        .to_owned();
    let post = ctx
        .read_item(&post_id)?
        .filter(|p| p["type"] == "post")
        .ok_or_else(|| Error::NotFound {
            what: format!("post {post_id}"),
        })?;
    Ok((post_id, post))
}

/// `createComment(postId, comment)`: increments the post's `commentCount` and creates the
/// comment, or neither.
pub fn create_comment(ctx: &mut ScriptContext, args: &[Value]) -> engine::Result<Value> {
    let (post_id, mut post) = post_of(ctx, args)?;
    let mut comment = args
        .get(1)
        .cloned()
        .ok_or_else(|| Error::bad("args[1]", "the comment is required"))?;
    post["commentCount"] = json!(post["commentCount"].as_u64().unwrap_or(0) + 1);
    ctx.replace_item(&post_id, post, None)?;
    comment["postId"] = json!(post_id);
    ctx.create_item(comment)
}

/// `createLike(postId, like)`: the like's id is its user's, so liking twice is a 409 and
/// changes no count.
pub fn create_like(ctx: &mut ScriptContext, args: &[Value]) -> engine::Result<Value> {
    let (post_id, mut post) = post_of(ctx, args)?;
    let mut like = args
        .get(1)
        .cloned()
        .ok_or_else(|| Error::bad("args[1]", "the like is required"))?;
    like["postId"] = json!(post_id);
    let created = ctx.create_item(like)?;
    post["likeCount"] = json!(post["likeCount"].as_u64().unwrap_or(0) + 1);
    ctx.replace_item(&post_id, post, None)?;
    Ok(created)
}

/// `deleteLike(postId, likeId)`: removes the like and decrements `likeCount`; 404 if there is
/// no such like.
pub fn delete_like(ctx: &mut ScriptContext, args: &[Value]) -> engine::Result<Value> {
    let (post_id, mut post) = post_of(ctx, args)?;
    let like_id = args
        .get(1)
        .and_then(Value::as_str)
        .ok_or_else(|| Error::bad("args[1]", "likeId must be a string"))?;
    ctx.delete_item(like_id)?;
    post["likeCount"] = json!(post["likeCount"].as_u64().unwrap_or(1).saturating_sub(1));
    ctx.replace_item(&post_id, post, None)?;
    Ok(json!(null))
}

/// `updateUsernames(userId, username)`: every item of the user in this partition (a post, its
/// comments and likes) gets the new name.
pub fn update_usernames(ctx: &mut ScriptContext, args: &[Value]) -> engine::Result<Value> {
    let (user_id, username) = (
        args.first().cloned().unwrap_or(Value::Null),
        args.get(1).cloned().unwrap_or(Value::Null),
    );
    if !user_id.is_string() || !username.is_string() {
        return Err(Error::bad("args", "userId and username must be strings"));
    }
    let results = ctx.query(
        "SELECT * FROM p WHERE p.userId = @userId",
        &[("@userId", user_id)],
    )?;
    let mut changed = 0;
    for mut doc in results {
        if doc["userUsername"] != username {
            doc["userUsername"] = username.clone();
            ctx.upsert_item(doc)?;
            changed += 1;
        }
    }
    Ok(json!(changed))
}

/// The post-trigger `truncateFeed`: after a write to the feed, keeps only its 100 newest posts.
pub fn truncate_feed(ctx: &mut ScriptContext, _written: &Value) -> engine::Result<()> {
    let count = ctx.query("SELECT VALUE COUNT(1) FROM f", &[])?;
    let count = count.first().and_then(Value::as_u64).unwrap_or(0) as usize;
    if count > FEED_SIZE {
        let oldest = ctx.query(
            "SELECT TOP @n f.id FROM f ORDER BY f.creationDate",
            &[("@n", json!(count - FEED_SIZE))],
        )?;
        for doc in oldest {
            ctx.delete_item(doc["id"].as_str().unwrap_or_default())?;
        }
    }
    Ok(())
}

/// Options of every feed write: run `truncateFeed` after it, in its transaction.
pub fn feed_write() -> Option<ItemOptions> {
    Some(ItemOptions::with_triggers(&[], &[TRUNCATE_FEED]))
}

/// Registers the scripts (at start-up, as a deployment would).
/// Registers the procedures on a `posts` container (V2 and V3) and, with V3's `feed`, the
/// truncating trigger.
pub fn register(posts: &ContainerClient, feed: Option<&ContainerClient>) -> engine::Result<()> {
    let scripts = posts.scripts();
    scripts.upsert_stored_procedure("createComment", create_comment)?;
    scripts.upsert_stored_procedure("createLike", create_like)?;
    scripts.upsert_stored_procedure("deleteLike", delete_like)?;
    scripts.upsert_stored_procedure("updateUsernames", update_usernames)?;
    match feed {
        Some(feed) => feed.scripts().upsert_trigger(
            TRUNCATE_FEED,
            Trigger::post(TriggerOperation::All, truncate_feed),
        ),
        None => Ok(()),
    }
}
