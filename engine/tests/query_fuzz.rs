//! The parser and executor never panic: random text, random token soups built from the
//! language's own words, and adversarial nesting all end in a result or an error.

use engine::sql::{execute, parse, Params};
use proptest::prelude::*;
use serde_json::json;

const WORDS: &[&str] = &[
    "SELECT",
    "VALUE",
    "DISTINCT",
    "TOP",
    "1",
    "*",
    "FROM",
    "c",
    "IN",
    "c.tags",
    "JOIN",
    "t",
    "WHERE",
    "AND",
    "OR",
    "NOT",
    "BETWEEN",
    "LIKE",
    "ESCAPE",
    "ORDER",
    "BY",
    "DESC",
    "GROUP",
    "OFFSET",
    "LIMIT",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ".",
    ":",
    "?",
    "??",
    "=",
    "!=",
    "<",
    ">=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "||",
    "&",
    "|",
    "^",
    "~",
    "<<",
    ">>>",
    "'a'",
    "\"b\"",
    "@p",
    "null",
    "true",
    "undefined",
    "c.a",
    "c[\"a\"]",
    "c.arr[0]",
    "COUNT(1)",
    "MAX(c.a)",
    "EXISTS",
    "ARRAY",
    "LOWER",
    "ARRAY_CONTAINS(c.tags, 'a')",
    "0x1F",
    "1.5e3",
    "-",
    "AS",
    "x",
];

fn run(text: &str) {
    if let Ok(q) = parse(text) {
        let docs = vec![
            json!({"id": "1", "a": 1, "tags": ["a", 2], "arr": [{"b": 1}]}),
            json!({"id": "2"}),
        ];
        let params: Params = [("@p".to_string(), json!(3))].into_iter().collect();
        let _ = execute(&q, &params, docs);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(text in "\\PC{0,80}") {
        run(&text);
    }

    #[test]
    fn token_soup_never_panics(words in proptest::collection::vec(proptest::sample::select(WORDS), 0..30)) {
        run(&words.join(" "));
    }

    #[test]
    fn valid_prefixes_with_random_tails_never_panic(tail in proptest::collection::vec(proptest::sample::select(WORDS), 0..20)) {
        run(&format!("SELECT VALUE {} FROM c", tail.join(" ")));
        run(&format!("SELECT * FROM c WHERE {}", tail.join(" ")));
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    // Run on a 2 MiB stack, the default of threads and of tokio workers.
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            for text in [
                format!("SELECT VALUE {}1{}", "(".repeat(50_000), ")".repeat(50_000)),
                format!("SELECT VALUE {}1{}", "[".repeat(50_000), "]".repeat(50_000)),
                format!("SELECT VALUE {}", "NOT ".repeat(50_000)),
                format!("SELECT VALUE 1{}", " + 1".repeat(50_000)),
                format!("SELECT VALUE {}c", "ARRAY(SELECT VALUE ".repeat(2_000)),
                format!("SELECT VALUE c{}", ".a".repeat(50_000)),
            ] {
                let e = parse(&text).unwrap_err().to_string();
                assert!(e.contains("nests deeper than"), "{e}");
            }
            // Just under the limit, queries parse and run.
            for text in [
                format!("SELECT VALUE {}1{}", "(".repeat(60), ")".repeat(60)),
                format!("SELECT VALUE 1{}", " + 1".repeat(120)),
                format!("SELECT VALUE c{} FROM c", ".a".repeat(120)),
            ] {
                let q = parse(&text).unwrap();
                execute(&q, &Params::new(), vec![json!({"a": 1})]).unwrap();
            }
        })
        .unwrap()
        .join()
        .expect("no stack overflow");
}
