//! Demo data with the article's shape on first start: `--users N` users with 5–50 posts each, up
//! to 25 comments and 100 likes per post (most posts get few, as on a real blog), generated from
//! per-user seeds (same data on every machine), written with upserts and transactional batches so
//! counts always equal the comments and likes stored, and a marker written last.

mod text;

use std::time::Duration;

use engine::TransactionalBatch;
use futures_util::{stream, TryStreamExt};
use indicatif::{ProgressBar, ProgressStyle};
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

use crate::access::c1_user::claim_key;
use crate::containers::Containers;
use crate::model::{Comment, Like, Post, PostShort, User, UsernameClaim};
use sitekit::time::iso;

pub const DEMO_USERNAME: &str = "demo";
pub const DEMO_PASSWORD: &str = "demo-password";
const MARKER_ID: &str = "seed";
const IN_FLIGHT: usize = 32;

fn rng(stream: u64, n: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(stream.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ n)
}

pub fn user_id(n: u64) -> String {
    format!("user-{n:06}")
}

fn username(n: u64) -> String {
    if n == 1 {
        return DEMO_USERNAME.into();
    }
    let mut r = rng(7, n);
    format!("{}{}", text::HANDLES.choose(&mut r).expect("handles"), n)
}

/// Everything user `n` wrote: their posts with comments and likes by other users.
fn posts_of(n: u64, users: u64) -> Vec<(Post, Vec<Comment>, Vec<Like>)> {
    let mut r = rng(3, n);
    let start = chrono::NaiveDate::from_ymd_opt(2025, 1, 1)
        .expect("date")
        .and_hms_opt(0, 0, 0)
        .expect("time");
    (0..r.random_range(5..=50u32))
        .map(|k| {
            let post_id = format!("post-{n:06}-{k:02}");
            let created = start + chrono::Duration::seconds(r.random_range(0..60 * 86_400 * 11));
            let comments: Vec<Comment> =
                (0..(25.0 * r.random::<f64>().powi(3)) as u32)
                    .map(|i| {
                        let by = r.random_range(1..=users);
                        Comment {
                            id: format!("{post_id}-c{i:02}"),
                            kind: "comment".into(),
                            post_id: post_id.clone(),
                            user_id: user_id(by),
                            user_username: username(by),
                            content: text::comment(&mut r),
                            creation_date: iso(
                                created + chrono::Duration::minutes(10 * (i as i64 + 1))
                            ),
                        }
                    })
                    .collect();
            let mut likers: Vec<u64> = (0..(100.0 * r.random::<f64>().powi(4)) as u32)
                .map(|_| r.random_range(1..=users))
                .collect();
            likers.sort_unstable();
            likers.dedup();
            let likes: Vec<Like> = likers
                .into_iter()
                .map(|by| Like {
                    id: Like::id_for(&user_id(by)),
                    kind: "like".into(),
                    post_id: post_id.clone(),
                    user_id: user_id(by),
                    user_username: username(by),
                    creation_date: iso(created + chrono::Duration::minutes(5)),
                })
                .collect();
            let post = Post {
                id: post_id.clone(),
                kind: "post".into(),
                post_id,
                user_id: user_id(n),
                user_username: username(n),
                title: text::title(&mut r),
                content: text::body(&mut r),
                comment_count: comments.len() as u64,
                like_count: likes.len() as u64,
                creation_date: iso(created),
            };
            (post, comments, likes)
        })
        .collect()
}

async fn batch(c: &engine::ContainerClient, b: TransactionalBatch) -> engine::Result<()> {
    let r = c.execute_batch(b).await?;
    match r.error_message {
        Some(e) => Err(engine::Error::bad_request(format!("seeding failed: {e}"))),
        None => Ok(()),
    }
}

