//! Partition key values as people type them: JSON when the text parses as JSON (`5`, `true`,
//! `null`, `"5"`, `["a","b"]` for a hierarchical key), else the text itself as a string, like
//! the `engine` CLI's `--pk`.

use engine::PartitionKey;
use serde_json::Value;

pub fn parse(raw: &str) -> engine::Result<PartitionKey> {
    PartitionKey::from_text(raw, "partition key")
}

/// The text that [`parse`] reads back as `v`: a string as itself unless it would read as JSON.
pub fn text(v: &Value) -> String {
    match v {
        Value::String(s) if serde_json::from_str::<Value>(s).is_err() => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn text_and_parse_round_trip() {
        for v in [
            json!("cat-1"),
            json!("7"),
            json!(7),
            json!(true),
            json!(null),
            json!(""),
            json!(["contoso", 7]),
        ] {
            assert_eq!(parse(&text(&v)).unwrap().to_json(), Some(v.clone()), "{v}");
        }
        // An array is a hierarchical key's values (or a prefix): of scalars, at most three.
        assert!(parse("[1]").is_ok());
        assert!(parse("[[1]]").is_err());
        assert!(parse("[1,2,3,4]").is_err());
        assert!(parse("{\"a\":1}").is_err());
    }
}
