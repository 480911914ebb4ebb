//! The hardened realm (issue 32): a database's calls share a realm that was frozen once its
//! prelude ran, so nothing one call does can be seen by the next call of the same database —
//! and a call that could leave something behind (a new global, code compiled at run time, a
//! pending Promise job, a throw or a timeout) retires its realm. Each test uses a database of
//! its own, and checks with `JavaScript::realm_counts` that the calls it compares really ran in
//! one realm (or that the realm was retired), since nothing a script can see tells.

mod common;

use engine::{ContainerClient, ContainerProperties, EngineOptions, JavaScript};
use serde_json::{json, Value};

async fn container_in(t: &common::TestEngine, db: &str) -> ContainerClient {
    let db = t.engine.create_database_if_not_exists(db).await.unwrap();
    db.create_container(ContainerProperties::new("c", "/pk"))
        .await
        .unwrap()
}

#[derive(Debug, Clone, Copy)]
struct Counts {
    reused: u64,
    retired: u64,
}

fn counts(db: &str) -> Counts {
    let (reused, retired) = JavaScript::realm_counts(db);
    Counts { reused, retired }
}

/// Runs `body` as procedure `id` of `c`: its response, or the error's text.
async fn run(c: &ContainerClient, id: &str, body: &str) -> Result<Value, String> {
    let s = c.scripts();
    s.upsert_stored_procedure(id, JavaScript::new(body).unwrap())
        .unwrap();
    s.execute_stored_procedure::<Value>(id, "p", &[])
        .await
        .map(|r| r.resource)
        .map_err(|e| e.to_string())
}

/// Generous budgets: the walk below visits every object of the realm in a debug build.
fn options() -> EngineOptions {
    let mut o = EngineOptions::default();
    o.script_budget.max_javascript = std::time::Duration::from_secs(4);
    o
}

/// Walks every object a script can reach — from the global object, and from the intrinsics only
/// syntax reaches (generator and async function prototypes and their constructors, the
/// iterators of arrays, maps, sets, strings and regular expressions, the iterator helpers,
/// arguments objects and their `%ThrowTypeError%`, …): own properties (values, getters,
/// setters; string and symbol keys) and prototypes. Answers what is not frozen, what state
/// carriers exist, and how many objects it saw.
const WALK: &str = r#"function walk() {
  var G = globalThis, desc = Object.getOwnPropertyDescriptor, keys = Reflect.ownKeys;
  var strictArgs = (function () { "use strict"; return arguments; })();
  var sloppyArgs = (function () { return arguments; })();
  var roots = [
    ["globalThis", G],
    ["%GeneratorFunction.prototype%", Object.getPrototypeOf(function* () {})],
    ["%GeneratorPrototype%", Object.getPrototypeOf((function* () {}).prototype)],
    ["%AsyncFunction.prototype%", Object.getPrototypeOf(async function () {})],
    ["%AsyncGeneratorFunction.prototype%", Object.getPrototypeOf(async function* () {})],
    ["%AsyncGeneratorPrototype%", Object.getPrototypeOf((async function* () {}).prototype)],
    ["%ArrayIteratorPrototype%", Object.getPrototypeOf([][Symbol.iterator]())],
    ["%MapIteratorPrototype%", Object.getPrototypeOf(new Map()[Symbol.iterator]())],
    ["%SetIteratorPrototype%", Object.getPrototypeOf(new Set()[Symbol.iterator]())],
    ["%StringIteratorPrototype%", Object.getPrototypeOf(""[Symbol.iterator]())],
    ["%RegExpStringIteratorPrototype%", Object.getPrototypeOf("a".matchAll(/a/g))],
    ["%IteratorHelperPrototype%", Object.getPrototypeOf([].values().map(function (x) { return x; }))],
    ["%WrapForValidIteratorPrototype%", Object.getPrototypeOf(Iterator.from({ next: function () { return { done: true }; } }))],
    ["%ThrowTypeError% (strict arguments.callee)", desc(strictArgs, "callee").get],
    ["%ThrowTypeError% (Function.prototype.caller)", desc(Function.prototype, "caller").get],
    ["sloppy arguments' prototype", Object.getPrototypeOf(sloppyArgs)],
    ["%PromisePrototype% of an async result", Object.getPrototypeOf((async function () {})())],
  ];
  var seen = new Map(), todo = [], notFrozen = [], count = 0;
  roots.forEach(function (r) { todo.push([r[1], r[0]]); });
  while (todo.length) {
    var item = todo.pop(), o = item[0], path = item[1];
    if (o === null || (typeof o !== "object" && typeof o !== "function") || seen.has(o)) continue;
    seen.set(o, path);
    count++;
    if (o !== G && !Object.isFrozen(o)) notFrozen.push(path);
    keys(o).forEach(function (k) {
      var d = desc(o, k), name = path + "." + String(k);
      if (o === G && k !== "__" && (d.configurable || d.writable)) notFrozen.push(name + " (a changeable global)");
      if ("value" in d) todo.push([d.value, name]);
      else { todo.push([d.get, name + "<get>"]); todo.push([d.set, name + "<set>"]); }
    });
    todo.push([Object.getPrototypeOf(o), path + ".[[Prototype]]"]);
  }
  var carriers = ["FinalizationRegistry", "WeakRef", "SharedArrayBuffer", "Atomics", "performance"]
    .filter(function (n) { return typeof G[n] !== "undefined"; });
  var errorState = [desc(Error, "prepareStackTrace"), desc(Error, "stackTraceLimit")]
    .map(function (d) { return d && ("value" in d) && !d.writable && !d.configurable; });
  getContext().getResponse().setBody({ notFrozen: notFrozen, carriers: carriers, errorState: errorState, count: count });
}"#;

