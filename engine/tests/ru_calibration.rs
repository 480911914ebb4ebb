//! The RU formula against the figures `004_*` published for its V1-V3 blog model: every
//! operation measured there lands within ±25% on documents shaped like the article's.

mod common;

use engine::{ContainerProperties, EngineOptions, QueryOptions};
use serde_json::{json, Value};

fn uuid(n: u32) -> String {
    format!("{n:08x}-5c1e-4b8a-9f3d-{:012x}", n as u64 * 7919)
}

fn assert_close(name: &str, got: f64, published: f64, table: &mut Vec<String>) {
    let ratio = got / published;
    table.push(format!(
        "| {name} | {published} | {got:.2} | {:+.0}% |",
        (ratio - 1.0) * 100.0
    ));
    assert!(
        (0.75..=1.25).contains(&ratio),
        "{name}: {got} RU vs published {published} RU"
    );
}

#[test]
fn charges_match_the_published_figures_of_the_blog_model() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let t = common::open(EngineOptions::default());
        let users = common::container(&t, ContainerProperties::new("users", "/id")).await;
        let posts = common::container(&t, ContainerProperties::new("posts", "/postId")).await;
        let users_v3 = common::container(&t, ContainerProperties::new("users_v3", "/userId")).await;
        let mut table = vec!["| request | published RU | engine RU | diff |".to_string(), "|---|---|---|---|".into()];

        // [C1] create a user (V1 shape) and its V3 shape.
        let c1 = users.create_item(&json!({"id": uuid(1), "username": "mariebrown"}), None, None).await.unwrap();
        assert_close("C1 create user (V1)", c1.request_charge, 5.71, &mut table);
        let c1v3 = users_v3
            .create_item(&json!({"id": uuid(1), "type": "user", "userId": uuid(1), "username": "mariebrown"}), None, None)
            .await
            .unwrap();
        assert_close("C1 create user (V3)", c1v3.request_charge, 5.71, &mut table);

        // [Q1] retrieve a user
        let q1 = users.read_item::<Value>(&uuid(1), uuid(1), None).await.unwrap();
        assert_close("Q1 read user", q1.request_charge, 1.0, &mut table);

        // [C2] create a post (V1 shape: the article measured it there and quotes it for V3).
        let content = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(8);
        let post = json!({
            "id": uuid(2), "type": "post", "postId": uuid(2), "userId": uuid(1),
            "title": "Modeling data for a document database",
            "content": content, "creationDate": "2019-05-23T10:20:30.1234567Z"
        });
        let c2 = posts.create_item(&post, None, None).await.unwrap();
        assert_close("C2 create post", c2.request_charge, 8.76, &mut table);

        // [C3] create a comment (V2/V3): the blog's createComment, the article's JavaScript
        // stored procedure (read the post, bump its count, create the comment in its partition).
        let mut v2_post = post.clone();
        v2_post["id"] = json!(uuid(3));
        v2_post["postId"] = json!(uuid(3));
        v2_post["commentCount"] = json!(0);
        posts.create_item(&v2_post, None, None).await.unwrap();
        posts
            .scripts()
            .upsert_stored_procedure(
                "createComment",
                engine::JavaScript::new(include_str!("../../blog/scripts/createComment.js")).unwrap(),
            )
            .unwrap();
        let comment = json!({"id": uuid(4), "type": "comment", "userId": uuid(1), "userUsername": "mariebrown",
                             "content": "Thanks, this cleared up how to pick a partition key for my app.",
                             "creationDate": "2019-05-23T11:00:00.0000000Z"});
        let c3 = posts
            .scripts()
            .execute_stored_procedure::<Value>("createComment", uuid(3), &[json!(uuid(3)), comment])
            .await
            .unwrap();
        assert_close("C3 create comment (V2/V3, createComment)", c3.request_charge, 15.27, &mut table);

        // [Q2] retrieve a post (V2/V3: one point read)
        let q2 = posts.read_item::<Value>(&uuid(2), uuid(2), None).await.unwrap();
        assert_close("Q2 read post (V3)", q2.request_charge, 1.0, &mut table);

        // [C3] create a comment (V1: a plain create)
        let comment = json!({
            "id": uuid(3), "type": "comment", "postId": uuid(2), "userId": uuid(4),
            "content": "Great article, the part on partitioning helped me a lot!".repeat(3),
            "creationDate": "2019-05-23T11:00:00.0000000Z"
        });
        let c3 = posts.create_item(&comment, None, None).await.unwrap();
        assert_close("C3 create comment (V1)", c3.request_charge, 8.57, &mut table);

        // [C4] like a post (V1: a plain create)
        let like = json!({
            "id": uuid(5), "type": "like", "postId": uuid(2), "userId": uuid(4),
            "creationDate": "2019-05-23T11:05:00.0000000Z"
        });
        let c4 = posts.create_item(&like, None, None).await.unwrap();
        assert_close("C4 like post (V1)", c4.request_charge, 7.05, &mut table);

        println!("{}", table.join("\n"));
    });
}

