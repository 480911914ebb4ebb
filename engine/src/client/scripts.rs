//! Registering and running stored procedures and triggers (`container.Scripts` in the SDKs).

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::container::ContainerClient;
use super::options::ItemOptions;
use super::response::Diagnostics;
use crate::error::{Error, Failed, Result};
use crate::partition::PartitionKey;
use crate::ru::Meter;
use crate::scripts::run::ProcedureCall;
use crate::scripts::{RequestedTriggers, Scripts, StoredProcedure, Trigger, TriggerOperation};
use crate::writer::ops::{ItemOpKind, WriteOp, WriteOutput};

#[derive(Debug, Clone)]
pub struct StoredProcedureResponse<T> {
    /// What the procedure returned (its response body).
    pub resource: T,
    /// Everything the procedure did, in RU.
    pub request_charge: f64,
    pub diagnostics: Diagnostics,
    /// What a JavaScript procedure wrote with `console.log` (Cosmos DB's script log).
    pub script_log: String,
}

pub struct ScriptsClient {
    pub(super) container: ContainerClient,
}

impl ContainerClient {
    /// The container's stored procedures and triggers.
    pub fn scripts(&self) -> ScriptsClient {
        ScriptsClient {
            container: self.clone(),
        }
    }

    /// Resolves the triggers a write asked for; unknown names and wrong kinds are a 400.
    pub(crate) fn resolve_triggers(
        &self,
        options: &ItemOptions,
        kind: &ItemOpKind,
    ) -> Result<RequestedTriggers> {
        let mut out = RequestedTriggers::default();
        if options.pre_triggers.is_empty() && options.post_triggers.is_empty() {
            return Ok(out);
        }
        let shared = self.shared()?;
        let registered = Scripts::of(&shared);
        let scripts = registered.read();
        let applies = |op: TriggerOperation| {
            op == TriggerOperation::All
                || matches!(
                    (op, kind),
                    (TriggerOperation::Create, ItemOpKind::Create(_))
                        | (TriggerOperation::Upsert, ItemOpKind::Upsert(_))
                        | (
                            TriggerOperation::Replace,
                            ItemOpKind::Replace { .. } | ItemOpKind::Patch { .. }
                        )
                        | (TriggerOperation::Delete, ItemOpKind::Delete { .. })
                )
        };
        for (names, pre) in [
            (&options.pre_triggers, true),
            (&options.post_triggers, false),
        ] {
            for name in names {
                let t = scripts.triggers.get(name).ok_or_else(|| {
                    Error::bad(
                        "triggers",
                        format!("no trigger named '{name}' on this container"),
                    )
                })?;
                if !applies(t.operation()) {
                    return Err(Error::bad(
                        "triggers",
                        format!(
                            "trigger '{name}' is not for this operation ({:?})",
                            t.operation()
                        ),
                    ));
                }
                match (t, pre) {
                    (Trigger::Pre { body, .. }, true) => out.pre.push((name.clone(), body.clone())),
                    (Trigger::Post { body, .. }, false) => {
                        out.post.push((name.clone(), body.clone()))
                    }
                    _ => {
                        let want = if pre { "pre" } else { "post" };
                        return Err(Error::bad(
                            "triggers",
                            format!("trigger '{name}' is not a {want}-trigger"),
                        ));
                    }
                }
            }
        }
        Ok(out)
    }
}

impl ScriptsClient {
    /// Registers a stored procedure (409 if the name is taken).
    pub fn create_stored_procedure(&self, id: &str, procedure: impl StoredProcedure) -> Result<()> {
        crate::catalog::validate_resource_id("stored procedure", id)?;
        let shared = self.container.shared()?;
        let registered = Scripts::of(&shared);
        let mut scripts = registered.write();
        if scripts.procedures.contains_key(id) {
            return Err(Error::Conflict { id: id.to_owned() });
        }
        scripts
            .procedures
            .insert(id.to_owned(), Arc::new(procedure));
        Ok(())
    }

    /// Registers or replaces a stored procedure (apps call it at every start).
    pub fn upsert_stored_procedure(&self, id: &str, procedure: impl StoredProcedure) -> Result<()> {
        crate::catalog::validate_resource_id("stored procedure", id)?;
        Scripts::of(&*self.container.shared()?)
            .write()
            .procedures
            .insert(id.to_owned(), Arc::new(procedure));
        Ok(())
    }

