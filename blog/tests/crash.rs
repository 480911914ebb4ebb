//! Comments and likes under kill -9: a child process (this test binary, re-executed) serves the
//! blog and comments, likes and unlikes through real HTTP, printing each acknowledged request;
//! the parent kills it with SIGKILL mid-load, several times, then checks that every post's
//! `commentCount` and `likeCount` equal the comments and likes stored, and that no acknowledged
//! comment was lost.

use blog::{Blog, BlogOptions};
use engine::{Engine, EngineOptions};
use serde_json::Value;
use sitekit::testing::crash::kill_after_acks;
use sitekit::testing::TestApp;

const CHILD_ENV: &str = "BLOG_CRASH_CHILD_DIR";
const POSTS: [&str; 3] = ["post-000001-00", "post-000001-01", "post-000002-00"];

#[test]
fn engagement_child() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return;
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let engine = Engine::open(&dir, EngineOptions::default()).unwrap();
        let blog = Blog::start(
            &cosmos::Account::embedded(engine.clone()),
            &BlogOptions { users: 3 },
        )
        .await
        .unwrap();
        let app = TestApp::serve(blog::SITE, blog.configure(), 2);
        let run = std::process::id();
        let mut tasks = Vec::new();
        for w in 0..4 {
            let v = app.visitor();
            let name = format!("fan{run}x{w}");
            let r = v
                .submit(
                    "/signup",
                    "/signup",
                    &[("username", &name), ("password", "a long password")],
                )
                .await;
            assert_eq!(r.status, 303, "{}", r.body);
            tasks.push(tokio::spawn(async move {
                for i in 0usize.. {
                    let post = POSTS[i % POSTS.len()];
                    let page = format!("/posts/{post}");
                    let text = format!("{name}-{i}");
                    let r = v
                        .submit(&page, &format!("{page}/comments"), &[("content", &text)])
                        .await;
                    assert_eq!(r.status, 303);
                    println!("ack comment {post} {text}");
                    let action = if i % 2 == 0 { "like" } else { "unlike" };
                    let r = v.submit(&page, &format!("{page}/{action}"), &[]).await;
                    assert_eq!(r.status, 303);
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
    });
}

#[test]
fn counts_equal_comments_and_likes_after_kill_9() {
    if std::env::var(CHILD_ENV).is_ok() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut acknowledged = Vec::new();
    for wanted in [5usize, 60, 25] {
        for rest in kill_after_acks(
            "engagement_child",
            CHILD_ENV,
            dir.path(),
            "ack comment ",
            wanted,
        ) {
            let (post, text) = rest.split_once(' ').unwrap();
            acknowledged.push((post.to_owned(), text.to_owned()));
        }
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let posts = engine.database("blog").container("posts");
        for post in POSTS {
            let docs = posts
                .read_all_items_in_partition::<Value>(post)
                .await
                .unwrap()
                .items;
            let p = docs.iter().find(|d| d["type"] == "post").unwrap();
            let comments: Vec<&Value> = docs.iter().filter(|d| d["type"] == "comment").collect();
            let likes = docs.iter().filter(|d| d["type"] == "like").count();
            assert_eq!(
                p["commentCount"].as_u64().unwrap() as usize,
                comments.len(),
                "{post}"
            );
            assert_eq!(p["likeCount"].as_u64().unwrap() as usize, likes, "{post}");
            for (_, text) in acknowledged.iter().filter(|(p, _)| p == post) {
                assert!(
                    comments.iter().any(|c| c["content"] == text.as_str()),
                    "acknowledged comment {text} lost"
                );
            }
        }
    });
}
