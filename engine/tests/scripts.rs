//! Stored procedures and triggers: one ACID transaction inside one logical partition.

mod common;

use std::time::Duration;

use engine::{
    ContainerClient, ContainerProperties, EngineOptions, Error, ItemOptions, PatchOperation,
    ScriptBudget, ScriptContext, Trigger, TriggerOperation,
};
use serde_json::{json, Value};

/// `createComment` of `004_*`, line for line: read the post, bump its count, replace it, create
/// the comment.
fn create_comment(ctx: &mut ScriptContext, args: &[Value]) -> engine::Result<Value> {
    let post_id = args[0]
        .as_str()
        .ok_or_else(|| Error::bad("args[0]", "postId must be a string"))?;
    let mut comment = args[1].clone();
    let mut post = ctx.read_item(post_id)?.ok_or_else(|| Error::NotFound {
        what: format!("post {post_id}"),
    })?;
    post["commentCount"] = json!(post["commentCount"].as_i64().unwrap_or(0) + 1);
    ctx.replace_item(post_id, post, None)?;
    comment["postId"] = json!(post_id);
    ctx.create_item(comment)
}

/// `truncateFeed` of `004_*`, line for line (with 5 instead of 100 to keep the test small).
fn truncate_feed(ctx: &mut ScriptContext, _written: &Value) -> engine::Result<()> {
    let max_docs = 5;
    let count = ctx.query("SELECT VALUE COUNT(1) FROM f", &[])?;
    let count = count[0].as_u64().unwrap_or(0) as usize;
    // + 1 because the query didn't count the newly inserted doc
    if count + 1 > max_docs {
        let docs_to_remove = count + 1 - max_docs;
        let oldest = ctx.query(
            "SELECT TOP @n * FROM f ORDER BY f.creationDate",
            &[("@n", json!(docs_to_remove))],
        )?;
        for doc in oldest {
            ctx.delete_item(doc["id"].as_str().unwrap_or_default())?;
        }
    }
    Ok(())
}

/// `updateUsernames` of `004_*`: every item of the user in this partition gets the new name.
fn update_usernames(ctx: &mut ScriptContext, args: &[Value]) -> engine::Result<Value> {
    let (user_id, username) = (args[0].clone(), args[1].clone());
    let results = ctx.query(
        "SELECT * FROM p WHERE p.userId = @userId",
        &[("@userId", user_id)],
    )?;
    for mut doc in results.clone() {
        doc["userUsername"] = username.clone();
        ctx.upsert_item(doc)?;
    }
    Ok(json!(results.len()))
}

async fn posts(t: &common::TestEngine) -> ContainerClient {
    let c = common::container(t, ContainerProperties::new("posts", "/postId")).await;
    c.create_item(
        &json!({"id": "p1", "postId": "p1", "type": "post", "commentCount": 0}),
        None,
        None,
    )
    .await
    .unwrap();
    c.scripts()
        .create_stored_procedure("createComment", create_comment)
        .unwrap();
    c
}

async fn comment_count(c: &ContainerClient) -> (i64, usize) {
    let items = c
        .read_all_items_in_partition::<Value>("p1")
        .await
        .unwrap()
        .items;
    let post = items.iter().find(|d| d["type"] == "post").unwrap();
    (
        post["commentCount"].as_i64().unwrap(),
        items.iter().filter(|d| d["type"] == "comment").count(),
    )
}

#[test]
fn create_comment_is_atomic_and_charged_for_all_its_work() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = posts(&t).await;
        for i in 0..3 {
            let r = c
                .scripts()
                .execute_stored_procedure::<Value>(
                    "createComment",
                    "p1",
                    &[
                        json!("p1"),
                        json!({"id": format!("c{i}"), "type": "comment", "content": "hi"}),
                    ],
                )
                .await
                .unwrap();
            assert_eq!(r.resource["postId"], "p1");
            // A read, a replace and a create: more than the create alone.
            assert!(r.request_charge > 10.0, "{}", r.request_charge);
        }
        assert_eq!(comment_count(&c).await, (3, 3));
        // A failing call (the comment id exists: 409 after the replace) leaves nothing behind.
        let e = c
            .scripts()
            .execute_stored_procedure::<Value>(
                "createComment",
                "p1",
                &[json!("p1"), json!({"id": "c0", "type": "comment"})],
            )
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 409);
        assert_eq!(
            comment_count(&c).await,
            (3, 3),
            "the replace before the failure was rolled back"
        );
        // Unknown procedures are 404.
        let e = c
            .scripts()
            .execute_stored_procedure::<Value>("nope", "p1", &[])
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 404);
    });
}

#[test]
fn update_usernames_rewrites_every_item_of_the_user() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = posts(&t).await;
        c.scripts().create_stored_procedure("updateUsernames", update_usernames).unwrap();
        for (id, kind, user) in [("c1", "comment", "u2"), ("l1", "like", "u2"), ("c2", "comment", "u3")] {
            c.create_item(&json!({"id": id, "postId": "p1", "type": kind, "userId": user, "userUsername": "old"}), None, None).await.unwrap();
        }
        let r = c.scripts().execute_stored_procedure::<Value>("updateUsernames", "p1", &[json!("u2"), json!("new")]).await.unwrap();
        assert_eq!(r.resource, json!(2));
        let items = c.read_all_items_in_partition::<Value>("p1").await.unwrap().items;
        for d in items.iter().filter(|d| d["userId"] == "u2") {
            assert_eq!(d["userUsername"], "new");
        }
        assert_eq!(items.iter().find(|d| d["id"] == "c2").unwrap()["userUsername"], "old");
    });
}

