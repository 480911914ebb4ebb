//! Any text given to the query parser, and any query that parses run over a small fixed data
//! set, must give a result or an error: never a panic, a hang or a stack overflow.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::json;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(query) = engine::testing::parse(text) else { return };
    let docs = vec![
        json!({"id": "1", "a": 1, "s": "x", "arr": [1, "a", null, {"b": 2}], "o": {"p": [1, 2]}}),
        json!({"id": "2", "a": "1", "n": null, "arr": []}),
        json!({"id": "3", "loc": {"type": "Point", "coordinates": [1.5, 2.5]}, "when": "2024-01-02T03:04:05.1234567Z"}),
        json!({"id": "4", "loc": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]}, "v": [1, 2, 3], "text": "A quick fox, the foxes"}),
        json!({"id": "5", "_rid": "36ZyAPW+uN8NAAAAAAAAAA==", "text": "running x", "v": [3, 2, 1]}),
    ];
    let params = [("@p".to_string(), json!(2)), ("@s".to_string(), json!("x"))].into_iter().collect();
    let _ = engine::testing::execute(&query, &params, docs);
});
