//! Running scripts on the writer thread, each in its own nested transaction: a stored procedure
//! call and a write with triggers are the writer's `Script`s (`writer::script`).

use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use super::context::Before;
use super::{PreTriggerCall, RequestedTriggers, ScriptBudget, ScriptContext, StoredProcedure};
use crate::catalog::ContainerDef;
use crate::error::{Error, Result};
use crate::partition::PartitionKey;
use crate::ru::Meter;
use crate::writer::apply::{apply_item, Ctx};
use crate::writer::atomic::atomically;
use crate::writer::ops::{Failure, ItemOp, ItemOpKind, ItemOutcome, ScriptOutcome, WriteOutput};
use crate::writer::script::Script;

/// A call of a stored procedure in one logical partition, as the writer runs it.
pub(crate) struct ProcedureCall {
    pub partition_key: PartitionKey,
    pub name: String,
    pub procedure: Arc<dyn StoredProcedure>,
    pub args: Vec<Value>,
    pub budget: ScriptBudget,
}

impl Script for ProcedureCall {
    /// Runs the procedure in its own nested transaction; a failed one is rolled back and charged
    /// for the work it did.
    fn run(&self, ctx: &mut Ctx, def: &mut ContainerDef) -> Result<Result<WriteOutput, Failure>> {
        let ran = run_procedure(ctx, def, self)?;
        Ok(ran.map(WriteOutput::Script))
    }
}

/// A write with pre- and post-triggers, as the writer runs it: all of it commits, or none of it.
pub(crate) struct TriggeredWrite {
    pub op: ItemOp,
    pub triggers: RequestedTriggers,
    pub budget: ScriptBudget,
}

impl Script for TriggeredWrite {
    fn run(&self, ctx: &mut Ctx, def: &mut ContainerDef) -> Result<Result<WriteOutput, Failure>> {
        let ran = run_item_with_triggers(ctx, def, &self.op, &self.triggers, self.budget)?;
        Ok(ran.map(WriteOutput::Item))
    }
}

fn run_procedure(
    ctx: &mut Ctx,
    def: &mut ContainerDef,
    call: &ProcedureCall,
) -> Result<Result<ScriptOutcome, Failure>> {
    let ProcedureCall {
        partition_key,
        name,
        procedure,
        args,
        budget,
    } = call;
    let budget = *budget;
    let partition = def
        .partitions
        .owner(&def.partition_key.epk(partition_key))
        .id;
    let mut used = Meter::default();
    let out = atomically(ctx, def, |ctx, def| {
        let mut sctx = ScriptContext {
            ctx,
            def,
            partition_key: partition_key.clone(),
            meter: Meter::default(),
            budget,
            started: Instant::now(),
            name: name.to_owned(),
            log: String::new(),
            before: None,
            request: None,
        };
        let body = procedure.execute(&mut sctx, args);
        used = sctx.meter;
        // A procedure that overran without calling the context is rolled back all the same.
        let body = body.and_then(|body| sctx.check_budget().map(|()| body))?;
        Ok(ScriptOutcome {
            body,
            meter: sctx.meter,
            partition,
            log: std::mem::take(&mut sctx.log),
        })
    })?;
    Ok(out.map_err(|error| Failure { error, meter: used }))
}

fn run_item_with_triggers(
    ctx: &mut Ctx,
    def: &mut ContainerDef,
    op: &ItemOp,
    triggers: &RequestedTriggers,
    budget: ScriptBudget,
) -> Result<Result<ItemOutcome, Failure>> {
    let mut used = Meter::default();
    let out = atomically(ctx, def, |ctx, def| {
        let started = Instant::now();
        let mut op = op.clone();
        let mut pre_call = PreTriggerCall {
            budget,
            started,
            meter: Meter::default(),
            database: def.database.clone(),
        };
        for (_, pre) in &triggers.pre {
            if let ItemOpKind::Create(d)
            | ItemOpKind::Upsert(d)
            | ItemOpKind::Replace { doc: d, .. } = &mut op.kind
            {
                let ran = pre(d, &mut pre_call);
                // A failed pre-trigger is charged its CPU too.
                used = pre_call.meter;
                ran?;
            }
        }
        let before = match triggers.post.is_empty() {
            true => None,
            false => before_write(ctx, def, &op)?,
        };
        let request = match &op.kind {
            ItemOpKind::Create(d) | ItemOpKind::Upsert(d) | ItemOpKind::Replace { doc: d, .. }
                if !triggers.post.is_empty() =>
            {
                Some(d.clone())
            }
            _ => None,
        };
        let mut out = apply_item(ctx, def, &op)?;
        out.meter.add(&pre_call.meter);
        used = out.meter;
        if triggers.post.is_empty() {
            return Ok(out);
        }
        let written: Value = match &out.body {
            Some(b) => serde_json::from_slice(b).map_err(|e| Error::Corrupt(e.to_string()))?,
            None => Value::Null,
        };
        let partition_key = match &op.partition_key {
            Some(pk) => pk.clone(),
            None => def.partition_key.extract(&written)?,
        };
        let mut sctx = ScriptContext {
            ctx,
            def,
            partition_key,
            meter: Meter::default(),
            budget,
            started,
            name: String::new(),
            log: String::new(),
            before,
            request,
        };
        let ran = triggers.post.iter().try_for_each(|(name, post)| {
            sctx.name = name.clone();
            post(&mut sctx, &written)?;
            sctx.check_budget()
        });
        used.add(&sctx.meter);
        ran?;
        out.meter.add(&sctx.meter);
        Ok(out)
    })?;
    Ok(out.map_err(|error| Failure { error, meter: used }))
}

/// The item `op` writes, as it is before the write, for its post-triggers' queries ([`Before`]).
/// Read inside the write's transaction and not charged: the service charges a trigger for what
/// its own script does.
fn before_write(ctx: &mut Ctx, def: &mut ContainerDef, op: &ItemOp) -> Result<Option<Before>> {
    let id = match &op.kind {
        ItemOpKind::Create(d) | ItemOpKind::Upsert(d) => d.get("id").and_then(Value::as_str),
        ItemOpKind::Replace { id, .. }
        | ItemOpKind::Delete { id }
        | ItemOpKind::Patch { id, .. } => Some(id.as_str()),
        ItemOpKind::Read { .. } => return Ok(None),
    };
    let Some(id) = id.map(str::to_owned) else {
        return Ok(None);
    };
    let partition_key = match (&op.partition_key, &op.kind) {
        (Some(pk), _) => pk.clone(),
        (
            None,
            ItemOpKind::Create(d) | ItemOpKind::Upsert(d) | ItemOpKind::Replace { doc: d, .. },
        ) => def.partition_key.extract(d)?,
        (None, _) => return Ok(None),
    };
    let read = ItemOp {
        kind: ItemOpKind::Read { id: id.clone() },
        partition_key: Some(partition_key),
        if_match: None,
        if_none_match: None,
    };
    let doc = match apply_item(ctx, def, &read) {
        Ok(out) => out
            .body
            .map(|b| serde_json::from_slice(&b).map_err(|e| Error::Corrupt(e.to_string())))
            .transpose()?,
        Err(Error::NotFound { .. }) => None,
        Err(e) => return Err(e),
    };
    Ok(Some(Before { id, doc }))
}
