//! The parser and executor never panic: random text, random token soups built from the
//! language's own words, and adversarial nesting all end in a result or an error.

use engine::testing::{execute, parse, Params};
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
    "NaN",
    "Infinity",
    "-Infinity",
    "IIF(c.a, 1, 2)",
    "CHOOSE(c.a, 'x', 'y')",
    "IntAdd(c.a, 9223372036854775807)",
    "IntDiv(c.a, 0)",
    "IntBitLeftShift(c.a, 64)",
    "StringToArray('[1, {\"a\": []}]')",
    "StringToObject(c.s)",
    "ObjectToArray(c.o, 'k', 'v')",
    "TRIM(c.s, 'x')",
    "StringSplit(c.s, '')",
    "LastIndexOf(c.s, 'x', -1)",
    "ARRAY_CONTAINS_ANY(c.arr, 1, undefined)",
    "NumberBin(c.a, 0)",
    "1 / 0",
    "RANK",
    "ORDER BY RANK FULLTEXTSCORE(c.s, 'x')",
    "ORDER BY RANK RRF(FULLTEXTSCORE(c.s, 'x'), VECTORDISTANCE(c.arr, [1]), [2, 1])",
    "FULLTEXTCONTAINS(c.s, 'x{}x')",
    "DOCUMENTID(c)",
    "AGO('dd', 1)",
];

/// Every function of the language, bare and with an opening parenthesis, so that the token
/// soups call each one with random arguments.
fn words() -> Vec<String> {
    let mut w: Vec<String> = WORDS.iter().map(|s| s.to_string()).collect();
    for name in engine::testing::function_names() {
        w.push(name.to_string());
        w.push(format!("{name}("));
    }
    w
}

