//! A script's code kept in its database's realm (issue 32, `scripts/js/compiled.rs`): a realm
//! reads a script's bytecode once and evaluates it anew for each call, so a call's function,
//! its `prototype` and everything it makes are new — and a replaced script runs its new text.
//! Code that holds an object of its own (a tagged template's strings array, made once per site
//! and handed to every evaluation) is never kept: its strings cannot carry anything from one
//! call to the next. Each test uses a database of its own and checks with
//! `JavaScript::realm_counts` and `JavaScript::script_reads` that the calls it compares ran in
//! one realm and whether their code was read or kept.

mod common;

use engine::{ContainerClient, ContainerProperties, EngineOptions, JavaScript};
use serde_json::{json, Value};

async fn container_in(t: &common::TestEngine, db: &str) -> ContainerClient {
    let db = t.engine.create_database_if_not_exists(db).await.unwrap();
    db.create_container(ContainerProperties::new("c", "/pk"))
        .await
        .unwrap()
}

/// Stores `body` as procedure `id` of `c` (created or replaced).
fn store(c: &ContainerClient, id: &str, body: &str) {
    c.scripts()
        .upsert_stored_procedure(id, JavaScript::new(body).unwrap())
        .unwrap();
}

/// Calls procedure `id` of `c`: its response.
async fn call(c: &ContainerClient, id: &str) -> Value {
    c.scripts()
        .execute_stored_procedure::<Value>(id, "p", &[])
        .await
        .unwrap()
        .resource
}

/// `(reused, retired, read)` of `db`'s calls so far.
fn counts(db: &str) -> (u64, u64, u64) {
    let (reused, retired) = JavaScript::realm_counts(db);
    (reused, retired, JavaScript::script_reads(db))
}

#[test]
fn a_kept_script_is_evaluated_anew_and_a_replaced_one_runs_its_new_text() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let db = "compiled-replace";
        let c = container_in(&t, db).await;
        let a = "function p() { getContext().getResponse().setBody('a'); }";
        let b = "function p() { getContext().getResponse().setBody('b'); }";
        store(&c, "p", a);
        assert_eq!(call(&c, "p").await, json!("a"));
        let (reused, retired, read) = counts(db);
        assert_eq!(read, 1);
        // The second call runs in the realm the first left, from the code it kept.
        assert_eq!(call(&c, "p").await, json!("a"));
        assert_eq!(counts(db), (reused + 1, retired, read));
        // Replaced: the same realm reads the new text and runs it.
        store(&c, "p", b);
        assert_eq!(call(&c, "p").await, json!("b"));
        assert_eq!(counts(db), (reused + 2, retired, read + 1));
        assert_eq!(call(&c, "p").await, json!("b"));
        assert_eq!(counts(db), (reused + 3, retired, read + 1));
    });
}

#[test]
fn a_kept_scripts_function_and_prototype_are_new_in_every_call() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let db = "compiled-function";
        let c = container_in(&t, db).await;
        // A named function expression sees itself by its name; what a call hangs on it, on
        // its prototype or on a function it makes must be gone in the next call.
        store(
            &c,
            "own",
            "function own() {
               own.calls = (own.calls || 0) + 1;
               own.prototype.seen = (own.prototype.seen || 0) + 1;
               function inner() {}
               inner.prototype.seen = (inner.prototype.seen || 0) + 1;
               var re = /a/g; re.lastIndex = re.lastIndex + 1;
               getContext().getResponse().setBody([own.calls, own.prototype.seen, inner.prototype.seen, re.lastIndex]);
             }",
        );
        assert_eq!(call(&c, "own").await, json!([1, 1, 1, 1]));
        let (reused, retired, read) = counts(db);
        assert_eq!(call(&c, "own").await, json!([1, 1, 1, 1]));
        // Same realm, code kept (not read again): yet nothing carried over.
        assert_eq!(counts(db), (reused + 1, retired, read));
    });
}

#[test]
fn a_tagged_templates_strings_never_carry_from_one_call_to_the_next() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let db = "compiled-template";
        let c = container_in(&t, db).await;
        // The strings array of a tagged template is one object per site, handed to every
        // evaluation of it (the language's rule); QuickJS leaves its `length` writable. Were the
        // code kept across calls, a call would see what the last one set.
        store(
            &c,
            "tagged",
            "function tagged() {
               function tag(s) { return s; }
               function site() { return tag`a${1}b`; }
               var s = site(), raw = s.raw;
               var seen = [s.length, raw.length, s[0], s.extra === undefined, site() === s];
               s.length = 7; raw.length = 9;
               try { s[0] = 'x'; } catch (e) {}
               try { s.extra = 1; } catch (e) {}
               getContext().getResponse().setBody(seen);
             }",
        );
        assert_eq!(call(&c, "tagged").await, json!([2, 2, "a", true, true]));
        let (reused, retired, read) = counts(db);
        assert_eq!(call(&c, "tagged").await, json!([2, 2, "a", true, true]));
        // The second call ran in the same realm, and read the code again rather than keep it.
        assert_eq!(counts(db), (reused + 1, retired, read + 1));
    });
}
