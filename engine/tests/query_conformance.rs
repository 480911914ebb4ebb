//! The query conformance suite: every case of `tests/query_cases/*.json` (data sets and
//! `query → expected result` or `query → error` pairs taken from the documented behaviour of
//! Azure Cosmos DB) runs against the reference executor and against the engine itself (items
//! stored in a container of several physical partitions, planned, indexed, merged and paged).
//! Adding a case is one line in a data file. Every failure is reported before the test fails.

mod common;

use std::path::Path;

use engine::testing::{self as sql, Params};
use engine::{ContainerProperties, EngineOptions, QueryOptions};
use serde_json::{json, Value};

struct Case {
    file: String,
    name: String,
    query: String,
    params: Params,
    expected: Option<Vec<Value>>,
    error: Option<String>,
    ordered: bool,
}

/// A data file: its name, items, cases, and the indexing policy of the engine's container (the
/// default unless the file gives `indexingPolicy`).
type Set = (String, Vec<Value>, Vec<Case>, Option<Value>);

fn load() -> Vec<Set> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/query_cases");
    let mut sets = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        let data = doc["data"].as_array().cloned().unwrap_or_default();
        let cases = doc["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let query = c["query"].as_str().unwrap().to_owned();
                Case {
                    file: file.clone(),
                    name: c["name"].as_str().unwrap().to_owned(),
                    params: c["params"]
                        .as_object()
                        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                        .unwrap_or_default(),
                    expected: c["expected"].as_array().cloned(),
                    error: c["error"].as_str().map(str::to_owned),
                    ordered: c["ordered"]
                        .as_bool()
                        .unwrap_or_else(|| query.to_ascii_uppercase().contains("ORDER BY")),
                    query,
                }
            })
            .collect();
        let policy = doc.get("indexingPolicy").cloned();
        sets.push((file, data, cases, policy));
    }
    sets
}

fn canonical(v: &[Value], ordered: bool) -> Vec<String> {
    let mut out: Vec<String> = v.iter().map(sql::canonical).collect();
    if !ordered {
        out.sort();
    }
    out
}

fn check(case: &Case, got: Result<Vec<Value>, String>, runner: &str, failures: &mut Vec<String>) {
    let label = format!("[{runner}] {} / {}: {}", case.file, case.name, case.query);
    match (&case.expected, &case.error, got) {
        (Some(want), _, Ok(got)) => {
            if canonical(want, case.ordered) != canonical(&got, case.ordered) {
                failures.push(format!(
                    "{label}\n    expected {}\n    got      {}",
                    json!(want),
                    json!(got)
                ));
            }
        }
        (_, Some(want), Err(e)) if e.contains(want.as_str()) => {}
        (_, Some(want), got) => failures.push(format!(
            "{label}\n    expected an error containing {want:?}, got {got:?}"
        )),
        (Some(_), _, Err(e)) => failures.push(format!("{label}\n    failed: {e}")),
        (None, None, _) => {
            failures.push(format!("{label}: the case has neither expected nor error"))
        }
    }
}

#[test]
fn reference_executor_matches_the_documented_results() {
    let mut failures = Vec::new();
    let mut n = 0;
    for (_, data, cases, _) in load() {
        for case in &cases {
            n += 1;
            let got = sql::parse(&case.query)
                .and_then(|q| sql::execute(&q, &case.params, data.iter().cloned()))
                .map_err(|e| e.to_string());
            check(case, got, "executor", &mut failures);
        }
    }
    assert!(n >= 150, "only {n} cases");
    assert!(
        failures.is_empty(),
        "{} of {n} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_engine_matches_the_documented_results() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let db = t.engine.create_database("conformance").await.unwrap();
        let mut failures = Vec::new();
        for (i, (file, data, cases, policy)) in load().into_iter().enumerate() {
            // Items keep their data-set order through a sequence number; ids may repeat across
            // shapes of data, so each data set gets its own container of four partitions.
            let mut props =
                ContainerProperties::new(&format!("set{i}"), "/id").with_initial_partitions(4);
            if let Some(p) = policy {
                props = props.with_indexing_policy(p);
            }
            let c = db.create_container(props).await.unwrap();
            for d in &data {
                c.create_item(d, None, None)
                    .await
                    .unwrap_or_else(|e| panic!("{file}: {e}"));
            }
            for case in &cases {
                // Results of the engine carry system properties; strip them to compare.
                let opts = QueryOptions {
                    max_item_count: Some(2),
                    ..Default::default()
                };
                let params: Vec<(String, Value)> = case
                    .params
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let got = c
                    .query_all::<Value>(&case.query, &params, opts)
                    .await
                    .map(|r| r.items.into_iter().map(strip).collect())
                    .map_err(|e| e.to_string());
                // Without ORDER BY the engine may return rows in another order than the data file.
                // (the data file's order is the docs' one partition; the engine's is EPK order).
                let unordered = Case {
                    ordered: case.ordered && case.query.to_uppercase().contains("ORDER BY"),
                    ..clone_case(case)
                };
                check(&unordered, got, "engine", &mut failures);
            }
        }
        assert!(
            failures.is_empty(),
            "{} cases failed on the engine:\n{}",
            failures.len(),
            failures.join("\n")
        );
    });
}

