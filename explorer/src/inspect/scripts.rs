//! Stored procedures and triggers: what a container has, and running a procedure in a logical
//! partition with JSON arguments (one transaction; a write).

use cosmos::Labelled;
use engine::{ContainerClient, PartitionKey, ScriptList};
use serde_json::Value;

pub fn list(c: &ContainerClient) -> engine::Result<ScriptList> {
    c.scripts().list()
}

/// Arguments as typed: a JSON array, each element one argument (empty: none).
pub fn arguments(text: &str) -> engine::Result<Vec<Value>> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(args)) => Ok(args),
        Ok(_) => Err(engine::Error::bad(
            "arguments",
            "the arguments are a JSON array, one element per argument",
        )),
        Err(e) => Err(engine::Error::bad(
            "arguments",
            format!("not valid JSON: {e}"),
        )),
    }
}

pub struct ProcedureRun {
    /// What the procedure returned, as pretty JSON.
    pub body: String,
    pub request_charge: f64,
}

pub async fn run(
    c: &ContainerClient,
    id: &str,
    pk: PartitionKey,
    args: &[Value],
) -> engine::Result<ProcedureRun> {
    let r = cosmos::Container::embedded(c.clone())
        .execute_stored_procedure::<Value>(id, pk, args)
        .labelled(format!("run {id}"))
        .await?;
    Ok(ProcedureRun {
        body: serde_json::to_string_pretty(&r.resource)?,
        request_charge: r.request_charge,
    })
}