/// Writes user `n` (and the claim of their name), their posts, comments and likes, and the short
/// copies of their posts; returns the short copies for the feed.
async fn write_user(
    c: &Containers,
    n: u64,
    users: u64,
    password: &str,
) -> engine::Result<Vec<PostShort>> {
    let id = user_id(n);
    let name = username(n);
    let user = User {
        id: id.clone(),
        kind: "user".into(),
        user_id: id.clone(),
        username: name.clone(),
        password: password.to_owned(),
        creation_date: iso(chrono::NaiveDate::from_ymd_opt(2024, 12, 1)
            .expect("date")
            .and_hms_opt(9, 0, 0)
            .expect("time")),
        username_version: 0,
        propagated_version: 0,
    };
    let claim = UsernameClaim {
        id: claim_key(&name),
        kind: "username".into(),
        user_id: claim_key(&name),
        owner_id: id.clone(),
    };
    c.users.upsert_item(&claim, None, None).await?;
    let posts = posts_of(n, users);
    let mut user_batch = TransactionalBatch::new(id.as_str()).upsert_item(&user);
    let mut shorts = Vec::with_capacity(posts.len());
    for (post, comments, likes) in &posts {
        let mut b = TransactionalBatch::new(post.post_id.as_str()).upsert_item(post);
        for cm in comments {
            b = b.upsert_item(cm);
        }
        batch(&c.posts, b).await?;
        for chunk in likes.chunks(100) {
            let mut b = TransactionalBatch::new(post.post_id.as_str());
            for l in chunk {
                b = b.upsert_item(l);
            }
            batch(&c.posts, b).await?;
        }
        let short = post.short();
        user_batch = user_batch.upsert_item(&short);
        shorts.push(short);
    }
    batch(&c.users, user_batch).await?;
    Ok(shorts)
}

/// Seeds unless a complete seed is there; returns the number of users the data holds.
pub async fn seed_if_needed(c: &Containers, users: u64) -> engine::Result<u64> {
    if let Ok(r) = c.feed.read_item::<Value>(MARKER_ID, "seed", None).await {
        return Ok(r.resource.unwrap_or_default()["users"]
            .as_u64()
            .unwrap_or(0));
    }
    let started = std::time::Instant::now();
    let users = users.max(1);
    let bar = ProgressBar::new(users);
    bar.set_style(
        ProgressStyle::with_template(
            "seeding blog users     [{bar:40}] {pos}/{len} ({per_sec}, eta {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    let map_err = |e: sitekit::WebError| engine::Error::bad_request(e.to_string());
    let demo = sitekit::auth::hash_password(DEMO_PASSWORD.to_owned())
        .await
        .map_err(map_err)?;
    // Nobody knows this one: generated users exist to be read and measured, not signed into.
    let unknown = sitekit::auth::hash_password(format!("{:x}", rand::random::<u128>()))
        .await
        .map_err(map_err)?;
    let mut newest: Vec<PostShort> = Vec::new();
    let shorts: Vec<Vec<PostShort>> = stream::iter((1..=users).map(Ok))
        .map_ok(|n| {
            let (bar, password) = (
                bar.clone(),
                if n == 1 {
                    demo.clone()
                } else {
                    unknown.clone()
                },
            );
            async move {
                let s = write_user(c, n, users, &password).await?;
                bar.inc(1);
                // Keep only what could be among the newest 100.
                let mut s = s;
                s.sort_by(|a, b| b.creation_date.cmp(&a.creation_date));
                s.truncate(crate::scripts::FEED_SIZE);
                Ok::<_, engine::Error>(s)
            }
        })
        .try_buffer_unordered(IN_FLIGHT)
        .try_collect()
        .await?;
    for s in shorts {
        newest.extend(s);
    }
    newest.sort_by(|a, b| {
        b.creation_date
            .cmp(&a.creation_date)
            .then_with(|| a.id.cmp(&b.id))
    });
    newest.truncate(crate::scripts::FEED_SIZE);
    for s in &newest {
        c.feed.upsert_item(s, None, None).await?;
    }
    c.feed
        .upsert_item(
            &json!({"id": MARKER_ID, "type": "seed", "users": users}),
            None,
            None,
        )
        .await?;
    bar.finish_with_message(format!(
        "seeded in {:.1} s",
        started.elapsed().as_secs_f64()
    ));
    Ok(users)
}