fn post(u: u32, p: u32, content: &str) -> Value {
    let id = uuid(1000 * u + p);
    json!({
        "id": id, "type": "post", "postId": id, "userId": uuid(u), "userUsername": format!("user{u}"),
        "title": format!("Post number {p} about data modeling"), "content": content,
        "commentCount": 12, "likeCount": 50, "creationDate": format!("2019-05-{:02}T10:{:02}:00.0000000Z", 1 + p % 28, p % 60)
    })
}

/// The V3 queries of `004_*` on a data set shaped like the article's (5-50 posts per user: 27
/// here; up to 25 comments and 100 likes per post: 12 and 50 here; the 100-post feed).
#[test]
fn query_charges_match_the_published_figures_of_the_blog_model() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions { initial_partitions: 4, ..Default::default() });
        let users = common::container(&t, ContainerProperties::new("users", "/userId")).await;
        let posts = common::container(&t, ContainerProperties::new("posts", "/postId")).await;
        let feed = common::container(&t, ContainerProperties::new("feed", "/type").with_initial_partitions(1)).await;
        let full = "Partitioning is about choosing which requests stay cheap as the data grows. ".repeat(12);
        let truncated: String = full.chars().take(100).collect();
        users.create_item(&json!({"id": uuid(1), "type": "user", "userId": uuid(1), "username": "user1"}), None, None).await.unwrap();
        for p in 0..27 {
            users.create_item(&post(1, p, &truncated), None, None).await.unwrap();
        }
        let the_post = post(2, 0, &full);
        let post_id = the_post["id"].clone();
        posts.create_item(&the_post, None, None).await.unwrap();
        for i in 0..12 {
            let c = json!({"id": uuid(5000 + i), "type": "comment", "postId": post_id, "userId": uuid(9), "userUsername": "user9",
                           "content": "Thanks, this cleared up how to pick a partition key for my app. ".repeat(4), "creationDate": "2019-05-23T11:00:00.0000000Z"});
            posts.create_item(&c, None, None).await.unwrap();
        }
        for i in 0..50 {
            let l = json!({"id": uuid(6000 + i), "type": "like", "postId": post_id, "userId": uuid(100 + i), "userUsername": format!("user{}", 100 + i),
                           "creationDate": "2019-05-23T12:00:00.0000000Z"});
            posts.create_item(&l, None, None).await.unwrap();
        }
        for p in 0..100 {
            feed.create_item(&post(3 + p % 7, p, &full), None, None).await.unwrap();
        }
        let mut table = vec!["| request | published RU | engine RU | diff | items |".to_string(), "|---|---|---|---|---|".into()];
        let cases = [
            ("Q3 a user's posts (users container)", &users, "SELECT * FROM u WHERE u.userId = @id AND u.type = 'post'", json!(uuid(1)), 6.46, 27),
            ("Q4 a post's comments", &posts, "SELECT * FROM p WHERE p.postId = @id AND p.type = 'comment'", post_id.clone(), 7.72, 12),
            ("Q5 a post's likes", &posts, "SELECT * FROM p WHERE p.postId = @id AND p.type = 'like'", post_id.clone(), 8.92, 50),
            ("Q6 the 100 newest posts (feed)", &feed, "SELECT TOP 100 * FROM f WHERE f.type = @id ORDER BY f.creationDate DESC", json!("post"), 16.97, 100),
        ];
        let mut fails = Vec::new();
        for (name, c, sql, id, published, n) in cases {
            let r = c.query_all::<Value>(sql, &[("@id", id)], QueryOptions::default()).await.unwrap();
            assert_eq!(r.items.len(), n, "{name}");
            let ratio = r.request_charge / published;
            table.push(format!("| {name} | {published} | {:.2} | {:+.0}% | {n} |", r.request_charge, (ratio - 1.0) * 100.0));
            if !(0.75..=1.25).contains(&ratio) {
                fails.push(format!("{name}: {} RU vs published {published} RU", r.request_charge));
            }
        }
        println!("{}", table.join("\n"));
        assert!(fails.is_empty(), "{fails:?}");
    });
}

