//! `engine patch`: a partial update of one item (Cosmos DB's patch operations), optionally
//! conditional on a filter predicate (`--condition "FROM c WHERE c.stock > 0"`): the item is
//! changed only when the predicate holds, else a 412, as the service answers.

use engine::{Engine, PatchOperation};
use serde_json::Value;

use crate::error::CliError;
use crate::output::{charge_line, out, parse_pk, Target};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    target: Target,
    /// Partition key value (read as JSON when it parses as JSON, else a string).
    #[arg(long, allow_hyphen_values = true)]
    pk: String,
    /// Apply the operations only if the item matches this predicate (`FROM c WHERE …`).
    #[arg(long, value_name = "FROM c WHERE …")]
    condition: Option<String>,
    /// The item's id.
    id: String,
    /// The operations, as the REST API takes them: a JSON array such as
    /// `'[{"op":"incr","path":"/stock","value":-1}]'`, or `{"operations":[…]}`.
    operations: String,
}

pub async fn run(engine: &Engine, args: Args) -> Result<(), CliError> {
    let operations = operations(&args.operations)?;
    let pk = parse_pk(&args.pk)?;
    let c = args.target.client(engine).charged();
    let r = match &args.condition {
        Some(condition) => {
            c.patch_item_if::<Value>(&args.id, pk, &operations, condition, None)
                .await?
        }
        None => {
            c.patch_item::<Value>(&args.id, pk, &operations, None)
                .await?
        }
    };
    out(&serde_json::to_string_pretty(&r.resource).unwrap_or_default());
    charge_line(r.request_charge, &r.diagnostics);
    Ok(())
}

/// The operations argument: a bare array, or an object holding `operations` (both are what
/// the SDKs send).
fn operations(raw: &str) -> Result<Vec<PatchOperation>, engine::Error> {
    let bad = |why: String| engine::Error::bad("operations", format!("the operations: {why}"));
    let value: Value = serde_json::from_str(raw).map_err(|e| bad(format!("not JSON: {e}")))?;
    let list = match value {
        Value::Object(mut o) => o
            .remove("operations")
            .ok_or_else(|| bad("an object must hold \"operations\"".into()))?,
        v => v,
    };
    serde_json::from_value(list).map_err(|e| {
        bad(format!(
            "{e}; expected [{{\"op\": \"set\", \"path\": \"/a\", \"value\": 1}}, …]"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_both_forms_the_sdks_send() {
        let bare = operations(r#"[{"op":"incr","path":"/n","value":1}]"#).unwrap();
        let wrapped =
            operations(r#"{"operations":[{"op":"incr","path":"/n","value":1}]}"#).unwrap();
        assert_eq!(bare, wrapped);
        assert_eq!(bare, vec![PatchOperation::increment("/n", 1)]);
        let e = operations(r#"[{"op":"frobnicate","path":"/n"}]"#).unwrap_err();
        assert!(e.to_string().contains("operations"), "{e}");
        assert!(operations("{}").is_err());
    }
}