#[test]
fn every_object_a_script_can_reach_is_frozen() {
    let rt = common::rt();
    let t = common::open(options());
    rt.block_on(async {
        let c = container_in(&t, "hardened-walk").await;
        let out = run(&c, "walk", WALK).await.unwrap();
        assert_eq!(out["notFrozen"], json!([]), "{out}");
        assert_eq!(out["carriers"], json!([]), "{out}");
        assert_eq!(out["errorState"], json!([true, true]), "{out}");
        // The realm's intrinsics and the prelude's functions: well over a few hundred objects.
        assert!(out["count"].as_u64().unwrap() > 500, "{out}");
    });
}

/// Tries to change every kind of shared thing; each attempt is caught, so the call ends clean
/// and its realm serves the next call.
const POLLUTE: &str = r#"function pollute() {
  var tried = 0;
  function attempt(f) { tried++; try { f(); } catch (e) {} }
  attempt(function () { Object.prototype.polluted = "yes"; });
  attempt(function () { Object.prototype.toJSON = function () { return "TAMPERED"; }; });
  attempt(function () { Object.defineProperty(Object.prototype, "defined", { value: 1 }); });
  attempt(function () { Object.prototype.toString = function () { return "forged"; }; });
  attempt(function () { Array.prototype.polluted = "yes"; });
  attempt(function () { Array.prototype.push = function () { return "hijacked"; }; });
  attempt(function () { delete Array.prototype.map; });
  attempt(function () { Object.setPrototypeOf(Array.prototype, null); });
  attempt(function () { JSON.parse = function () { return "forged"; }; });
  attempt(function () { JSON.stringify = function () { return "\"forged\""; }; });
  attempt(function () { JSON = { parse: function () {}, stringify: function () {} }; });
  attempt(function () { Error.prototype.toString = function () { return "forged"; }; });
  attempt(function () { Error.prototype.name = "Forged"; });
  attempt(function () { TypeError.prototype.message = "forged"; });
  attempt(function () { Error.prepareStackTrace = function () { return "forged stack"; }; });
  attempt(function () { Error.stackTraceLimit = 0; });
  attempt(function () { Error = function () { return { forged: true }; }; });
  attempt(function () { Math.random = function () { return 4; }; });
  attempt(function () { Function.prototype.call = function () { return "hijacked"; }; });
  attempt(function () { Object.getPrototypeOf(function* () {}).prototype.next = function () { return { value: "hijacked" }; }; });
  attempt(function () { Object.getPrototypeOf([][Symbol.iterator]()).next = function () { return { value: "hijacked" }; }; });
  attempt(function () { Promise.prototype.then = function () { return "hijacked"; }; });
  attempt(function () { getContext = function () { return null; }; });
  attempt(function () { console.log = function () {}; });
  attempt(function () { getContext().getCollection().createDocument = function () { return "hijacked"; }; });
  attempt(function () { getContext().getRequest().setBody = function () {}; });
  getContext().getResponse().setBody(tried);
}"#;

