//! User-defined functions in hardened realms (issue 32, `scripts/js/udf.rs`): a query page's
//! functions run in a frozen realm kept for its container's function set, so a page no longer
//! makes a runtime and realm of its own — and nothing one page does is seen by the next page,
//! of the same container or of another. One test (the realm counts are the process's, summed
//! over containers): each step checks with `JavaScript::udf_realm_counts` whether the page it
//! compares ran in the realm an earlier page left, since nothing a function can see tells.

mod common;

use engine::{ContainerClient, ContainerProperties, EngineOptions, JavaScript};
use serde_json::{json, Value};

async fn container_in(t: &common::TestEngine, db: &str, id: &str) -> ContainerClient {
    let db = t.engine.create_database_if_not_exists(db).await.unwrap();
    let c = db
        .create_container(ContainerProperties::new(id, "/pk"))
        .await
        .unwrap();
    c.create_item(&json!({"id": "1", "pk": "p", "n": 2}), None, None)
        .await
        .unwrap();
    for (id, body) in [("pollute", POLLUTE), ("check", CHECK)] {
        c.scripts()
            .upsert_user_defined_function(id, JavaScript::new(body).unwrap())
            .unwrap();
    }
    c
}

/// Tries to leave something behind for a later page: built-ins, `toJSON`, an implicit global,
/// a property on a global; answers how many attempts visibly took hold in its own page.
const POLLUTE: &str = r#"function pollute(x) {
  var took = 0;
  function attempt(f, held) { try { f(); } catch (e) {} if (held()) took++; }
  attempt(function () { Object.prototype.toJSON = function () { return "TAMPERED"; }; },
          function () { return typeof ({}).toJSON === "function"; });
  attempt(function () { Array.prototype.map = function () { return ["hijacked"]; }; },
          function () { return [1].map(String)[0] === "hijacked"; });
  attempt(function () { JSON.stringify = function () { return "hijacked"; }; },
          function () { return JSON.stringify(1) === "hijacked"; });
  attempt(function () { Math.max = function () { return -1; }; },
          function () { return Math.max(1, 2) === -1; });
  leak = x;
  attempt(function () { globalThis.alsoLeaked = x; }, function () { return true; });
  return took;
}"#;

/// What a page sees of earlier pages: the list of what leaked (empty when nothing did).
const CHECK: &str = r#"function check(x) {
  var leaked = [];
  if (typeof ({}).toJSON !== "undefined") leaked.push("toJSON");
  if ([1].map(String)[0] !== "1") leaked.push("map");
  if (JSON.stringify(1) !== "1") leaked.push("JSON.stringify");
  if (Math.max(1, 2) !== 2) leaked.push("Math.max");
  if (typeof leak !== "undefined") leaked.push("leak");
  if (typeof alsoLeaked !== "undefined") leaked.push("alsoLeaked");
  return {leaked: leaked, n: x};
}"#;

async fn query(c: &ContainerClient, sql: &str) -> Value {
    let mut r = c
        .query_all::<Value>(sql, engine::NO_PARAMS, Default::default())
        .await
        .unwrap();
    assert_eq!(r.items.len(), 1, "{sql}");
    r.items.remove(0)
}

fn counts() -> (u64, u64) {
    JavaScript::udf_realm_counts()
}

#[test]
fn a_query_pages_functions_run_in_a_kept_realm_that_nothing_leaks_through() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let a1 = container_in(&t, "udf-realms-A", "one").await;
        let a2 = container_in(&t, "udf-realms-A", "two").await;
        let b = container_in(&t, "udf-realms-B", "one").await;
        let clean = json!({"leaked": [], "n": 2});

        // A clean page leaves its realm for the container's next page, which takes it.
        assert_eq!(
            query(&a1, "SELECT VALUE udf.check(c.n) FROM c").await,
            clean
        );
        let (reused, retired) = counts();
        assert_eq!(
            query(&a1, "SELECT VALUE udf.check(c.n) FROM c").await,
            clean
        );
        assert_eq!(counts(), (reused + 1, retired));

        // Only the page's globals take hold (the frozen realm refuses the rest), and they are
        // gone when the next page of the container runs in the same realm.
        assert_eq!(
            query(&a1, "SELECT VALUE udf.pollute(c.n) FROM c").await,
            json!(1)
        );
        assert_eq!(counts(), (reused + 2, retired));
        assert_eq!(
            query(&a1, "SELECT VALUE udf.check(c.n) FROM c").await,
            clean
        );
        assert_eq!(counts(), (reused + 3, retired));

        // Another container of the same database, and another database, never take it.
        assert_eq!(
            query(&a2, "SELECT VALUE udf.check(c.n) FROM c").await,
            clean
        );
        assert_eq!(query(&b, "SELECT VALUE udf.check(c.n) FROM c").await, clean);
        assert_eq!(counts(), (reused + 3, retired));
        assert_eq!(
            query(&a1, "SELECT VALUE udf.check(c.n) FROM c").await,
            clean
        );
        assert_eq!(counts(), (reused + 4, retired));

        // A page that fails retires its realm: the next page runs in a new one.
        a1.scripts()
            .upsert_user_defined_function(
                "throws",
                JavaScript::new("function throws(x) { throw new Error('no'); }").unwrap(),
            )
            .unwrap();
        // The function set changed: its first page takes no realm of the old set's.
        assert_eq!(
            query(&a1, "SELECT VALUE udf.check(c.n) FROM c").await,
            clean
        );
        assert_eq!(counts(), (reused + 4, retired));
        let e = a1
            .query_all::<Value>(
                "SELECT VALUE udf.throws(c.n) FROM c",
                engine::NO_PARAMS,
                Default::default(),
            )
            .await
            .unwrap_err();
        assert!(e.to_string().contains("no"), "{e}");
        assert_eq!(counts(), (reused + 5, retired + 1));
        assert_eq!(
            query(&a1, "SELECT VALUE udf.check(c.n) FROM c").await,
            clean
        );
        assert_eq!(counts(), (reused + 5, retired + 1));
    });
}