fn clone_case(c: &Case) -> Case {
    Case {
        file: c.file.clone(),
        name: c.name.clone(),
        query: c.query.clone(),
        params: c.params.clone(),
        expected: c.expected.clone(),
        error: c.error.clone(),
        ordered: c.ordered,
    }
}

fn strip(mut v: Value) -> Value {
    match &mut v {
        Value::Object(m) => {
            for k in engine::SYSTEM_PROPERTIES {
                m.shift_remove(k);
            }
            for (_, x) in m.iter_mut() {
                *x = strip(x.take());
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| *x = strip(x.take())),
        _ => {}
    }
    v
}

/// `QUERY.md` marks as supported exactly the functions the parser knows, and gives a reason for
/// every function it marks unsupported; each of those is refused by the parser with its position.
#[test]
fn the_coverage_table_matches_the_engine() {
    let table = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("QUERY.md"))
        .expect("engine/QUERY.md");
    let mut listed = Vec::new();
    for line in table
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| Group") && !l.starts_with("| ---"))
    {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (name, supported, note) = (cells[2], cells[3], cells[4]);
        listed.push(name.to_owned());
        let known = sql::function_names().any(|n| n == name);
        match supported {
            "yes" => assert!(
                known,
                "QUERY.md says {name} is supported; the parser does not know it"
            ),
            "no" => {
                assert!(
                    !known,
                    "QUERY.md says {name} is not supported; the parser knows it"
                );
                assert!(!note.is_empty(), "QUERY.md gives no reason for {name}");
                let e = sql::parse(&format!("SELECT VALUE {name}(1)"))
                    .unwrap_err()
                    .to_string();
                assert!(
                    e.contains("line 1, column") && e.contains("unknown function"),
                    "{e}"
                );
            }
            other => panic!("QUERY.md: {name}: '{other}' is neither yes nor no"),
        }
    }
    for name in sql::function_names() {
        assert!(
            listed.iter().any(|l| l == name),
            "QUERY.md does not list {name}"
        );
    }
}

/// What the reference executor cannot show: the container's full-text index (FULLTEXTSCORE
/// without one is a 400, a wildcard full-text path is refused), BM25 statistics read from every
/// partition (and charged), and DOCUMENTID of stored items (from the engine's `_rid`).
#[test]
fn full_text_needs_its_index_and_document_ids_are_stable() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions::default());
        let db = t.engine.create_database("fulltext").await.unwrap();
        let bad = db
            .create_container(ContainerProperties::new("bad", "/id").with_indexing_policy(
                json!({"includedPaths": [{"path": "/*"}], "fullTextIndexes": [{"path": "/tags/[]"}]}),
            ))
            .await
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(bad.contains("without wildcards"), "{bad}");
        let plain = db
            .create_container(ContainerProperties::new("plain", "/id").with_initial_partitions(2))
            .await
            .unwrap();
        let indexed = db
            .create_container(
                ContainerProperties::new("indexed", "/id")
                    .with_initial_partitions(3)
                    .with_indexing_policy(json!({"includedPaths": [{"path": "/*"}], "fullTextIndexes": [{"path": "/text"}]})),
            )
            .await
            .unwrap();
        for i in 0..30 {
            let text = if i % 10 == 0 { "a fox in the woods" } else { "nothing to see here" };
            let doc = json!({"id": format!("{i}"), "text": text});
            plain.create_item(&doc, None, None).await.unwrap();
            indexed.create_item(&doc, None, None).await.unwrap();
        }
        let none: [(&str, Value); 0] = [];
        let ranked = "SELECT VALUE c.id FROM c WHERE c.id IN ('0', '10', '20', '1') ORDER BY RANK FullTextScore(c.text, 'fox')";
        let e = plain
            .query_all::<Value>(ranked, &none, QueryOptions::default())
            .await
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(e.contains("full-text index on /text"), "{e}");
        // FULLTEXTCONTAINS needs no index.
        let found = plain
            .query_all::<Value>(
                "SELECT VALUE c.id FROM c WHERE FullTextContains(c.text, 'foxes')",
                &none,
                QueryOptions::default(),
            )
            .await
            .unwrap();
        assert_eq!(found.items.len(), 3);
        let r = indexed
            .query_all::<Value>(ranked, &none, QueryOptions::default())
            .await
            .unwrap();
        assert_eq!(r.items.last(), Some(&json!("1")));
        // The statistics read all 30 items, besides the 4 candidates.
        let m = r.query_metrics.unwrap();
        assert!(m.retrieved_document_count >= 34, "{m:?}");
        let q = "SELECT c.id, DOCUMENTID(c) AS d FROM c";
        let a = indexed
            .query_all::<Value>(q, &none, QueryOptions::default())
            .await
            .unwrap()
            .items;
        let b = indexed
            .query_all::<Value>(q, &none, QueryOptions::default())
            .await
            .unwrap()
            .items;
        let mut seen = std::collections::HashSet::new();
        for row in &a {
            let d = row["d"].as_u64().expect("DOCUMENTID is an integer");
            assert!(d < 1 << 53 && seen.insert(d), "{row}");
        }
        let key = |v: &Vec<Value>| {
            let mut k: Vec<String> = v.iter().map(|r| r.to_string()).collect();
            k.sort();
            k
        };
        assert_eq!(key(&a), key(&b), "DOCUMENTID is stable");
    });
}