fn run(text: &str) {
    if let Ok(q) = parse(text) {
        let docs = vec![
            json!({"id": "1", "a": 1, "tags": ["a", 2], "arr": [{"b": 1}]}),
            json!({"id": "2"}),
            json!({"id": "3", "a": -9223372036854775808i64, "s": "x{}x", "o": {"p": 1.5}, "arr": []}),
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
    fn token_soup_never_panics(words in proptest::collection::vec(proptest::sample::select(words()), 0..30)) {
        run(&words.join(" "));
    }

    #[test]
    fn valid_prefixes_with_random_tails_never_panic(tail in proptest::collection::vec(proptest::sample::select(words()), 0..20)) {
        run(&format!("SELECT VALUE {} FROM c", tail.join(" ")));
        run(&format!("SELECT * FROM c WHERE {}", tail.join(" ")));
    }
}

/// Every function, called with every argument count from none to one past its maximum, on
/// arguments of every type: a result or a 400, never a panic.
#[test]
fn every_function_with_every_argument_type() {
    let args = [
        "undefined",
        "null",
        "true",
        "0",
        "-1",
        "2.5",
        "9223372036854775807",
        "NaN",
        "-Infinity",
        "''",
        "'a,b'",
        "'2020-01-01T00:00:00Z'",
        "[]",
        "[1, 'a']",
        "{}",
        "{k: [1]}",
        "c.arr",
        "c.o",
        "c.s",
        "c.a",
        "{\"type\": \"Point\", \"coordinates\": [1, 2]}",
        "{\"type\": \"Polygon\", \"coordinates\": [[[0, 0], [3, 0], [3, 3], [0, 0]]]}",
        "{distanceFunction: \"euclidean\"}",
    ];
    for name in engine::testing::function_names() {
        for argc in 0..5 {
            for first in 0..args.len() {
                let list: Vec<&str> = (0..argc)
                    .map(|i| args[(first + i * 7) % args.len()])
                    .collect();
                run(&format!("SELECT VALUE {name}({}) FROM c", list.join(", ")));
                run(&format!(
                    "SELECT * FROM c WHERE {name}({})",
                    list.join(", ")
                ));
            }
        }
    }
}

/// ORDER BY RANK with every argument type in the scoring functions, fused or not.
#[test]
fn ranking_with_every_argument_type() {
    let args = [
        "undefined",
        "null",
        "1",
        "'x'",
        "'a b'",
        "['x', 'y']",
        "[]",
        "[1]",
        "{}",
        "c.s",
        "c.a",
        "c.arr",
        "[2, 1]",
        "[-1, 0.5]",
        "{distanceFunction: 'euclidean'}",
    ];
    for a in args {
        for b in args {
            run(&format!(
                "SELECT * FROM c ORDER BY RANK FULLTEXTSCORE(c.s, {a}, {b})"
            ));
            run(&format!(
                "SELECT * FROM c ORDER BY RANK FULLTEXTSCORE({a}, {b})"
            ));
            run(&format!("SELECT TOP 2 * FROM c ORDER BY RANK RRF(FULLTEXTSCORE(c.s, {a}), VECTORDISTANCE(c.arr, {b}, false, {a}), {b})"));
            run(&format!("SELECT c.id FROM c WHERE FULLTEXTCONTAINSANY(c.s, {a}, {b}) ORDER BY RANK VECTORDISTANCE(c.arr, {a}, false, {b})"));
            run(&format!(
                "SELECT VALUE [DOCUMENTID({a}), AGO({a}, {b}), NOW({a}, {b})] FROM c"
            ));
        }
    }
}

/// The libFuzzer dictionary names every function, so the fuzz target reaches each of them.
#[test]
fn the_fuzz_dictionary_lists_every_function() {
    let dict = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/query.dict"))
        .expect("engine/fuzz/query.dict");
    for name in engine::testing::function_names() {
        assert!(
            dict.lines().any(|l| l == format!("\"{name}(\"")),
            "fuzz/query.dict lacks \"{name}(\""
        );
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
                format!("SELECT VALUE {}c", "ARRAY(SELECT VALUE ".repeat(2_000)),
                format!("SELECT VALUE c{}", ".a".repeat(50_000)),
            ] {
                let e = parse(&text).unwrap_err().to_string();
                assert!(e.contains("nests deeper than"), "{e}");
            }
            // At the limit, queries parse and run: a parenthesis, a bracket or a brace is one
            // level.
            for text in [
                format!("SELECT VALUE {}1{}", "(".repeat(128), ")".repeat(128)),
                format!("SELECT VALUE {}1{}", "[".repeat(128), "]".repeat(128)),
                format!("SELECT VALUE {}1{}", "{a: ".repeat(128), "}".repeat(128)),
                format!("SELECT VALUE c{} FROM c", ".a".repeat(120)),
            ] {
                let q = parse(&text).unwrap();
                execute(&q, &Params::new(), vec![json!({"a": 1})]).unwrap();
            }
            // A chain of one operator is not nesting: 10 000 terms parse, run and drop.
            let rows = |text: &str| {
                let q = parse(text).unwrap_or_else(|e| panic!("{}: {e}", &text[..60]));
                execute(&q, &Params::new(), vec![json!({"a": 1, "id": "x"})]).unwrap()
            };
            let ors: Vec<String> = (0..10_000).map(|i| format!("c.a = {i}")).collect();
            let text = format!("SELECT VALUE c.id FROM c WHERE {}", ors.join(" OR "));
            assert_eq!(rows(&text), vec![json!("x")]);
            let ands: Vec<String> = (0..10_000).map(|_| "c.a = 1".to_owned()).collect();
            let text = format!("SELECT VALUE c.id FROM c WHERE {}", ands.join(" AND "));
            assert_eq!(rows(&text), vec![json!("x")]);
            let text = format!("SELECT VALUE 1{}", " + 1".repeat(10_000));
            assert_eq!(rows(&text), vec![json!(10_001)]);
            // Left to right, as a left-deep tree would evaluate it.
            assert_eq!(rows("SELECT VALUE 10 - 2 - 3 + 1"), vec![json!(6)]);
            assert_eq!(rows("SELECT VALUE 2 * 3 + 4 * 5 - 6 / 2"), vec![json!(23)]);
            assert_eq!(
                rows("SELECT VALUE false AND c.missing AND true"),
                vec![json!(false)]
            );
        })
        .unwrap()
        .join()
        .expect("no stack overflow");
}

/// The fuzz target's seeds (`fuzz/corpus/query`, long chains and `IN` lists among them) run
/// here too, so CI replays them without libFuzzer: each parses and runs, or is an error.
#[test]
fn the_fuzz_corpus_replays() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/query");
    let mut seeds = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        run(&text);
        seeds += 1;
    }
    assert!(seeds >= 16, "{seeds} seeds in {}", dir.display());
    // The long ones are queries, not nesting errors (issue 18 §3).
    for name in [
        "seed-long-or-chain",
        "seed-long-and-chain",
        "seed-long-plus-chain",
        "seed-long-in-strings",
    ] {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        assert!(parse(&text).is_ok(), "{name} parses");
    }
}
