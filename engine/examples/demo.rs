//! The blog of `004_*` (its V3 model) on the engine alone: seeds `./engine-demo-data` (apart from
//! the sites' `./data`) on first run, then walks the article's requests and prints what each cost
//! beside the figure the article published, and how the `posts` container's physical partitions
//! are loaded.
//!
//! `cargo run --release -p engine --example demo [DATA_DIR]`
//!
//! The demo writes the denormalized copies (posts into `users` and `feed`) itself and bumps the
//! comment count with a transactional batch; the blog app does it with the change feed and
//! stored procedures, as the article does.

use std::time::Instant;

use engine::{
    ContainerClient, ContainerProperties, Engine, EngineOptions, PatchOperation, QueryOptions,
    TransactionalBatch, NO_PARAMS,
};
use serde_json::{json, Value};

const USERS: u64 = 300;
const POSTS_PER_USER: u64 = 5;

fn post(u: u64, p: u64) -> Value {
    let id = format!("post-{u}-{p}");
    json!({
        "id": id, "type": "post", "postId": id, "userId": format!("user-{u}"), "userUsername": format!("writer{u}"),
        "title": format!("Notes on partitioning, part {p}"),
        "content": "Choosing a partition key is choosing which requests stay cheap. ".repeat(6),
        "commentCount": 0, "likeCount": 0, "creationDate": format!("2026-11-{:02}T10:{:02}:00.0000000Z", 1 + p % 28, u % 60)
    })
}