/// Physical partitions of the article's V2 `posts` container under the per-partition fan-out
/// model (RU.md: "Fan-out queries"): V2 Q6 pays about one V3 Q6 per partition (532.33 / 16.97 =
/// 31.4), V2 Q3 one query base per partition (201.54 − 1.46 items) / 5 = 40.0; 35 puts both
/// within ±12%.
const V2_PARTITIONS: u32 = 35;

/// The V2 fan-outs of `004_*` (Q3 and Q6 on `posts`, not routed) on a container with that many
/// physical partitions, each holding more than 100 posts as the article's did.
#[test]
fn fan_out_charges_match_the_published_v2_figures() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let posts = common::container(
            &t,
            ContainerProperties::new("posts", "/postId").with_initial_partitions(V2_PARTITIONS),
        )
        .await;
        let full = "Partitioning is about choosing which requests stay cheap as the data grows. "
            .repeat(12);
        let mut tasks = tokio::task::JoinSet::new();
        for u in 1..=140u32 {
            for p in 0..27 {
                let (posts, doc) = (posts.clone(), post(u, p, &full));
                tasks.spawn(async move { posts.create_item(&doc, None, None).await.unwrap() });
            }
        }
        while let Some(r) = tasks.join_next().await {
            r.unwrap();
        }
        let stats = posts.stats(1).await.unwrap();
        assert_eq!(stats.partitions.len(), V2_PARTITIONS as usize);
        let mut table = vec![
            "| request | published RU | engine RU | diff | partitions |".to_string(),
            "|---|---|---|---|---|".into(),
        ];
        let cases = [
            (
                "V2 Q3 a user's posts (fan-out)",
                "SELECT * FROM p WHERE p.userId = @id AND p.type = 'post'",
                json!(uuid(1)),
                201.54,
                27,
            ),
            (
                "V2 Q6 the 100 newest posts (fan-out)",
                "SELECT TOP 100 * FROM p WHERE p.type = @id ORDER BY p.creationDate DESC",
                json!("post"),
                532.33,
                100,
            ),
        ];
        let mut fails = Vec::new();
        for (name, sql, id, published, n) in cases {
            let r = posts
                .query_all::<Value>(sql, &[("@id", id)], QueryOptions::default())
                .await
                .unwrap();
            assert_eq!(r.items.len(), n, "{name}");
            let m = r.query_metrics.unwrap();
            assert!(!m.routed);
            // Every partition's share is in the breakdown, and the shares add up to the charge.
            assert_eq!(m.partitions.len(), V2_PARTITIONS as usize, "{name}");
            let shares: f64 = m.partitions.iter().map(|p| p.request_charge).sum();
            assert!(
                (shares - r.request_charge).abs() < 0.02 * r.request_charge,
                "{name}: {shares} vs {}",
                r.request_charge
            );
            let ratio = r.request_charge / published;
            table.push(format!(
                "| {name} | {published} | {:.2} | {:+.0}% | {} |",
                r.request_charge,
                (ratio - 1.0) * 100.0,
                m.partitions.len()
            ));
            if !(0.75..=1.25).contains(&ratio) {
                fails.push(format!(
                    "{name}: {} RU vs published {published} RU",
                    r.request_charge
                ));
            }
        }
        println!("{}", table.join("\n"));
        assert!(fails.is_empty(), "{fails:?}");
    });
}
