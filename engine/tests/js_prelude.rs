//! What the prelude gives a script is the same however the engine builds it (issue 32's
//! cheaper realms): `__` is read into a realm only when a script touches it, the bodies and log
//! come back to the engine in one object, and queued documents are read out of the realm without
//! JSON text when they are plain data. Each test here fails if one of those shortcuts shows.

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
                "function polluted() { var r = getContext().getRequest(); var b = r.getBody(); \
                 b.seen = true; Object.setPrototypeOf(b, {toJSON: function () { return 'TAMPERED'; }}); \
                 r.setBody(b); }",
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
        // A toJSON on the body's prototype is the script's own business: its body is what it
        // stringifies to. (`Object.prototype` itself is frozen: js_hardened.rs.)
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

#[test]
fn a_queued_document_is_stored_as_json_stringify_writes_it() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        let s = c.scripts();
        // Each procedure stores `doc` and answers it too: the answer is JSON.stringify's text
        // of it (the response body always is), the oracle for what was stored.
        let store = |id: &'static str, doc: &'static str| {
            let c = c.clone();
            async move {
                let s = c.scripts();
                let body = format!(
                    "function {id}() {{ var doc = {doc}; var c = getContext().getCollection(); \
                     c.createDocument(c.getSelfLink(), doc); getContext().getResponse().setBody(doc); }}"
                );
                s.upsert_stored_procedure(id, JavaScript::new(&body).unwrap())
                    .unwrap();
                let answered = s
                    .execute_stored_procedure::<Value>(id, "p", &[])
                    .await
                    .map(|r| r.resource);
                let stored = c
                    .read_item::<Value>(id, "p", None)
                    .await
                    .ok()
                    .and_then(|r| r.resource)
                    .map(|mut v| {
                        v.as_object_mut().unwrap().retain(|k, _| !k.starts_with('_'));
                        v
                    });
                (answered, stored)
            }
        };
        // Plain data, read straight out of the realm.
        let (answered, stored) = store(
            "plain",
            "{id: 'plain', pk: 'p', n: 1, f: 1.5, big: 18446744073709550000, huge: 1e21, \
             neg: -5, negz: -0, inf: Infinity, nan: NaN, no: undefined, fn: function () {}, \
             list: [1, undefined, function () {}, null, 'x', {a: [true, false]}], \
             s: 'caf\\u00e9 \\ud83d\\ude00'}",
        )
        .await;
        let answered = answered.unwrap();
        assert_eq!(stored.as_ref(), Some(&answered));
        assert_eq!(answered["list"], json!([1, null, null, null, "x", {"a": [true, false]}]));
        assert_eq!(answered["big"], json!(18446744073709550000u64));
        // Values only JSON.stringify knows how to write, read through it.
        let (answered, stored) = store(
            "rich",
            "{id: 'rich', pk: 'p', when: new Date(0), str: new String('s'), \
             own: {toJSON: function () { return 'own'; }}, err: new Error('e'), \
             fnj: (function () { var f = function () {}; f.toJSON = function () { return 7; }; return f; })()}",
        )
        .await;
        let answered = answered.unwrap();
        assert_eq!(stored.as_ref(), Some(&answered));
        assert_eq!(
            answered,
            json!({"id": "rich", "pk": "p", "when": "1970-01-01T00:00:00.000Z", "str": "s",
                   "own": "own", "err": {}, "fnj": 7})
        );
        // A prototype's toJSON applies to plain objects too: here a prototype the script gave
        // the document, whose toJSON makes the document's inner object unreadable as an item,
        // so the call fails and stores nothing (read past the toJSON, the document would have
        // been stored as written). `Object.prototype` itself cannot be polluted: frozen
        // (js_hardened.rs).
        let (answered, stored) = store(
            "polluted",
            "(function () { var p = {toJSON: function () { \
               return this.id ? 'x' : {id: this.id, pk: this.pk, seen: true}; }}; \
               var d = Object.create(p); d.id = 'polluted'; d.pk = 'p'; d.inner = {a: 1}; return d; })()",
        )
        .await;
        assert!(answered.is_err() && stored.is_none(), "{answered:?} {stored:?}");
        // A lone surrogate is refused, as its JSON text always was.
        let (lone, stored) = store("lone", "{id: 'lone', pk: 'p', s: '\\ud800'}").await;
        assert!(lone.is_err() && stored.is_none(), "{lone:?} {stored:?}");
        let _ = s;
    });
}