/// What the next call sees of those attempts: the list of what leaked (empty when none did).
const CHECK: &str = r#"function check() {
  var leaked = [];
  function expect(name, ok) { if (!ok) leaked.push(name); }
  expect("Object.prototype.polluted", ({}).polluted === undefined);
  expect("Object.prototype.toJSON", ({}).toJSON === undefined);
  expect("Object.prototype.defined", ({}).defined === undefined);
  expect("Object.prototype.toString", String({}) === "[object Object]");
  expect("Array.prototype.polluted", [].polluted === undefined);
  expect("Array.prototype.push", [].push(1) === 1);
  expect("Array.prototype.map", typeof [].map === "function");
  expect("Array.prototype's prototype", Object.getPrototypeOf(Array.prototype) === Object.prototype);
  expect("JSON", JSON.stringify({ a: 1 }) === "{\"a\":1}" && JSON.parse("1") === 1);
  expect("Error.prototype", String(new TypeError("m")) === "TypeError: m" && new Error().message === "");
  expect("Error.prepareStackTrace", typeof new Error("m").stack === "string" && new Error("m").stack !== "forged stack");
  expect("Error.stackTraceLimit", Error.stackTraceLimit === 10);
  expect("Error", !(new Error("m")).forged);
  expect("Math.random", Math.random() < 1);
  expect("Function.prototype.call", (function () { return 1; }).call(null) === 1);
  expect("%GeneratorPrototype%.next", (function* () { yield 1; })().next().value === 1);
  expect("%ArrayIteratorPrototype%.next", [1][Symbol.iterator]().next().value === 1);
  expect("Promise.prototype.then", String(Promise.prototype.then).indexOf("hijacked") < 0);
  expect("getContext", getContext() !== null);
  expect("the collection", getContext().getCollection().createDocument.toString().indexOf("hijacked") < 0);
  getContext().getResponse().setBody(leaked);
}"#;

#[test]
fn pollution_in_one_call_is_invisible_to_the_next_call_of_the_same_database() {
    let rt = common::rt();
    let t = common::open(options());
    rt.block_on(async {
        let db = "hardened-pollution";
        let c = container_in(&t, db).await;
        // Compiled first, so both calls below run back to back.
        JavaScript::new(CHECK).unwrap();
        let before = counts(db);
        assert_eq!(run(&c, "pollute", POLLUTE).await.unwrap(), json!(26));
        assert_eq!(run(&c, "check", CHECK).await.unwrap(), json!([]));
        let after = counts(db);
        // The check ran in the realm the polluting call had used.
        assert_eq!(after.retired, before.retired, "{before:?} {after:?}");
        assert!(after.reused > before.reused, "{before:?} {after:?}");
    });
}

#[test]
fn classic_code_that_assigns_inherited_properties_still_works() {
    let rt = common::rt();
    let t = common::open(options());
    rt.block_on(async {
        let c = container_in(&t, "hardened-override").await;
        let out = run(
            &c,
            "classic",
            r#"function classic() {
              function Base() {}
              Base.prototype.hello = function () { return "base"; };
              function Derived() {}
              Derived.prototype = Object.create(Base.prototype);
              Derived.prototype.constructor = Derived;
              Derived.prototype.toString = function () { return "derived"; };
              function MyError(m) { this.message = m; }
              MyError.prototype = Object.create(Error.prototype);
              MyError.prototype.name = "MyError";
              var o = {};
              o.toString = function () { return "o"; };
              o.valueOf = function () { return 41; };
              var e = new Error();
              e.message = "set later";
              getContext().getResponse().setBody([String(new Derived()), new Derived().constructor === Derived,
                new Derived().hello(), String(new MyError("x")), String(o), o + 1, e.message,
                new Function("a", "return a + 1")(1), eval("2 * 3")]);
            }"#,
        )
        .await
        .unwrap();
        assert_eq!(
            out,
            json!(["derived", true, "base", "MyError: x", "o", 42, "set later", 2, 6])
        );
    });
}

#[test]
fn a_global_a_call_adds_is_gone_in_the_next_call() {
    let rt = common::rt();
    let t = common::open(options());
    rt.block_on(async {
        let db = "hardened-globals";
        let c = container_in(&t, db).await;
        // (id, body, the global it leaves, whether its realm is retired: a global that can be
        // deleted is, and the realm kept; one that cannot, or code compiled at run time, which
        // may declare a global `let` no property check sees, retires it).
        let cases = [
            (
                "implicit",
                "function implicit() { leak = 1; getContext().getResponse().setBody(leak); }",
                "leak",
                false,
            ),
            (
                "symbol",
                "function symbol() { globalThis[Symbol.for('kept')] = 1; getContext().getResponse().setBody(1); }",
                "globalThis[Symbol.for('kept')]",
                false,
            ),
            (
                "sticks",
                "function sticks() { Object.defineProperty(globalThis, 'stuck', { value: 1, configurable: false }); \
                 getContext().getResponse().setBody(stuck); }",
                "stuck",
                true,
            ),
            (
                "lexical",
                "function lexical() { (0, eval)('let hidden = 1'); getContext().getResponse().setBody(1); }",
                "hidden",
                true,
            ),
            (
                "injected",
                "function injected() { try { Function('}); let injected = 1; (function(){')(); } catch (e) {} \
                 getContext().getResponse().setBody(1); }",
                "injected",
                true,
            ),
        ];
        for (id, body, name, retires) in cases {
            let check = format!(
                "function check_{id}() {{ var v; try {{ v = typeof {name}; }} catch (e) {{ v = 'error'; }} \
                 getContext().getResponse().setBody(v); }}"
            );
            JavaScript::new(&check).unwrap();
            let before = counts(db);
            assert_eq!(run(&c, id, body).await.unwrap(), json!(1), "{id}");
            let after = counts(db);
            assert_eq!(after.retired, before.retired + retires as u64, "{id}: {after:?}");
            let seen = run(&c, &format!("check_{id}"), &check).await.unwrap();
            assert_eq!(seen, json!("undefined"), "{id}");
            if !retires {
                // The check ran in the realm the global had been added to.
                assert_eq!(counts(db).reused, after.reused + 1, "{id}");
            }
        }
    });
}