#[tokio::main]
async fn main() -> engine::Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "engine-demo-data".into());
    let engine = Engine::open(
        &dir,
        EngineOptions {
            initial_partitions: 4,
            ..Default::default()
        },
    )?;
    let fresh = engine.databases().iter().all(|d| d.id != "blog");
    let db = engine.create_database_if_not_exists("blog").await?;
    let users = db
        .create_container_if_not_exists(ContainerProperties::new("users", "/userId"))
        .await?;
    // As many physical partitions as RU.md derives for the article's posts container, so the
    // V2 fan-outs are priced like for like.
    let posts = db
        .create_container_if_not_exists(
            ContainerProperties::new("posts", "/postId").with_initial_partitions(35),
        )
        .await?;
    let feed = db
        .create_container_if_not_exists(
            ContainerProperties::new("feed", "/type").with_initial_partitions(1),
        )
        .await?;
    if fresh {
        seed(&users, &posts, &feed).await?;
    }

    let mut rows: Vec<(&str, f64, f64, usize)> = Vec::new();
    let stamp = Instant::now().elapsed().as_nanos() ^ std::process::id() as u128;
    let uid = format!("user-demo-{stamp}");
    let r = users
        .create_item(
            &json!({"id": uid, "type": "user", "userId": uid, "username": "demo"}),
            None,
            None,
        )
        .await?;
    rows.push((
        "[C1] create a user",
        r.request_charge,
        5.71,
        r.diagnostics.partitions.len(),
    ));
    let r = users.read_item::<Value>(&uid, uid.as_str(), None).await?;
    rows.push((
        "[Q1] retrieve a user",
        r.request_charge,
        1.0,
        r.diagnostics.partitions.len(),
    ));
    let mut p = post(0, 0);
    let pid = format!("post-demo-{stamp}");
    p["id"] = json!(pid);
    p["postId"] = json!(pid);
    p["userId"] = json!(uid);
    let r = posts.create_item(&p, None, None).await?;
    rows.push((
        "[C2] create a post",
        r.request_charge,
        8.76,
        r.diagnostics.partitions.len(),
    ));
    let r = posts
        .read_item::<Value>("post-1-1", "post-1-1", None)
        .await?;
    rows.push((
        "[Q2] retrieve a post",
        r.request_charge,
        1.0,
        r.diagnostics.partitions.len(),
    ));
    let q3 = "SELECT * FROM u WHERE u.userId = @id AND u.type = 'post'";
    let r = users
        .query_items::<Value>(q3, &[("@id", json!("user-1"))], QueryOptions::default())
        .await?;
    rows.push((
        "[Q3] a user's posts",
        r.request_charge,
        6.46,
        r.diagnostics.partitions.len(),
    ));
    let batch = TransactionalBatch::new("post-1-1")
        .create_item(&json!({"id": format!("comment-{stamp}"), "type": "comment", "postId": "post-1-1", "userId": uid, "userUsername": "demo", "content": "Nice one.", "creationDate": "2026-11-22T12:00:00Z"}))
        .patch_item("post-1-1", vec![PatchOperation::increment("/commentCount", 1)], None);
    let r = posts.execute_batch(batch).await?;
    rows.push((
        "[C3] comment + commentCount (batch)",
        r.request_charge,
        15.27,
        r.diagnostics.partitions.len(),
    ));
    let q4 = "SELECT * FROM p WHERE p.postId = @id AND p.type = 'comment'";
    let r = posts
        .query_items::<Value>(q4, &[("@id", json!("post-1-1"))], QueryOptions::default())
        .await?;
    rows.push((
        "[Q4] a post's comments",
        r.request_charge,
        7.72,
        r.diagnostics.partitions.len(),
    ));
    let q6 = "SELECT TOP 100 * FROM f WHERE f.type = 'post' ORDER BY f.creationDate DESC";
    let r = feed
        .query_items::<Value>(q6, NO_PARAMS, QueryOptions::default())
        .await?;
    rows.push((
        "[Q6] the 100 newest posts (feed)",
        r.request_charge,
        16.97,
        r.diagnostics.partitions.len(),
    ));
    // The same question asked of the posts container fans out to every partition (the V2 model).
    let v2 = "SELECT TOP 100 * FROM p WHERE p.type = 'post' ORDER BY p.creationDate DESC";
    let r = posts
        .query_items::<Value>(v2, NO_PARAMS, QueryOptions::default())
        .await?;
    rows.push((
        "[Q6] same query on posts (fan-out, V2)",
        r.request_charge,
        532.33,
        r.diagnostics.partitions.len(),
    ));
    // V2's Q3: a user's posts, asked of posts (partitioned by postId): every partition runs it.
    let v2_q3 = "SELECT * FROM p WHERE p.userId = @id AND p.type = 'post'";
    let r = posts
        .query_all::<Value>(v2_q3, &[("@id", json!("user-1"))], QueryOptions::default())
        .await?;
    rows.push((
        "[Q3] same query on posts (fan-out, V2)",
        r.request_charge,
        201.54,
        r.diagnostics.partitions.len(),
    ));

    println!(
        "\n{:<40} {:>10} {:>14} {:>11}",
        "request", "engine RU", "004_* RU", "partitions"
    );
    for (name, ru, published, parts) in &rows {
        println!("{name:<40} {ru:>10.2} {published:>14.2} {parts:>11}");
    }

    let stats = posts.stats(3).await?;
    println!(
        "\nposts: {} items, {} bytes in {} physical partitions",
        stats.items,
        stats.bytes,
        stats.partitions.len()
    );
    let max = stats
        .partitions
        .iter()
        .map(|p| p.bytes)
        .max()
        .unwrap_or(1)
        .max(1);
    for p in &stats.partitions {
        let bar = "#".repeat((p.bytes * 40 / max) as usize);
        println!(
            "  #{:<3} {}..{}  {:>6} items {:>9} B  {bar}",
            p.id,
            &p.range_start[..4],
            &p.range_end[..4],
            p.items,
            p.bytes
        );
    }
    println!("\ndata is in ./{dir}: try `cargo run -p engine -- --data {dir} stats --db blog --container posts`");
    Ok(())
}

async fn seed(
    users: &ContainerClient,
    posts: &ContainerClient,
    feed: &ContainerClient,
) -> engine::Result<()> {
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for u in 0..USERS {
        let (users, posts, feed) = (users.clone(), posts.clone(), feed.clone());
        tasks.spawn(async move {
            let uid = format!("user-{u}");
            users.upsert_item(&json!({"id": uid, "type": "user", "userId": uid, "username": format!("writer{u}")}), None, None).await?;
            for p in 0..POSTS_PER_USER {
                let doc = post(u, p);
                posts.upsert_item(&doc, None, None).await?;
                users.upsert_item(&doc, None, None).await?;
                if u * POSTS_PER_USER + p >= USERS * POSTS_PER_USER - 100 {
                    feed.upsert_item(&doc, None, None).await?;
                }
            }
            Ok::<_, engine::Error>(())
        });
        if tasks.len() >= 32 {
            tasks
                .join_next()
                .await
                .expect("a task")
                .expect("seed task")?;
        }
        if (u + 1) % 100 == 0 {
            eprintln!(
                "seeding: {}/{USERS} users with their posts ({:.1}s)",
                u + 1,
                started.elapsed().as_secs_f64()
            );
        }
    }
    while let Some(r) = tasks.join_next().await {
        r.expect("seed task")?;
    }
    eprintln!(
        "seeded {USERS} users and {} posts in {:.1}s",
        USERS * POSTS_PER_USER,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
