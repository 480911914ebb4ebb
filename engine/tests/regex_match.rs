//! Issue 34: `RegexMatch` compiles each distinct pattern once per page, not once per item, within
//! the `regex` crate's size limit, and a pattern the engine cannot run (invalid, lookaround,
//! backreferences, too large) is a 400 naming it, never `undefined` for every item.

mod common;

use std::time::{Duration, Instant};

use engine::{ContainerClient, ContainerProperties, EngineOptions};
use serde_json::{json, Value};

async fn run(c: &ContainerClient, sql: &str) -> engine::Result<Vec<Value>> {
    c.query_all::<Value>(sql, engine::NO_PARAMS, Default::default())
        .await
        .map(|r| r.items)
}

async fn filled(t: &common::TestEngine, n: usize) -> ContainerClient {
    let c = common::container(t, ContainerProperties::new("c", "/pk")).await;
    for i in 0..n {
        c.create_item(
            &json!({"id": format!("i{i}"), "pk": format!("p{}", i % 7), "s": format!("word{i} other")}),
            None,
            None,
        )
        .await
        .unwrap();
    }
    c
}

#[test]
fn patterns_the_engine_cannot_run_are_400s_naming_them() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = filled(&t, 20).await;
        for (pattern, why) in [
            ("(", "unclosed group"),
            ("a(?=b)", "look-around"),
            ("(a)\\\\1", "backreferences"),
            ("((x{100}){100}){100}", "KiB"),
        ] {
            let sql = format!("SELECT VALUE c.id FROM c WHERE RegexMatch(c.s, '{pattern}')");
            let started = Instant::now();
            let e = run(&c, &sql).await.unwrap_err();
            assert_eq!(e.status_code(), 400, "{pattern}: {e}");
            let text = e.to_string();
            let named = pattern.replace("\\\\", "\\");
            assert!(text.contains(&format!("'{named}'")), "{pattern}: {text}");
            assert!(text.contains(why), "{pattern}: {text}");
            assert!(started.elapsed() < Duration::from_secs(10), "{pattern}");
        }
        // A modifier Cosmos DB does not have.
        let e = run(
            &c,
            "SELECT VALUE c.id FROM c WHERE RegexMatch(c.s, 'w', 'q')",
        )
        .await
        .unwrap_err();
        assert!(e.to_string().contains("'q' is not a modifier"), "{e}");
        // Patterns that run still answer, modifiers included; a non-string is undefined.
        let n = run(
            &c,
            "SELECT VALUE COUNT(1) FROM c WHERE RegexMatch(c.s, '^WORD1', 'i')",
        )
        .await
        .unwrap();
        assert_eq!(n, vec![json!(11)]);
        let n = run(
            &c,
            "SELECT VALUE COUNT(1) FROM c WHERE IS_DEFINED(RegexMatch(c.s, 5))",
        )
        .await
        .unwrap();
        assert_eq!(n, vec![json!(0)]);
    });
}

/// `\w{50}` takes tens of milliseconds to compile (Unicode classes): once per item, 300 items
/// took ~20 s; once per page, well under a second.
#[test]
fn a_pattern_is_compiled_once_per_page_not_per_item() {
    let rt = common::rt();
    let t = common::open(EngineOptions::default());
    rt.block_on(async {
        let c = filled(&t, 300).await;
        let started = Instant::now();
        let n = run(
            &c,
            "SELECT VALUE COUNT(1) FROM c WHERE RegexMatch(c.s, '\\\\w{50}') OR RegexMatch(c.s, 'word1')",
        )
        .await
        .unwrap();
        let took = started.elapsed();
        assert_eq!(n, vec![json!(111)]);
        assert!(took < Duration::from_secs(5), "{took:?}");
    });
}