#[test]
fn a_promise_job_of_one_call_never_runs_in_a_later_call() {
    let rt = common::rt();
    let t = common::open(options());
    rt.block_on(async {
        let db = "hardened-jobs";
        let c = container_in(&t, db).await;
        let later = "function later() { var r = getContext().getResponse(); \
                     r.setBody(typeof late === 'undefined' ? r.getBody() === undefined : 'late ran'); }";
        JavaScript::new(later).unwrap();
        for (id, body) in [
            (
                "then",
                "function then() { Promise.resolve().then(function () { \
                 getContext().getResponse().setBody('hijacked'); globalThis.late = 1; }); \
                 getContext().getResponse().setBody('first'); }",
            ),
            (
                "awaits",
                "function awaits() { (async function () { await null; \
                 getContext().getResponse().setBody('hijacked'); globalThis.late = 1; })(); \
                 getContext().getResponse().setBody('first'); }",
            ),
        ] {
            let before = counts(db);
            assert_eq!(run(&c, id, body).await.unwrap(), json!("first"), "{id}");
            let after = counts(db);
            assert_eq!(after.retired, before.retired + 1, "{id}: {after:?}");
            assert_eq!(run(&c, "later", later).await.unwrap(), json!(true), "{id}");
        }
    });
}

#[test]
fn a_script_that_throws_or_times_out_never_leaves_its_realm_in_use() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let db = "hardened-failures";
        let c = container_in(&t, db).await;
        let ok = "function ok() { getContext().getResponse().setBody(1); }";
        for (id, body, says) in [
            (
                "throws",
                "function throws() { throw new Error('no'); }",
                "no",
            ),
            ("spins", "function spins() { while (true) {} }", "408"),
        ] {
            JavaScript::new(body).unwrap();
            // A clean call leaves a realm for the database ...
            assert_eq!(run(&c, "ok", ok).await.unwrap(), json!(1));
            let before = counts(db);
            // ... which the failing call takes, and which is retired after it ...
            let e = run(&c, id, body).await.unwrap_err();
            assert!(
                e.contains(says) || e.contains("time budget") || e.contains("JavaScript for more"),
                "{id}: {e}"
            );
            let failed = counts(db);
            assert_eq!(failed.reused, before.reused + 1, "{id}: {failed:?}");
            assert_eq!(failed.retired, before.retired + 1, "{id}: {failed:?}");
            // ... so the next call finds none kept, and runs in a new one.
            assert_eq!(run(&c, "ok", ok).await.unwrap(), json!(1));
            let next = counts(db);
            assert_eq!(next.reused, failed.reused, "{id}: {next:?}");
        }
    });
}

#[test]
fn a_realm_never_serves_another_database() {
    let rt = common::rt();
    let t = common::open(options());
    rt.block_on(async {
        let (a, b) = ("hardened-db-a", "hardened-db-b");
        let ca = container_in(&t, a).await;
        let cb = container_in(&t, b).await;
        let ok = "function ok() { getContext().getResponse().setBody(1); }";
        // Two clean calls in A: the second runs in the realm the first left.
        assert_eq!(run(&ca, "ok", ok).await.unwrap(), json!(1));
        assert_eq!(run(&ca, "ok", ok).await.unwrap(), json!(1));
        assert_eq!(counts(a).reused, 1);
        // B's first call finds A's realm kept, and does not take it.
        assert_eq!(run(&cb, "ok", ok).await.unwrap(), json!(1));
        assert_eq!(counts(b).reused, 0);
        // A's realm is still there for A.
        assert_eq!(run(&ca, "ok", ok).await.unwrap(), json!(1));
        assert_eq!(counts(a).reused, 2);
    });
}
