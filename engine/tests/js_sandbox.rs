//! The JavaScript sandbox as a hostile user meets it (issue 32): a script's text cannot run for
//! long when it is created, and no call can change what another call sees — of its own
//! database or another — through globals, built-ins or the engine's own helpers.

mod common;

use std::time::{Duration, Instant};

use engine::{
    ContainerClient, ContainerProperties, EngineOptions, ItemOptions, JavaScript, TriggerOperation,
};
use serde_json::{json, Value};

async fn container_in(t: &common::TestEngine, db: &str, id: &str) -> ContainerClient {
    let db = t.engine.create_database_if_not_exists(db).await.unwrap();
    db.create_container(ContainerProperties::new(id, "/pk"))
        .await
        .unwrap()
}

/// `says`: what the refusal says (any of `|`-separated alternatives).
fn refused_quickly(body: &str, says: &str) {
    let started = Instant::now();
    let e = JavaScript::new(body).expect_err(body);
    let took = started.elapsed();
    assert_eq!(e.status_code(), 400, "{body}: {e}");
    assert!(
        says.split('|').any(|s| e.to_string().contains(s)),
        "{body}: {e}"
    );
    // The check's budget is 250 ms; the issue's bound is 6 s.
    assert!(took < Duration::from_secs(3), "{body}: took {took:?}");
}

#[test]
fn a_script_text_that_runs_code_when_created_is_refused_without_running_long() {
    // Closes the parenthesis the engine put around it: refused by compiling alone.
    refused_quickly(
        "function a(){}) , (function(){while(true){}})(), (function b(){}",
        "closes the parenthesis",
    );
    // A valid expression with a loop in it: stopped within the check's budget.
    refused_quickly(
        "function a(){}, (function(){while(true){}})()",
        "ran code for more than",
    );
    // The same after a delay (what hung every restart before).
    refused_quickly(
        "function a(){}, (function(){ var t = Date.now(); while (Date.now() - t < 1e9) {} })()",
        "ran code for more than",
    );
    // A gigabyte: stopped at the heap cap (or by the clock, on a busy machine).
    refused_quickly(
        "function a(){}, (function(){ var a = [], s = 'x'.repeat(1 << 20); for (;;) a.push(s + a.length); })()",
        "out of memory|ran code for more than",
    );
    // More than the function, even when it runs in no time.
    refused_quickly("function a(){}, 1", "one function expression");
    refused_quickly(
        "function a(){}, function b(){}",
        "more in it than the function",
    );
    refused_quickly("(function a(){})()", "one function expression");
    // What the article's scripts look like still passes, comments included.
    JavaScript::new("// a note\nfunction f(x) { return x; } /* end */\n").unwrap();
    // The runtime is fine afterwards.
    JavaScript::new("function g() {}").unwrap();
}

#[test]
fn globals_built_ins_and_helpers_changed_by_one_call_are_not_seen_by_any_other() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let a = container_in(&t, "A", "c").await;
        let b = container_in(&t, "B", "c").await;
        let poison = r#"function poison() {
            Object.defineProperty(globalThis, 'stuck', { value: 1, configurable: false });
            Object.prototype.polluted = 'yes';
            Object.prototype.toJSON = function () { return 'TAMPERED'; };
            JSON.stringify = function () { return '"forged"'; };
            globalThis.__complete = function () { throw new Error('hijacked'); };
            globalThis.__requestBodyJson = function () { return '{"id":"forged","pk":"p"}'; };
            globalThis.__responseBodyJson = function () { return '"forged"'; };
            globalThis.__begin = function () { throw new Error('hijacked'); };
            getContext().getResponse().setBody('poisoned');
        }"#;
        let probe = r#"function probe(x) {
            var c = getContext().getCollection();
            c.createDocument(c.getSelfLink(), { id: x, pk: 'p', nested: { a: 1 } }, function (err, doc) {
                if (err) throw err;
                getContext().getResponse().setBody({
                    stuck: typeof stuck, polluted: typeof ({}).polluted, doc: doc.nested, arg: x
                });
            });
        }"#;
        for c in [&a, &b] {
            let s = c.scripts();
            s.upsert_stored_procedure("poison", JavaScript::new(poison).unwrap())
                .unwrap();
            s.upsert_stored_procedure("probe", JavaScript::new(probe).unwrap())
                .unwrap();
            s.upsert_trigger(
                "stamp",
                JavaScript::new(
                    "function stamp() { var r = getContext().getRequest(); var d = r.getBody(); d.stamped = true; r.setBody(d); }",
                )
                .unwrap()
                .pre_trigger(TriggerOperation::Create),
            )
            .unwrap();
        }
        // The poisoning call may break itself (its own JSON now answers "TAMPERED"); only
        // itself.
        let _ = a
            .scripts()
            .execute_stored_procedure::<Value>("poison", "p", &[])
            .await;
        let clean = |x: &str| json!({"stuck": "undefined", "polluted": "undefined", "doc": {"a": 1}, "arg": x});
        // The next call in A, and calls in B, see none of it.
        for (c, x) in [(&a, "a1"), (&b, "b1"), (&a, "a2")] {
            let r = c
                .scripts()
                .execute_stored_procedure::<Value>("probe", "p", &[json!(x)])
                .await
                .unwrap();
            assert_eq!(r.resource, clean(x));
        }
        // A pre-trigger's item is its own, whatever ran before it.
        let _ = a
            .scripts()
            .execute_stored_procedure::<Value>("poison", "p", &[])
            .await;
        let opts = ItemOptions {
            pre_triggers: vec!["stamp".into()],
            ..Default::default()
        };
        b.create_item(&json!({"id": "t1", "pk": "p"}), None, Some(opts))
            .await
            .unwrap();
        let stored = b
            .read_item::<Value>("t1", "p", None)
            .await
            .unwrap()
            .resource
            .unwrap();
        assert_eq!((stored["id"].clone(), stored["stamped"].clone()), (json!("t1"), json!(true)));
    });
}

