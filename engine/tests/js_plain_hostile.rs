//! Hostile values a script hands the engine (issue 32), end to end: a procedure's response
//! body, a document it writes and a user-defined function's result that are cycles only a
//! getter's count makes, or values whose getters change them as they are read. The engine reads
//! them as `JSON.stringify` would (`engine/src/scripts/js/plain.rs`; its generative test is
//! `plain/hostile.rs`): a cycle fails the call with JSON.stringify's own error, whatever a getter
//! answers when asked again, and nothing is written.

mod common;

use engine::{ContainerClient, ContainerProperties, EngineOptions, JavaScript};
use serde_json::{json, Value};

/// An array whose first item is the array itself, its first two reads: JSON.stringify meets
/// the cycle at once.
const CYCLE: &str = "var n = 0, a = []; Object.defineProperty(a, 0, {enumerable: true, get: function () { return ++n < 3 ? a : null; }});";

async fn posts(t: &common::TestEngine) -> ContainerClient {
    common::container(t, ContainerProperties::new("posts", "/postId")).await
}

#[test]
fn a_cycle_a_getter_makes_fails_the_call_as_json_stringify_fails() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = posts(&t).await;
        let s = c.scripts();
        for (id, body) in [
            ("body", format!("function b() {{ {CYCLE} getContext().getResponse().setBody(a); }}")),
            ("document", format!("function d() {{ {CYCLE} var c = getContext().getCollection(); c.createDocument(c.getSelfLink(), {{id: 'x', postId: 'p', a: a}}); }}")),
            ("plain", "function p() { var o = {}; o.o = o; getContext().getResponse().setBody(o); }".to_owned()),
        ] {
            s.upsert_stored_procedure(id, JavaScript::new(&body).unwrap()).unwrap();
            let e = s
                .execute_stored_procedure::<Value>(id, "p", &[])
                .await
                .expect_err(id);
            assert_eq!(e.status_code(), 400, "{id}: {e}");
            assert!(e.to_string().contains("circular reference"), "{id}: {e}");
        }
        assert_eq!(common::count(&c, "SELECT VALUE COUNT(1) FROM c").await, 0);

        // Getters that change the value as it is read: the body JSON.stringify writes.
        s.upsert_stored_procedure(
            "getters",
            JavaScript::new("function g() { var o = {b: 2, c: [1, 2]}; Object.defineProperty(o, 'a', {enumerable: true, get: function () { delete o.b; o.c.length = 1; o.d = 'late'; return 1; }}); o.e = {get f() { return o.c; }}; getContext().getResponse().setBody([o, o]); }").unwrap(),
        )
        .unwrap();
        let r = s
            .execute_stored_procedure::<Value>("getters", "p", &[])
            .await
            .unwrap();
        // The first copy's keys are taken before its getter runs; the second's after.
        let first = json!({"b": 2, "c": [1, 2], "a": 1, "e": {"f": [1]}});
        let second = json!({"c": [1], "a": 1, "e": {"f": [1]}, "d": "late"});
        assert_eq!(r.resource, json!([first, second]));
    });
}

#[test]
fn a_cycle_a_getter_makes_fails_a_user_defined_function_s_query() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = posts(&t).await;
        c.create_item(&json!({"id": "1", "postId": "p", "n": 2}), None, None)
            .await
            .unwrap();
        let s = c.scripts();
        s.upsert_user_defined_function(
            "cycle",
            JavaScript::new(&format!("function cycle(x) {{ {CYCLE} return a; }}")).unwrap(),
        )
        .unwrap();
        let e = c
            .query_all::<Value>(
                "SELECT VALUE udf.cycle(c.n) FROM c",
                engine::NO_PARAMS,
                Default::default(),
            )
            .await
            .unwrap_err();
        assert!(e.to_string().contains("circular reference"), "{e}");
    });
}