    /// Registers or replaces a trigger.
    pub fn upsert_trigger(&self, id: &str, trigger: Trigger) -> Result<()> {
        crate::catalog::validate_resource_id("trigger", id)?;
        Scripts::of(&*self.container.shared()?)
            .write()
            .triggers
            .insert(id.to_owned(), trigger);
        Ok(())
    }

    /// Registers or replaces a user-defined function, callable in this container's queries as
    /// `udf.<id>(...)`.
    pub fn upsert_user_defined_function(
        &self,
        id: &str,
        function: crate::JavaScript,
    ) -> Result<()> {
        // Any resource id, as the service takes it (azure-cosmos 4.17.1's test_udf_crud creates
        // "sample udf"); only an id that reads as a name can be called as `udf.<id>(...)`.
        crate::catalog::validate_resource_id("user-defined function", id)?;
        let shared = self.container.shared()?;
        let registered = Scripts::of(&shared);
        let mut scripts = registered.write();
        let mut functions = (*scripts.functions).clone();
        functions.insert(id.to_owned(), function);
        scripts.functions = Arc::new(functions);
        Ok(())
    }

    /// Runs stored procedure `id` in logical partition `partition_key`, as one transaction.
    pub async fn execute_stored_procedure<T: DeserializeOwned>(
        &self,
        id: &str,
        partition_key: impl Into<PartitionKey>,
        args: &[Value],
    ) -> Result<StoredProcedureResponse<T>> {
        Ok(self.execute_charged(id, partition_key, args).await?)
    }

    /// [`Self::execute_stored_procedure`], failing with what the call cost.
    pub(crate) async fn execute_charged<T: DeserializeOwned>(
        &self,
        id: &str,
        partition_key: impl Into<PartitionKey>,
        args: &[Value],
    ) -> Result<StoredProcedureResponse<T>, Failed> {
        let pk = partition_key.into();
        let shared = self.container.shared()?;
        let procedure = Scripts::of(&shared)
            .read()
            .procedures
            .get(id)
            .cloned()
            .ok_or_else(|| Error::NotFound {
                what: format!("stored procedure '{id}'"),
            })?;
        let (rid, pp, pk) = {
            let def = shared.def.load();
            let pk = def.partition_key.full_key(pk.clone())?;
            (
                def.rid,
                def.partitions.owner(&def.partition_key.epk(&pk)).id,
                pk,
            )
        };
        let (out, retries) = self
            .container
            .retrying(|| {
                let call = ProcedureCall {
                    partition_key: pk.clone(),
                    name: id.to_owned(),
                    procedure: procedure.clone(),
                    args: args.to_vec(),
                    budget: self.container.engine.inner.opts.script_budget,
                };
                let op = WriteOp::Script {
                    rid,
                    script: Box::new(call),
                };
                let submit = self.container.engine.submit(op);
                let shared = shared.clone();
                async move {
                    shared.throughput.admit(pp)?;
                    submit.await
                }
            })
            .await
            .map_err(|e| match e {
                // A 429 did nothing: it costs nothing.
                Error::TooManyRequests { .. } => Failed::from(e),
                e => {
                    shared.throughput.charge(pp, Meter::default().charge());
                    Failed::spent(e, Meter::default())
                }
            })?;
        let out = match out {
            WriteOutput::Script(out) => out,
            // Rolled back, yet charged for what it did, its CPU included (Cosmos DB bills a
            // failed script too): a script that keeps failing meets the 429s of its partition.
            WriteOutput::Failed(f) => {
                shared.throughput.charge(pp, f.meter.charge());
                return Err(Failed::spent(f.error, f.meter));
            }
            _ => return Err(Error::Corrupt("unexpected writer answer".into()).into()),
        };
        let charge = out.meter.charge();
        shared.throughput.charge(out.partition, charge);
        let mut diagnostics = Diagnostics::from_meter(&out.meter, vec![out.partition]);
        diagnostics.throttle_retries = retries;
        Ok(StoredProcedureResponse {
            resource: serde_json::from_value(out.body)
                .map_err(|e| Error::bad("body", e.to_string()))?,
            request_charge: charge,
            diagnostics,
            script_log: out.log,
        })
    }
}
