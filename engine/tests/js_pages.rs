//! `pageSize` in a script's feed operations (issue 39): `queryDocuments` and `readDocuments`
//! hand their callback at most `options.pageSize` documents, with
//! `responseOptions.continuation` for the next page while there is one, as Cosmos DB's
//! server-side API does (`FeedOptions.pageSize`, `FeedCallback`'s third argument).

mod common;

use engine::{ContainerProperties, EngineOptions, JavaScript};
use serde_json::{json, Value};

/// Reads the partition page by page from `token`, at most `pages` pages: the ids of each page,
/// and the continuation it stopped at (`null` at the end).
const PAGES: &str = r#"function pages(kind, pageSize, token, pages) {
  var c = getContext().getCollection();
  var out = [];
  function next(token) {
    if (out.length === pages) return getContext().getResponse().setBody({ pages: out, continuation: token });
    var options = { pageSize: pageSize, continuation: token };
    var onPage = function (err, docs, responseOptions) {
      if (err) throw err;
      out.push(docs.map(function (d) { return d.id; }));
      if (responseOptions.continuation) next(responseOptions.continuation);
      else getContext().getResponse().setBody({ pages: out, continuation: null });
    };
    var ok = kind === "query"
      ? c.queryDocuments(c.getSelfLink(), "SELECT * FROM c", options, onPage)
      : c.readDocuments(c.getSelfLink(), options, onPage);
    if (!ok) throw new Error("not accepted");
  }
  next(token);
}"#;

#[test]
fn feed_operations_page_by_page_size_and_continue_across_calls() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = common::container(&t, ContainerProperties::new("c", "/pk")).await;
        for i in 0..7 {
            c.create_item(&json!({"id": format!("d{i}"), "pk": "p"}), None, None)
                .await
                .unwrap();
        }
        c.create_item(&json!({"id": "other", "pk": "q"}), None, None)
            .await
            .unwrap();
        let s = c.scripts();
        s.upsert_stored_procedure("pages", JavaScript::new(PAGES).unwrap())
            .unwrap();
        let call = async |args: Value| -> Value {
            let args = args.as_array().unwrap().clone();
            s.execute_stored_procedure::<Value>("pages", "p", &args)
                .await
                .unwrap()
                .resource
        };
        let ids = |v: &[&str]| json!(v);
        for kind in ["query", "read"] {
            let whole = call(json!([kind, 3, null, 10])).await;
            assert_eq!(
                whole["pages"],
                json!([
                    ids(&["d0", "d1", "d2"]),
                    ids(&["d3", "d4", "d5"]),
                    ids(&["d6"])
                ]),
                "{kind}"
            );
            assert_eq!(whole["continuation"], Value::Null, "{kind}");
            // No pageSize, or a page larger than the feed: one page, no continuation.
            let one = call(json!([kind, 100, null, 10])).await;
            assert_eq!(one["pages"].as_array().unwrap().len(), 1, "{kind}");
            assert_eq!(one["pages"][0].as_array().unwrap().len(), 7, "{kind}");
            let unset = call(json!([kind, null, null, 10])).await;
            assert_eq!(unset["pages"], one["pages"], "{kind}");
            // The continuation pattern: a call returns where it stopped, the next goes on.
            let first = call(json!([kind, 2, null, 1])).await;
            assert_eq!(first["pages"], json!([ids(&["d0", "d1"])]), "{kind}");
            let token = first["continuation"].clone();
            assert!(token.is_string(), "{kind}: {first}");
            let rest = call(json!([kind, 4, token, 10])).await;
            assert_eq!(
                rest["pages"],
                json!([ids(&["d2", "d3", "d4", "d5"]), ids(&["d6"])]),
                "{kind}"
            );
        }
        // A token this collection never handed out is the caller's error.
        let e = s
            .execute_stored_procedure::<Value>(
                "pages",
                "p",
                &[json!("query"), json!(2), json!("x"), json!(1)],
            )
            .await
            .unwrap_err();
        assert_eq!(e.status_code(), 400, "{e}");
    });
}
