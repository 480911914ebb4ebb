//! Writer-side handling of databases, containers and transactional batches.

use serde_json::json;

use super::apply::{self, Ctx};
use super::atomic::atomically;
use super::ops::{BatchFailure, ItemOp, ItemOpKind, ItemOutcome, WriteOp, WriteOutput};
use super::{batch_failure, Dirty, State};
use crate::catalog::{self, ContainerDef, DatabaseDef};
use crate::error::{Error, Result};
use crate::partition::{PartitionKey, PartitionKeyDefinition, PartitionMap};
use crate::ru::Meter;
use crate::storage::keys;

/// Cosmos DB's limit on operations in one transactional batch.
pub const MAX_BATCH_OPERATIONS: usize = 100;

pub(super) fn apply_resource(
    ctx: &mut Ctx,
    state: &mut State,
    op: &WriteOp,
    dirty: &mut Dirty,
) -> Result<WriteOutput> {
    match op {
        WriteOp::CreateDatabase { id, throughput } => {
            catalog::validate_resource_id("database", id)?;
            if state.databases.contains_key(id) {
                return Err(Error::Conflict { id: id.clone() });
            }
            check_throughput(*throughput)?;
            // Numbered from the containers' counter: a database re-created under the same name
            // gets a new `_rid`, as on the service, so old links never reach the new one.
            let def = DatabaseDef {
                id: id.clone(),
                created: ctx.now,
                rid: state.next_rid,
                throughput: *throughput,
            };
            state.next_rid += 1;
            dirty.next_rid = true;
            put_database(ctx, &def)?;
            state.databases.insert(id.clone(), def.clone());
            dirty.databases.insert(id.clone());
            Ok(WriteOutput::Database(def))
        }
        WriteOp::ReplaceDatabaseThroughput { id, throughput } => {
            check_throughput(*throughput)?;
            let def = state.databases.get_mut(id).ok_or_else(|| Error::NotFound {
                what: format!("database '{id}'"),
            })?;
            def.throughput = *throughput;
            let def = def.clone();
            put_database(ctx, &def)?;
            dirty.databases.insert(id.clone());
            Ok(WriteOutput::Database(def))
        }
        WriteOp::DeleteDatabase { id } => {
            let Some(gone) = state.databases.remove(id) else {
                return Err(Error::NotFound {
                    what: format!("database '{id}'"),
                });
            };
            // Its users and permissions go with it (their resource tokens end).
            crate::users::table::drop_database(ctx, gone.number())?;
            ctx.store
                .meta
                .delete(ctx.wtxn, &catalog::database_key(id))?;
            let rids: Vec<_> = state
                .containers
                .values()
                .filter(|c| &c.database == id)
                .map(|c| (c.id.clone(), c.rid))
                .collect();
            for (cid, rid) in rids {
                drop_container(ctx, state, id, &cid, rid, dirty)?;
            }
            dirty.removed_databases.push(id.clone());
            dirty.databases.remove(id);
            Ok(WriteOutput::Done)
        }
        WriteOp::CreateContainer {
            database,
            props,
            default_partitions,
        } => {
            if !state.databases.contains_key(database) {
                return Err(Error::NotFound {
                    what: format!("database '{database}'"),
                });
            }
            catalog::validate_resource_id("container", &props.id)?;
            if state.rid_of(database, &props.id).is_some() {
                return Err(Error::Conflict {
                    id: props.id.clone(),
                });
            }
            let partition_key = PartitionKeyDefinition::new(&props.partition_key_path)?
                .with_version(props.partition_key_version.unwrap_or(2))?;
            if let Some(t) = props.default_ttl {
                if t == 0 || t < -1 {
                    return Err(Error::bad(
                        "defaultTtl",
                        "defaultTtl must be -1 or a positive number of seconds",
                    ));
                }
            }
            check_throughput(props.throughput)?;
            let partitions = props.initial_partitions.unwrap_or(*default_partitions);
            if !(1..=1024).contains(&partitions) {
                return Err(Error::bad(
                    "initialPartitions",
                    "initial physical partitions must be 1 to 1024",
                ));
            }
            crate::unique::validate(&props.unique_keys)?;
            let rid = state.next_rid;
            let partitions = PartitionMap::evenly_aligned(partitions, partition_key.aligned_bits());
            let mut def = ContainerDef::new(
                props.id.clone(),
                database.clone(),
                rid,
                partition_key,
                crate::index::policy::complete(
                    props.indexing_policy.as_ref().unwrap_or(&json!({})),
                )?,
                props.default_ttl,
                props.throughput,
                props.change_feed_retention,
                partitions,
                ctx.now,
            )?;
            def.unique_keys = props.unique_keys.clone();
            if !props.computed_properties.is_empty() {
                let props = props.computed_properties.clone();
                let compiled = crate::sql::computed::compile(&props)?;
                def = def.with_computed_properties(props, compiled);
            }
            def.database_rid = state.databases[database].number();
            state.next_rid += 1;
            dirty.next_rid = true;
            state.containers.insert(rid, def.clone());
            dirty.containers.insert(rid);
            Ok(WriteOutput::Container(Box::new(def)))
        }
        WriteOp::DeleteContainer { database, id } => {
            let rid = state.rid_of(database, id).ok_or_else(|| Error::NotFound {
                what: format!("container '{database}/{id}'"),
            })?;
            drop_container(ctx, state, database, id, rid, dirty)?;
            Ok(WriteOutput::Done)
        }
        WriteOp::ReplaceThroughput {
            database,
            id,
            throughput,
        } => {
            let rid = state.rid_of(database, id).ok_or_else(|| Error::NotFound {
                what: format!("container '{database}/{id}'"),
            })?;
            let def = state.containers.get_mut(&rid).expect("rid_of found it");
            def.throughput = *throughput;
            dirty.containers.insert(rid);
            Ok(WriteOutput::Container(Box::new(def.clone())))
        }
        WriteOp::ReplaceIndexingPolicy {
            database,
            id,
            policy,
        } => {
            let rid = state.rid_of(database, id).ok_or_else(|| Error::NotFound {
                what: format!("container '{database}/{id}'"),
            })?;
            let def = state.containers.get_mut(&rid).expect("rid_of found it");
            *def = def.with_indexing_policy(crate::index::policy::complete(policy)?)?;
            dirty.containers.insert(rid);
            Ok(WriteOutput::Container(Box::new(def.clone())))
        }
        WriteOp::ReplaceContainerSettings {
            database,
            id,
            default_ttl,
            computed_properties,
        } => super::settings::replace(
            ctx,
            state,
            dirty,
            (database, id),
            *default_ttl,
            computed_properties.as_deref(),
        ),
        WriteOp::Item { .. }
        | WriteOp::Batch { .. }
        | WriteOp::Purge
        | WriteOp::Users(_)
        | WriteOp::Script { .. } => {
            unreachable!("handled by the writer")
        }
    }
}