#[test]
fn a_user_defined_function_cannot_change_another_query_s_results_or_break_it() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let a = container_in(&t, "A", "c").await;
        let b = container_in(&t, "B", "c").await;
        for c in [&a, &b] {
            c.create_item(&json!({"id": "1", "pk": "p", "n": 2}), None, None)
                .await
                .unwrap();
            let s = c.scripts();
            s.upsert_user_defined_function(
                "tamper",
                JavaScript::new(
                    "function tamper(x) { Object.prototype.toJSON = function () { return 'TAMPERED'; }; return {n: x}; }",
                )
                .unwrap(),
            )
            .unwrap();
            s.upsert_user_defined_function(
                "fill",
                JavaScript::new(
                    "function fill(x) { var a = []; for (;;) a.push(new Array(1e6).fill(x)); }",
                )
                .unwrap(),
            )
            .unwrap();
            s.upsert_user_defined_function(
                "twice",
                JavaScript::new("function twice(x) { return {n: x * 2}; }").unwrap(),
            )
            .unwrap();
        }
        let query = |c: &ContainerClient, sql: &'static str| {
            let c = c.clone();
            async move {
                c.query_all::<Value>(sql, engine::NO_PARAMS, Default::default())
                    .await
            }
        };
        // The tampering page sees its own tampering (its realm), nobody else does.
        query(&a, "SELECT VALUE udf.tamper(c.n) FROM c").await.unwrap();
        for c in [&a, &b] {
            let r = query(c, "SELECT VALUE udf.twice(c.n) FROM c").await.unwrap();
            assert_eq!(r.items, vec![json!({"n": 4})]);
        }
        // A function that fills its heap fails its own query only.
        let e = query(&a, "SELECT VALUE udf.fill(c.n) FROM c").await.unwrap_err();
        assert!(e.to_string().contains("memory"), "{e}");
        for c in [&b, &a] {
            let r = query(c, "SELECT VALUE udf.twice(c.n) FROM c").await.unwrap();
            assert_eq!(r.items, vec![json!({"n": 4})]);
        }
    });
}

#[test]
fn a_user_defined_function_that_spins_is_stopped_at_the_page_deadline_and_charged() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = container_in(&t, "A", "c").await;
        c.create_item(&json!({"id": "1", "pk": "p", "n": 2}), None, None)
            .await
            .unwrap();
        let s = c.scripts();
        s.upsert_user_defined_function(
            "spin",
            JavaScript::new("function spin(ms) { var t = Date.now(); while (Date.now() - t < ms) {} return ms; }")
                .unwrap(),
        )
        .unwrap();
        let cheap = c
            .query_all::<Value>("SELECT VALUE udf.spin(0) FROM c", engine::NO_PARAMS, Default::default())
            .await
            .unwrap();
        let busy = c
            .query_all::<Value>("SELECT VALUE udf.spin(300) FROM c", engine::NO_PARAMS, Default::default())
            .await
            .unwrap();
        assert!(
            busy.request_charge > cheap.request_charge + 5.0,
            "300 ms of CPU is charged: {} vs {}",
            busy.request_charge,
            cheap.request_charge
        );
        let started = Instant::now();
        let e = c
            .query_all::<Value>("SELECT VALUE udf.spin(60000) FROM c", engine::NO_PARAMS, Default::default())
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 408, "{e}");
        assert!(e.to_string().contains("udf.spin"), "{e}");
        assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    });
}

#[test]
fn a_failed_script_is_charged_for_its_cpu_and_meets_429s() {
    let rt = common::rt();
    let t = common::open(EngineOptions {
        retry: engine::RetryOptions {
            max_retry_attempts_on_throttled: 0,
            max_retry_wait: Duration::ZERO,
        },
        ..Default::default()
    });
    rt.block_on(async {
        let db = t.engine.create_database_if_not_exists("A").await.unwrap();
        let c = db
            // Eight physical partitions share the 400 RU/s: "p"'s has 50 RU/s, so the test
            // holds however slowly a loaded machine runs the calls (each ~140 RU).
            .create_container(
                ContainerProperties::new("c", "/pk")
                    .with_throughput(400)
                    .with_initial_partitions(8),
            )
            .await
            .unwrap();
        c.scripts()
            .upsert_stored_procedure(
                "spinThenThrow",
                JavaScript::new(
                    "function spinThenThrow(n) { var x = 0; for (var i = 0; i < n; i++) x += i % 7; throw new Error('gave up after ' + x); }",
                )
                .unwrap(),
            )
            .unwrap();
        // Three million additions (~60 ms of interpreter time, ~600 ticks) cost more than the
        // partition refills between two calls, so the failures that follow meet its 429
        // instead of holding the writer again and again.
        let mut outcomes = Vec::new();
        for _ in 0..6 {
            let e = c
                .scripts()
                .execute_stored_procedure::<Value>("spinThenThrow", "p", &[json!(3_000_000)])
                .await
                .unwrap_err();
            outcomes.push((e.status_code(), e.to_string()));
        }
        let statuses: Vec<u16> = outcomes.iter().map(|o| o.0).collect();
        assert!(matches!(statuses[0], 400 | 408), "{outcomes:?}");
        assert!(statuses.contains(&429), "{outcomes:?}");
    });
}