#[test]
fn a_procedure_cannot_leave_its_logical_partition() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = posts(&t).await;
        c.scripts()
            .create_stored_procedure("escape", |ctx: &mut ScriptContext, _: &[Value]| {
                ctx.create_item(json!({"id": "ok", "postId": "p1"}))?;
                ctx.create_item(json!({"id": "elsewhere", "postId": "p2"}))?;
                Ok(Value::Null)
            })
            .unwrap();
        let e = c
            .scripts()
            .execute_stored_procedure::<Value>("escape", "p1", &[])
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 400);
        assert!(
            e.to_string().contains("cannot write an item of partition"),
            "{e}"
        );
        assert_eq!(
            c.read_item::<Value>("ok", "p1", None)
                .await
                .unwrap_err()
                .status_code(),
            404
        );
        assert_eq!(
            c.read_item::<Value>("elsewhere", "p2", None)
                .await
                .unwrap_err()
                .status_code(),
            404
        );
    });
}

#[test]
fn a_procedure_that_throws_after_two_writes_persists_nothing() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let c = posts(&t).await;
        c.scripts()
            .create_stored_procedure("throws", |ctx: &mut ScriptContext, _: &[Value]| {
                ctx.patch_item("p1", vec![PatchOperation::increment("/commentCount", 10)])?;
                ctx.create_item(json!({"id": "c9", "postId": "p1", "type": "comment"}))?;
                Err(Error::bad("args", "the procedure gave up"))
            })
            .unwrap();
        let e = c
            .scripts()
            .execute_stored_procedure::<Value>("throws", "p1", &[])
            .await
            .unwrap_err();
        assert!(e.to_string().contains("gave up"));
        assert_eq!(comment_count(&c).await, (0, 0));
    });
}

#[test]
fn a_procedure_over_its_budget_is_stopped_and_rolled_back() {
    common::rt().block_on(async {
        let budget = ScriptBudget {
            max_duration: Duration::from_millis(50),
            max_request_units: 1_000_000.0,
            ..Default::default()
        };
        let t = common::open(EngineOptions {
            script_budget: budget,
            ..Default::default()
        });
        let c = posts(&t).await;
        c.scripts()
            .create_stored_procedure("runaway", |ctx: &mut ScriptContext, _: &[Value]| {
                for i in 0.. {
                    ctx.upsert_item(
                        json!({"id": format!("spin{}", i % 5), "postId": "p1", "type": "spin"}),
                    )?;
                    std::thread::sleep(Duration::from_millis(5));
                }
                Ok(Value::Null)
            })
            .unwrap();
        let e = c
            .scripts()
            .execute_stored_procedure::<Value>("runaway", "p1", &[])
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 408, "{e}");
        assert!(c
            .read_all_items_in_partition::<Value>("p1")
            .await
            .unwrap()
            .items
            .iter()
            .all(|d| d["type"] != "spin"));
        // The writer is free again for other requests.
        c.create_item(&json!({"id": "after", "postId": "p1"}), None, None)
            .await
            .unwrap();
    });
}

#[test]
fn triggers_run_in_the_write_transaction() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let feed = common::container(&t, ContainerProperties::new("feed", "/type")).await;
        // Pre-trigger: stamp a default creation date.
        feed.scripts()
            .upsert_trigger(
                "stamp",
                Trigger::pre(TriggerOperation::Create, |doc| {
                    if doc.get("creationDate").is_none() {
                        doc["creationDate"] = json!("2026-01-01T00:00:00Z");
                    }
                    Ok(())
                }),
            )
            .unwrap();
        // Post-trigger: truncateFeed of `004_*`, keeping the 5 newest posts.
        feed.scripts()
            .upsert_trigger(
                "truncateFeed",
                Trigger::post(TriggerOperation::Create, truncate_feed),
            )
            .unwrap();
        let opts = ItemOptions::with_triggers(&["stamp"], &["truncateFeed"]);
        for i in 0..12 {
            let doc = json!({"id": format!("post{i}"), "type": "post", "creationDate": format!("2026-11-{:02}T00:00:00Z", i + 1)});
            feed.create_item(&doc, None, Some(opts.clone())).await.unwrap();
        }
        let items = feed.read_all_items_in_partition::<Value>("post").await.unwrap().items;
        let mut ids: Vec<_> = items.iter().map(|d| d["id"].as_str().unwrap().to_owned()).collect();
        ids.sort();
        assert_eq!(ids, ["post10", "post11", "post7", "post8", "post9"]);
        let stamped = feed.create_item(&json!({"id": "x", "type": "post"}), None, Some(opts.clone())).await.unwrap();
        assert_eq!(stamped.resource.unwrap()["creationDate"], "2026-01-01T00:00:00Z");

        // A failing post-trigger rolls the write back.
        feed.scripts()
            .upsert_trigger("veto", Trigger::post(TriggerOperation::All, |_: &mut ScriptContext, _: &Value| Err(Error::bad("trigger", "vetoed"))))
            .unwrap();
        let e = feed.create_item(&json!({"id": "vetoed", "type": "post"}), None, Some(ItemOptions::with_triggers(&[], &["veto"]))).await.unwrap_err();
        assert!(e.to_string().contains("vetoed"));
        assert_eq!(feed.read_item::<Value>("vetoed", "post", None).await.unwrap_err().status_code(), 404);
        // Unknown triggers, a pre-trigger named as post, and the wrong operation are 400s.
        for (pre, post) in [(vec!["nope"], vec![]), (vec![], vec!["stamp"]), (vec!["stamp"], vec![])] {
            let o = ItemOptions::with_triggers(&pre, &post);
            let e = feed.upsert_item(&json!({"id": "y", "type": "post"}), None, Some(o)).await.unwrap_err();
            assert_eq!(e.status_code(), 400, "{pre:?} {post:?}: {e}");
        }
    });
}
