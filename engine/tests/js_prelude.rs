//! What the prelude gives a script is the same however the engine builds it (issue 32's
//! cheaper realms): `__` is read into a realm only when a script touches it, and the bodies and
//! log come back to the engine in one object. Each test here fails if that shortcut shows.

mod common;

use engine::{ContainerProperties, EngineOptions, ItemOptions, JavaScript, TriggerOperation};
use serde_json::{json, Value};

#[test]
fn underscore_behaves_as_a_plain_global_whether_or_not_it_was_touched() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        c.create_item(&json!({"id": "a", "pk": "p", "n": 1}), None, None)
            .await
            .unwrap();
        let run = |id: &'static str, body: &'static str| {
            let c = c.clone();
            async move {
                let s = c.scripts();
                s.upsert_stored_procedure(id, JavaScript::new(body).unwrap())
                    .unwrap();
                s.execute_stored_procedure::<Value>(id, "p", &[])
                    .await
                    .unwrap()
                    .resource
            }
        };
        // Listed among the globals, enumerable and writable, before any use.
        let listed = run(
            "listed",
            "function listed() { getContext().getResponse().setBody([ \
             Object.keys(globalThis).indexOf('__') >= 0, typeof __, __ === __, \
             Object.getPrototypeOf(__) === getContext().getCollection()]); }",
        )
        .await;
        assert_eq!(listed, json!([true, "object", true, true]));
        // Replaced before first use: the script's value stays, and nothing is loaded over it.
        let replaced = run(
            "replaced",
            "function replaced() { __ = 42; var d = Object.getOwnPropertyDescriptor(globalThis, '__'); \
             getContext().getResponse().setBody([__, d.writable, d.enumerable, d.configurable]); }",
        )
        .await;
        assert_eq!(replaced, json!([42, true, true, true]));
        let deleted = run(
            "deleted",
            "function deleted() { var ok = delete globalThis.__; \
             getContext().getResponse().setBody([ok, typeof __]); }",
        )
        .await;
        assert_eq!(deleted, json!([true, "undefined"]));
        // The next call's `__` works whatever the last one did to its own.
        let used = run(
            "used",
            "function used() { __.pluck('n', function (err, ns) { if (err) throw err; \
             getContext().getResponse().setBody(ns); }); }",
        )
        .await;
        assert_eq!(used, json!([1]));
    });
}

#[test]
fn the_bodies_and_log_come_back_as_the_script_left_them() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        let s = c.scripts();
        let trigger = |body: &str| {
            JavaScript::new(body)
                .unwrap()
                .pre_trigger(TriggerOperation::All)
        };
        s.upsert_trigger(
            "looks",
            trigger("function looks() { getContext().getRequest().getBody(); }"),
        )
        .unwrap();
        s.upsert_trigger(
            "polluted",
            trigger(
                "function polluted() { Object.prototype.toJSON = function () { return 'TAMPERED'; }; \
                 var r = getContext().getRequest(); var b = r.getBody(); b.seen = true; r.setBody(b); }",
            ),
        )
        .unwrap();
        let with = |name: &str| ItemOptions {
            pre_triggers: vec![name.into()],
            ..Default::default()
        };
        // A trigger that only reads the body leaves the item as sent.
        c.create_item(
            &json!({"id": "a", "pk": "p", "n": 1}),
            None,
            Some(with("looks")),
        )
        .await
        .unwrap();
        let a: Value = c.read_item("a", "p", None).await.unwrap().resource.unwrap();
        assert_eq!((a["n"].clone(), a.get("seen")), (json!(1), None));
        // A polluted toJSON is the script's own business: its body is what it stringifies to.
        let polluted = c
            .create_item(&json!({"id": "b", "pk": "p"}), None, Some(with("polluted")))
            .await;
        assert!(
            polluted.is_err(),
            "a body that stringifies to a string is no item: {polluted:?}"
        );
        // A procedure's response (a null inside it kept) and its log.
        s.upsert_stored_procedure(
            "logs",
            JavaScript::new(
                "function logs(x) { console.log('got %s', x); \
                 getContext().getResponse().setBody({x: x, none: null}); }",
            )
            .unwrap(),
        )
        .unwrap();
        let out = s
            .execute_stored_procedure::<Value>("logs", "p", &[json!("y")])
            .await
            .unwrap();
        assert_eq!(out.resource, json!({"x": "y", "none": null}));
        assert_eq!(out.script_log, "got y");
        // Nothing set: the response is null, as before.
        s.upsert_stored_procedure(
            "quiet",
            JavaScript::new("function quiet() {}").unwrap(),
        )
        .unwrap();
        let quiet = s
            .execute_stored_procedure::<Value>("quiet", "p", &[])
            .await
            .unwrap();
        assert_eq!(quiet.resource, Value::Null);
    });
}
