//! What the generated users wrote: deterministic per user (same data on every machine), shaped
//! like the article's data set: 5–50 posts per user, up to 25 comments and 100 likes per post
//! (most posts get few, as on a real blog).

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::text;
use super::DEMO_USERNAME;
use crate::access::c1_user::{claim_key, skeleton_key};
use crate::model::{Comment, Like, Post, User, UsernameClaim};
use sitekit::pages::time::iso;

/// Generated user `n` with everything they wrote, ready to be written in any model.
pub struct Generated {
    pub user: User,
    /// The name's claim and its look-alikes' (see `access::c1_user`).
    pub claims: [UsernameClaim; 2],
    pub posts: Vec<(Post, Vec<Comment>, Vec<Like>)>,
}

pub fn user_id(n: u64) -> String {
    format!("user-{n:06}")
}

/// The `k`-th post of generated user `n` (every user has at least 5).
pub fn post_id(n: u64, k: u32) -> String {
    format!("post-{n:06}-{k:02}")
}

/// User `n` of `users`, with `password` (a PHC string).
pub fn generate(n: u64, users: u64, password: &str) -> Generated {
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
        propagated_at: None,
        renaming: None,
    };
    let claim = |kind: &str, key: String| UsernameClaim {
        id: key.clone(),
        kind: kind.into(),
        user_id: key,
        owner_id: id.clone(),
    };
    let claims = [
        claim("username", claim_key(&name)),
        claim("usernameSkeleton", skeleton_key(&name)),
    ];
    Generated {
        user,
        claims,
        posts: posts_of(n, users),
    }
}

fn rng(stream: u64, n: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(stream.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ n)
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
            let post_id = post_id(n, k);
            let created = start + chrono::Duration::seconds(r.random_range(0..60 * 86_400 * 11));
            let comments: Vec<Comment> =
                (0..(25.0 * r.random::<f64>().powi(3)) as u32)
                    .map(|i| {
                        let by = r.random_range(1..=users);
                        let id = format!("{post_id}-c{i:02}");
                        Comment {
                            comment_id: id.clone(),
                            id,
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
                .enumerate()
                .map(|(i, by)| Like {
                    id: format!("{post_id}-l{i:02}"),
                    kind: "like".into(),
                    post_id: post_id.clone(),
                    user_id: user_id(by),
                    user_username: username(by),
                    creation_date: iso(created + chrono::Duration::minutes(5)),
                })
                .collect();
            let title = text::title(&mut r);
            let content = text::body(&mut r);
            let post = Post {
                id: post_id.clone(),
                kind: "post".into(),
                post_id,
                user_id: user_id(n),
                user_username: username(n),
                title,
                html: crate::markdown::to_safe_html(&content).unwrap_or_default(),
                content,
                comment_count: comments.len() as u64,
                like_count: likes.len() as u64,
                creation_date: iso(created),
            };
            (post, comments, likes)
        })
        .collect()
}