fn check_throughput(throughput: Option<u32>) -> Result<()> {
    if throughput == Some(0) {
        return Err(Error::bad(
            "throughput",
            "throughput must be at least 1 RU/s",
        ));
    }
    Ok(())
}

fn put_database(ctx: &mut Ctx, def: &DatabaseDef) -> Result<()> {
    let bytes = serde_json::to_vec(def).map_err(|e| Error::Corrupt(e.to_string()))?;
    ctx.store
        .meta
        .put(ctx.wtxn, &catalog::database_key(&def.id), &bytes)?;
    Ok(())
}

fn drop_container(
    ctx: &mut Ctx,
    state: &mut State,
    db: &str,
    id: &str,
    rid: u32,
    dirty: &mut Dirty,
) -> Result<()> {
    let prefix = keys::container_prefix(rid);
    for dbi in [
        ctx.store.docs,
        ctx.store.lps,
        ctx.store.feed,
        ctx.store.log,
        ctx.store.expiry,
        ctx.store.unique,
        ctx.store.index,
    ] {
        let mut it = dbi.prefix_iter_mut(ctx.wtxn, &prefix)?;
        while it.next().transpose()?.is_some() {
            // Safety: no reference into the database is held across the deletion.
            unsafe { it.del_current()? };
        }
    }
    ctx.store
        .meta
        .delete(ctx.wtxn, &catalog::container_key(db, id))?;
    state.containers.remove(&rid);
    dirty.containers.remove(&rid);
    dirty
        .removed_containers
        .push((db.to_owned(), id.to_owned(), rid));
    Ok(())
}

/// Applies a transactional batch in a nested transaction: all operations commit or none does.
/// `Ok(Err(failure))` is a batch that failed on its own (the group goes on); `Err` is storage.
pub(super) fn apply_batch(
    ctx: &mut Ctx,
    def: &mut ContainerDef,
    pk: &PartitionKey,
    ops: &[ItemOp],
) -> Result<Result<Vec<ItemOutcome>, BatchFailure>> {
    let partition = def.partitions.owner(&def.partition_key.epk(pk)).id;
    if ops.is_empty() || ops.len() > MAX_BATCH_OPERATIONS {
        let e = Error::bad(
            "operations",
            format!(
                "a batch has 1 to {MAX_BATCH_OPERATIONS} operations, got {}",
                ops.len()
            ),
        );
        return Ok(Err(batch_failure(0, e, Meter::default(), partition)));
    }
    let mut meter = Meter::default();
    let mut failed_at = 0;
    let run = atomically(ctx, def, |ctx, def| {
        // One LSN for the whole batch, as the service gives it (`storage::feed_entry`).
        ctx.batch = Some(0);
        let mut outcomes = Vec::with_capacity(ops.len());
        for (i, op) in ops.iter().enumerate() {
            failed_at = i;
            let mut op = op.clone();
            // Every operation runs in the batch's logical partition.
            match &op.partition_key {
                Some(p) if def.partition_key.full_key(p.clone()).ok().as_ref() != Some(pk) => {
                    return Err(Error::bad(
                        "partitionKey",
                        format!(
                            "operation {i} names partition {p}; a batch stays in partition {pk}"
                        ),
                    ));
                }
                _ => op.partition_key = Some(pk.clone()),
            }
            if let ItemOpKind::Create(d)
            | ItemOpKind::Upsert(d)
            | ItemOpKind::Replace { doc: d, .. } = &op.kind
            {
                if let Ok(p) = def.partition_key.extract(d) {
                    if &p != pk {
                        return Err(Error::bad(
                            "partitionKey",
                            format!("operation {i}'s item is in partition {p}; a batch stays in partition {pk}"),
                        ));
                    }
                }
            }
            // Metered as it goes: the failing operation's own work (a 404's lookup, a
            // unique-key 409's write) is charged with the batch too.
            let mut own = Meter::default();
            let applied = apply::apply_item_metered(ctx, def, &op, true, &mut own);
            meter.add(&own);
            outcomes.push(applied?);
        }
        Ok(outcomes)
    })?;
    Ok(run.map_err(|error| batch_failure(failed_at, error, meter, partition)))
}
