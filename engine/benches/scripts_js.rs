//! The blog's C3 (`createComment` of 004_*) as the article's JavaScript vs the same logic as a
//! Rust closure, side by side in one run (issue 22's goal: JavaScript ≤ 1.5× the closure's time
//! per call). 32 clients each add comments to their own post; best of three alternating rounds.
//!
//! `cargo bench -p engine --bench scripts_js`
//!
//! `SCRIPTS_JS_ONLY=js|rust SCRIPTS_JS_CALLS=N` instead makes N calls of one of them from one
//! client and nothing else, for an instruction count that does not depend on the machine's load:
//! run it under `valgrind --tool=callgrind` with two values of N, and the difference of the
//! totals divided by the difference of N is the instructions of one call (setup cancels out):
//! `SCRIPTS_JS_ONLY=js SCRIPTS_JS_CALLS=200 valgrind --tool=callgrind --main-stacksize=67108864
//! target/release/deps/scripts_js-*` (QuickJS needs the larger main stack under valgrind).
//!
//! `SCRIPTS_JS_ONLY=udf|sql` makes N single-partition queries of 20 items instead, the first
//! through a JavaScript user-defined function (`udf.twice(c.n)`), the second with the same
//! expression in the query language (`c.n * 2`): what a page's user-defined functions cost.

use std::time::Instant;

use engine::{
    ContainerClient, ContainerProperties, Engine, EngineOptions, Error, JavaScript, ScriptContext,
};
use serde_json::{json, Value};

const CREATE_COMMENT: &str = r#"function createComment(postId, comment) {
  var collection = getContext().getCollection();
  collection.readDocument(`${collection.getAltLink()}/docs/${postId}`, function (err, post) {
    if (err) throw err;
    post.commentCount++;
    collection.replaceDocument(post._self, post, function (err) {
      if (err) throw err;
      comment.postId = postId;
      collection.createDocument(collection.getSelfLink(), comment);
    });
  });
}"#;

fn create_comment(ctx: &mut ScriptContext, args: &[Value]) -> engine::Result<Value> {
    let post_id = args[0]
        .as_str()
        .ok_or_else(|| Error::bad("postId", "a string"))?;
    let mut post = ctx.read_item(post_id)?.ok_or_else(|| Error::NotFound {
        what: post_id.into(),
    })?;
    post["commentCount"] = json!(post["commentCount"].as_i64().unwrap_or(0) + 1);
    ctx.replace_item(post_id, post, None)?;
    let mut comment = args[1].clone();
    comment["postId"] = json!(post_id);
    ctx.create_item(comment)
}

const CLIENTS: usize = 32;
const PER_CLIENT: usize = 50;

async fn round(c: &ContainerClient, procedure: &'static str, round: usize) -> (f64, f64) {
    let started = Instant::now();
    let mut set = tokio::task::JoinSet::new();
    for client in 0..CLIENTS {
        let c = c.clone();
        set.spawn(async move {
            let post = format!("post{client}");
            let mut ru = 0.0;
            for i in 0..PER_CLIENT {
                let comment = json!({"id": format!("{procedure}-{round}-{i}"), "type": "comment", "content": "a comment of some length, as people write them"});
                ru += c
                    .scripts()
                    .execute_stored_procedure::<Value>(procedure, post.as_str(), &[json!(post), comment])
                    .await
                    .unwrap()
                    .request_charge;
            }
            ru
        });
    }
    let mut ru = 0.0;
    while let Some(r) = set.join_next().await {
        ru += r.unwrap();
    }
    let calls = (CLIENTS * PER_CLIENT) as f64;
    (calls / started.elapsed().as_secs_f64(), ru / calls)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut options = EngineOptions::default();
    if std::env::var("SCRIPTS_JS_ONLY").is_ok() {
        // Under valgrind everything is ~50x slower: no budget may stop a call.
        options.script_budget.max_duration = std::time::Duration::from_secs(600);
        options.script_budget.max_javascript = std::time::Duration::from_secs(600);
    }
    let engine = Engine::open(dir.path(), options).unwrap();
    rt.block_on(async {
        let db = engine.create_database("bench").await.unwrap();
        let c = db.create_container(ContainerProperties::new("posts", "/postId")).await.unwrap();
        c.scripts().upsert_stored_procedure("js", JavaScript::new(CREATE_COMMENT).unwrap()).unwrap();
        c.scripts().upsert_stored_procedure("rust", create_comment).unwrap();
        for p in 0..CLIENTS {
            c.create_item(&json!({"id": format!("post{p}"), "postId": format!("post{p}"), "commentCount": 0}), None, None)
                .await
                .unwrap();
        }
        if let Ok(only @ ("udf" | "sql")) = std::env::var("SCRIPTS_JS_ONLY").as_deref() {
            let calls: usize = std::env::var("SCRIPTS_JS_CALLS").ok().and_then(|n| n.parse().ok()).unwrap_or(100);
            c.scripts()
                .upsert_user_defined_function("twice", JavaScript::new("function twice(n) { return n * 2; }").unwrap())
                .unwrap();
            for i in 0..20 {
                c.create_item(&json!({"id": format!("n{i}"), "postId": "numbers", "n": i}), None, None).await.unwrap();
            }
            let sql = if only == "udf" { "SELECT VALUE udf.twice(c.n) FROM c" } else { "SELECT VALUE c.n * 2 FROM c" };
            let options = engine::QueryOptions { partition_key: Some("numbers".into()), ..Default::default() };
            for _ in 0..calls {
                let r = c.query_all::<Value>(sql, engine::NO_PARAMS, options.clone()).await.unwrap();
                assert_eq!(r.items.len(), 20);
            }
            println!("{calls} queries ({only})");
            return;
        }
        if let Ok(only) = std::env::var("SCRIPTS_JS_ONLY") {
            let calls: usize = std::env::var("SCRIPTS_JS_CALLS").ok().and_then(|n| n.parse().ok()).unwrap_or(100);
            for i in 0..calls {
                let comment = json!({"id": format!("one-{i}"), "type": "comment", "content": "a comment of some length, as people write them"});
                c.scripts().execute_stored_procedure::<Value>(&only, "post0", &[json!("post0"), comment]).await.unwrap();
            }
            println!("{calls} calls of {only}");
            return;
        }
        let (mut js, mut rust) = ((0.0f64, 0.0), (0.0f64, 0.0));
        for r in 0..3 {
            let a = round(&c, "rust", r).await;
            let b = round(&c, "js", r).await;
            eprintln!("  round {r}: rust {:.0}/s, js {:.0}/s", a.0, b.0);
            if a.0 > rust.0 { rust = a; }
            if b.0 > js.0 { js = b; }
        }
        println!(
            "createComment, {CLIENTS} clients: Rust closure {:.0} calls/s ({:.2} RU), JavaScript {:.0} calls/s ({:.2} RU); JavaScript time per call {:.2}x the closure's",
            rust.0, rust.1, js.0, js.1, rust.0 / js.0
        );
    });
}
