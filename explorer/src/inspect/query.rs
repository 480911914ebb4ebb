//! The query editor: any query with parameters and an optional partition key, one page at a
//! time, with the portal's "Query stats" (the engine's `QueryMetrics`). Syntax errors come back
//! with their line and column.

use cosmos::Labelled;
use engine::{ContainerClient, QueryOptions};
use engine::{PartitionCost, QueryError};
use serde_json::Value;

use super::pk;

/// What the editor's form sends.
#[derive(Debug, Clone, Default)]
pub struct QueryInput {
    pub sql: String,
    /// A JSON object (`{"@id": "x"}`) or the SDKs' list (`[{"name": "@id", "value": "x"}]`).
    pub params: String,
    /// Empty: a cross-partition query.
    pub partition_key: String,
    pub continuation: Option<String>,
    pub max_items: usize,
}

/// The portal's "Query stats" for one page.
#[derive(Debug, Clone)]
pub struct QueryStats {
    pub request_charge: f64,
    pub retrieved_document_count: u64,
    pub retrieved_document_size: u64,
    pub output_document_count: u64,
    pub output_document_size: u64,
    pub index_lookups: u64,
    pub index_hit_ratio: f64,
    pub partitions_visited: usize,
    pub routing: &'static str,
    pub plan: String,
    pub execution_time_ms: f64,
    pub partitions: Vec<PartitionCost>,
}

pub struct QueryPage {
    /// The results as pretty JSON (an array).
    pub results: String,
    pub count: usize,
    pub continuation: Option<String>,
    pub stats: QueryStats,
}

#[derive(Debug, thiserror::Error)]
pub enum QueryFailure {
    /// The text does not parse; `line` and `column` are 1-based.
    #[error("syntax error at line {line}, column {column}: {message}")]
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
    /// The query, its parameters or partition key are wrong (a 400 with the reason).
    #[error("{0}")]
    Invalid(String),
    /// Anything else (429, 503, ...), answered with the engine's status.
    #[error(transparent)]
    Engine(engine::Error),
}

fn params(text: &str) -> Result<Vec<(String, Value)>, QueryFailure> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let bad = |m: String| QueryFailure::Invalid(format!("parameters: {m}"));
    let v: Value = serde_json::from_str(text).map_err(|e| bad(format!("not valid JSON: {e}")))?;
    match v {
        Value::Object(m) => Ok(m.into_iter().collect()),
        Value::Array(list) => list
            .into_iter()
            .map(
                |p| match (p.get("name").and_then(Value::as_str), p.get("value")) {
                    (Some(n), Some(v)) => Ok((n.to_owned(), v.clone())),
                    _ => Err(bad("each entry needs a \"name\" and a \"value\"".into())),
                },
            )
            .collect(),
        _ => Err(bad(
            "a JSON object like {\"@id\": \"x\"} or a list of {\"name\", \"value\"}".into(),
        )),
    }
}

/// Runs one page of the query.
pub async fn run(c: &ContainerClient, input: &QueryInput) -> Result<QueryPage, QueryFailure> {
    if let Err(QueryError::Syntax {
        line,
        column,
        message,
    }) = engine::check_query(&input.sql)
    {
        return Err(QueryFailure::Syntax {
            line,
            column,
            message,
        });
    }
    let params = params(&input.params)?;
    let partition_key = match input.partition_key.trim() {
        "" => None,
        raw => Some(pk::parse(raw).map_err(|e| QueryFailure::Invalid(e.to_string()))?),
    };
    let options = QueryOptions {
        partition_key,
        max_item_count: Some(input.max_items.max(1)),
        continuation: input.continuation.clone(),
        ..Default::default()
    };
    let r = cosmos::Container::embedded(c.clone())
        .query_items::<Value>(&input.sql, &params, options)
        .labelled("query (explorer)")
        .await
        .map_err(|e| match e {
            engine::Error::BadRequest { .. } => QueryFailure::Invalid(e.to_string()),
            e => QueryFailure::Engine(e),
        })?;
    let m = r.query_metrics.clone().unwrap_or_default();
    let output_document_size = r.items.iter().map(|v| v.to_string().len() as u64).sum();
    Ok(QueryPage {
        results: serde_json::to_string_pretty(&r.items).unwrap_or_default(),
        count: r.items.len(),
        continuation: r.continuation,
        stats: QueryStats {
            request_charge: r.request_charge,
            retrieved_document_count: m.retrieved_document_count,
            retrieved_document_size: m.retrieved_document_size,
            output_document_count: m.output_document_count,
            output_document_size,
            index_lookups: m.index_lookups,
            index_hit_ratio: m.index_hit_ratio,
            partitions_visited: m.partitions_visited,
            routing: if m.routed {
                "single-partition"
            } else {
                "fan-out"
            },
            plan: m.plan,
            execution_time_ms: m.execution_time_ms,
            partitions: m.partitions,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_as_an_object_or_the_sdk_list() {
        assert_eq!(params("").unwrap(), vec![]);
        let a = params(r#"{"@id": "x", "@n": 2}"#).unwrap();
        let b = params(r#"[{"name": "@id", "value": "x"}, {"name": "@n", "value": 2}]"#).unwrap();
        assert_eq!(a, b);
        assert!(matches!(params("[1]"), Err(QueryFailure::Invalid(_))));
        assert!(matches!(params("{"), Err(QueryFailure::Invalid(_))));
    }
}
