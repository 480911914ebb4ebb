//! Item writes inside the writer's transaction. Every operation checks everything that can fail
//! (404, 409, 412, 413, 403, 400) before its first put, so a failed request leaves nothing in the
//! shared group transaction; only batches need a nested transaction.

use heed::RwTxn;
use serde_json::Value;

use super::ops::{ItemOp, ItemOpKind, ItemOutcome};
use crate::catalog::ContainerDef;
use crate::error::{Error, Result};
use crate::index;
use crate::item::{self, SystemProperties};
use crate::partition::{Epk, PartitionKey};
use crate::ru::Meter;
use crate::storage::feed_entry;
use crate::storage::keys::{self, DocHeader};
use crate::storage::Store;
use crate::ttl;
use crate::unique;

/// Limits the writer enforces.
#[derive(Debug, Clone)]
pub struct Limits {
    pub max_logical_partition_bytes: u64,
}

pub struct Ctx<'a, 't> {
    pub store: &'a Store,
    pub wtxn: &'a mut RwTxn<'t>,
    /// `_ts` of every write in this group (seconds).
    pub now: u64,
    pub limits: &'a Limits,
    /// Inside a transactional batch: how many of its writes are done. The batch takes one LSN,
    /// as the service gives it (see `storage::feed_entry`); `None` outside a batch, where each
    /// write takes its own.
    pub batch: Option<u32>,
}

/// The LSN of the next write to a partition at `current`, and its place among the writes of
/// that LSN (0 but for a batch's second and later writes, which share the batch's LSN).
fn next_lsn(ctx: &mut Ctx, current: u64) -> (u64, u32) {
    match &mut ctx.batch {
        Some(done) => {
            let seq = *done;
            *done += 1;
            if seq == 0 {
                (current + 1, 0)
            } else {
                (current, seq)
            }
        }
        None => (current + 1, 0),
    }
}

/// Where an item lives, resolved once per operation.
struct Target {
    pk: PartitionKey,
    epk: Epk,
    key: Vec<u8>,
}

/// An item as found in storage.
struct Existing {
    header: DocHeader,
    /// Stored value length (header + JSON).
    len: usize,
    json: Vec<u8>,
    /// Written with the indexing directive `Exclude`: it has no index entries.
    not_indexed: bool,
}

pub fn apply_item(ctx: &mut Ctx, def: &mut ContainerDef, op: &ItemOp) -> Result<ItemOutcome> {
    apply_item_metered(ctx, def, op, true, &mut Meter::default())
}

/// [`apply_item`] recording its work in `meter` as it goes, so a refused operation is charged
/// what it did: the lookup of a missing item (404), the read of the item it conflicts with
/// (409) or whose etag differs (412), the write a unique key refuses (409).
pub fn apply_item_metered(
    ctx: &mut Ctx,
    def: &mut ContainerDef,
    op: &ItemOp,
    index: bool,
    meter: &mut Meter,
) -> Result<ItemOutcome> {
    // A stale etag is found by reading the item: that read is the 412's charge.
    let etag_matches = |def: &ContainerDef, e: &Existing, meter: &mut Meter| {
        check_etag(def, op, e).inspect_err(|_| meter.read_item(e.len))
    };
    match &op.kind {
        ItemOpKind::Create(doc) => {
            let t = target_of_doc(def, doc, op.partition_key.as_ref())?;
            if let Some(e) = live(ctx, def, &t)? {
                meter.read_item(e.len);
                return Err(Error::Conflict {
                    id: item::id_of(doc)?.to_owned(),
                });
            }
            let old = stored(ctx, def, &t)?; // an expired item not yet purged is overwritten
            write(ctx, def, &t, doc.clone(), old, meter, 201, index)
        }
        ItemOpKind::Upsert(doc) => {
            let t = target_of_doc(def, doc, op.partition_key.as_ref())?;
            let existing = live(ctx, def, &t)?;
            // An if-match holds an upsert to the item it finds; with none found the upsert
            // creates, as on the service (Java SDK PR #43717: "Create semantics when the
            // document doesn't exist"; azure-cosmos-dotnet-v3 issue #1698: 201 on the emulator).
            if let Some(e) = &existing {
                etag_matches(def, e, meter)?;
            }
            let status = if existing.is_some() { 200 } else { 201 };
            let old = if existing.is_some() {
                existing
            } else {
                stored(ctx, def, &t)?
            };
            write(ctx, def, &t, doc.clone(), old, meter, status, index)
        }
        ItemOpKind::Replace { id, doc } => {
            let t = target_of_doc(def, doc, op.partition_key.as_ref())?;
            let doc_id = item::id_of(doc)?;
            if doc_id != id {
                // A body with another id renames the item within its logical partition, as
                // the service does (azure-cosmos-dotnet-v3 PR #1375: "ReplaceItemAsync allows
                // updating the id value. Only the PartitionKeyValue is required to be the
                // same"): the old item goes, the new id must be free.
                let from = target_of_id(def, id, Some(&t.pk))?;
                let existing = live(ctx, def, &from)?.ok_or_else(|| not_found(id, &from.pk))?;
                etag_matches(def, &existing, meter)?;
                if let Some(e) = live(ctx, def, &t)? {
                    meter.read_item(e.len);
                    return Err(Error::Conflict {
                        id: doc_id.to_owned(),
                    });
                }
                let terms = indexed_terms(&existing, def)?.len() as u64;
                remove(ctx, def, &from, &existing, false)?;
                meter.write_item(existing.len, terms);
                let old = stored(ctx, def, &t)?; // an expired item not yet purged
                return write(ctx, def, &t, doc.clone(), old, meter, 200, index);
            }
            let existing = live(ctx, def, &t)?.ok_or_else(|| not_found(id, &t.pk))?;
            etag_matches(def, &existing, meter)?;
            write(ctx, def, &t, doc.clone(), Some(existing), meter, 200, index)
        }
        ItemOpKind::Patch {
            id,
            operations,
            condition,
        } => {
            let t = target_of_id(def, id, op.partition_key.as_ref())?;
            let existing = live(ctx, def, &t)?.ok_or_else(|| not_found(id, &t.pk))?;
            etag_matches(def, &existing, meter)?;
            meter.read_item(existing.len);
            let mut doc: Value = serde_json::from_slice(&existing.json)
                .map_err(|e| Error::Corrupt(e.to_string()))?;
            if let Some(condition) = condition {
                if !condition_holds(&doc, condition)? {
                    return Err(Error::PreconditionFailed {
                        expected: "an item that satisfies it".into(),
                        current: format!(
                            "{} (the item '{id}' does not satisfy the patch condition \
                             '{condition}')",
                            item::etag(def.rid, existing.header.lsn)
                        ),
                    });
                }
            }
            // Neither the id nor any partition key path may be patched.
            let mut fixed = vec!["/id"];
            fixed.extend(def.partition_key.paths.iter().map(String::as_str));
            item::patch::apply(&mut doc, operations, &fixed)?;
            // A patch names no directive: the item stays as its last write left it.
            let index = !existing.not_indexed;
            write(ctx, def, &t, doc, Some(existing), meter, 200, index)
        }
        ItemOpKind::Delete { id } => {
            let t = target_of_id(def, id, op.partition_key.as_ref())?;
            let existing = live(ctx, def, &t)?.ok_or_else(|| not_found(id, &t.pk))?;
            etag_matches(def, &existing, meter)?;
            let terms = indexed_terms(&existing, def)?.len() as u64;
            let partition = remove(ctx, def, &t, &existing, false)?;
            meter.write_item(existing.len, terms);
            Ok(ItemOutcome {
                status: 204,
                body: None,
                etag: None,
                meter: *meter,
                partition,
            })
        }
        ItemOpKind::Read { id } => {
            let t = target_of_id(def, id, op.partition_key.as_ref())?;
            let existing = live(ctx, def, &t)?.ok_or_else(|| not_found(id, &t.pk))?;
            meter.read_item(existing.len);
            Ok(ItemOutcome {
                status: 200,
                etag: Some(item::etag(def.rid, existing.header.lsn)),
                body: Some(existing.json),
                meter: *meter,
                partition: def.partitions.owner(&t.epk).id,
            })
        }
    }
}

/// Deletes the item stored at `key` if its TTL has passed (the purge's unit of work).
/// Returns whether it was removed.
pub fn purge_if_expired(ctx: &mut Ctx, def: &mut ContainerDef, key: &[u8]) -> Result<bool> {
    let Some(v) = ctx.store.docs.get(ctx.wtxn, key)? else {
        return Ok(false);
    };
    let (header, json) = DocHeader::read(key, v, &def.full_id())?;
    if !ttl::is_expired(&header, def.default_ttl, ctx.now) {
        return Ok(false);
    }
    let existing = Existing {
        header,
        len: v.len(),
        json: json.to_vec(),
        not_indexed: DocHeader::is_not_indexed(v),
    };
    let epk = keys::epk_of(key);
    let pk = ctx
        .store
        .lps
        .get(ctx.wtxn, &keys::partition_prefix(def.rid, &epk))?
        .and_then(|v| keys::decode_lp_stats(v).2)
        .map(|j| PartitionKey::from_json(&j, "pk"))
        .transpose()?
        .unwrap_or(PartitionKey::None);
    let t = Target {
        pk,
        epk,
        key: key.to_vec(),
    };
    remove(ctx, def, &t, &existing, true)?;
    Ok(true)
}

/// The index terms a stored item has: none when it was written not to be indexed.
fn indexed_terms(e: &Existing, def: &ContainerDef) -> Result<Vec<Vec<u8>>> {
    if e.not_indexed {
        return Ok(Vec::new());
    }
    Ok(index::terms(&parse(&e.json)?, &def.policy()))
}

fn parse(json: &[u8]) -> Result<Value> {
    serde_json::from_slice(json).map_err(|e| Error::Corrupt(e.to_string()))
}

/// Applies the difference between an item's old and new index terms (both sorted); returns the
/// number of entries removed and added, which is what the write is charged for.
fn update_index(
    ctx: &mut Ctx,
    rid: u32,
    pp: u32,
    t: &Target,
    old: &[Vec<u8>],
    new: &[Vec<u8>],
) -> Result<u64> {
    let id_key = &t.key[20..];
    let mut touched = 0;
    let mut counts = std::collections::BTreeMap::new();
    for term in old.iter().filter(|x| new.binary_search(x).is_err()) {
        ctx.store
            .index
            .delete(ctx.wtxn, &index::entry_key(rid, pp, term, &t.epk, id_key))?;
        *counts.entry(index::term_path(term)).or_insert(0) -= 1;
        index::terms::adjust(ctx.store, ctx.wtxn, rid, pp, term, -1)?;
        index::terms::adjust_logical(ctx.store, ctx.wtxn, rid, &t.epk, term, -1)?;
        touched += 1;
    }
    for term in new.iter().filter(|x| old.binary_search(x).is_err()) {
        ctx.store.index.put(
            ctx.wtxn,
            &index::entry_key(rid, pp, term, &t.epk, id_key),
            id_key,
        )?;
        *counts.entry(index::term_path(term)).or_insert(0) += 1;
        index::terms::adjust(ctx.store, ctx.wtxn, rid, pp, term, 1)?;
        index::terms::adjust_logical(ctx.store, ctx.wtxn, rid, &t.epk, term, 1)?;
        touched += 1;
    }
    index::adjust_counts(ctx.store, ctx.wtxn, rid, pp, &counts)?;
    index::adjust_lp_counts(ctx.store, ctx.wtxn, rid, &t.epk, &counts)?;
    Ok(touched)
}

pub fn not_found(id: &str, pk: &PartitionKey) -> Error {
    Error::NotFound {
        what: format!("item '{id}' in partition {pk}"),
    }
}

fn target_of_doc(def: &ContainerDef, doc: &Value, named: Option<&PartitionKey>) -> Result<Target> {
    let id = item::id_of(doc)?;
    let pk = def.partition_key.extract(doc)?;
    if let Some(named) = named {
        let named = def.partition_key.full_key(named.clone())?;
        if named != pk {
            return Err(Error::PartitionKeyMismatch(format!(
                "the partition key {named} named in the request differs from the item's {pk} (at {})",
                def.partition_key.paths.join(", ")
            )));
        }
    }
    let epk = def.partition_key.epk(&pk);
    Ok(Target {
        epk,
        key: keys::doc_key(def.rid, &epk, id),
        pk,
    })
}

fn target_of_id(def: &ContainerDef, id: &str, named: Option<&PartitionKey>) -> Result<Target> {
    item::validate_id(id)?;
    let pk = def.partition_key.full_key(named.cloned().ok_or_else(|| {
        Error::bad("partitionKey", "this operation needs a partition key value")
    })?)?;
    let epk = def.partition_key.epk(&pk);
    Ok(Target {
        epk,
        key: keys::doc_key(def.rid, &epk, id),
        pk,
    })
}

/// The stored item, expired or not.
fn stored(ctx: &Ctx, def: &ContainerDef, t: &Target) -> Result<Option<Existing>> {
    let Some(v) = ctx.store.docs.get(ctx.wtxn, &t.key)? else {
        return Ok(None);
    };
    // Verified: a write must not carry damaged bytes into a new version (a patch would seal
    // them under a fresh checksum).
    let (header, json) = DocHeader::read(&t.key, v, &def.full_id())?;
    Ok(Some(Existing {
        header,
        len: v.len(),
        json: json.to_vec(),
        not_indexed: DocHeader::is_not_indexed(v),
    }))
}

/// Whether `doc` matches a patch's filter predicate (`FROM c WHERE ...`, Cosmos DB's
/// `filterPredicate`), evaluated as `SELECT VALUE 1 <condition>` over that one item.
fn condition_holds(doc: &Value, condition: &str) -> Result<bool> {
    let bad = |why: String| {
        Error::bad(
            "condition",
            format!("the patch condition '{condition}' {why} (e.g. \"FROM c WHERE c.x = 1\")"),
        )
    };
    if !condition
        .trim_start()
        .get(..5)
        .is_some_and(|from| from.eq_ignore_ascii_case("from "))
    {
        return Err(bad("must start with FROM".into()));
    }
    let query = crate::sql::parse(&format!("SELECT VALUE 1 {condition}"))
        .map_err(|e| bad(format!("is not valid: {e}")))?;
    let rows = crate::sql::execute(&query, &Default::default(), [doc.clone()])
        .map_err(|e| bad(format!("cannot be evaluated: {e}")))?;
    Ok(!rows.is_empty())
}

/// The stored item unless its TTL has passed.
fn live(ctx: &Ctx, def: &ContainerDef, t: &Target) -> Result<Option<Existing>> {
    Ok(stored(ctx, def, t)?.filter(|e| !ttl::is_expired(&e.header, def.default_ttl, ctx.now)))
}

fn check_etag(def: &ContainerDef, op: &ItemOp, existing: &Existing) -> Result<()> {
    let current = || item::etag(def.rid, existing.header.lsn);
    if let Some(expected) = &op.if_match {
        if *expected != current() && expected != "*" {
            return Err(Error::PreconditionFailed {
                expected: expected.clone(),
                current: current(),
            });
        }
    }
    if let Some(not) = &op.if_none_match {
        if *not == current() || not == "*" {
            return Err(Error::PreconditionFailed {
                expected: format!("an etag other than {not}"),
                current: current(),
            });
        }
    }
    Ok(())
}

/// Stores `doc` at `t` (replacing `old`), with a new LSN, feed entry and counters.
#[allow(clippy::too_many_arguments)]
fn write(
    ctx: &mut Ctx,
    def: &mut ContainerDef,
    t: &Target,
    doc: Value,
    old: Option<Existing>,
    meter: &mut Meter,
    status: u16,
    index: bool,
) -> Result<ItemOutcome> {
    let ttl = item::ttl_of(&doc)?;
    let rid = def.rid;
    let pp = def.partitions.owner(&t.epk);
    let pp_id = pp.id;
    let (lsn, seq) = next_lsn(ctx, pp.lsn);
    let etag = item::etag(rid, lsn);
    let (item_rid, self_link) = item::item_links(&def.resource_bytes(), &def.self_link(), &t.key);
    let sys = SystemProperties {
        rid: item_rid,
        self_link,
        etag: etag.clone(),
        ts: ctx.now,
        lsn,
    };
    let (sealed, json) = item::seal(doc, &sys)?;
    let policy = def.policy();
    let new_terms = if index {
        index::terms(&sealed, &policy)
    } else {
        Vec::new()
    };
    // The old version, parsed once for its index terms and unique-key entries.
    let old_doc = old.as_ref().map(|o| parse(&o.json)).transpose()?;
    let old_terms = match (&old_doc, &old) {
        (Some(d), Some(o)) if !o.not_indexed => index::terms(d, &policy),
        _ => Vec::new(),
    };
    let header = DocHeader {
        lsn,
        ts: ctx.now,
        ttl,
    };
    let value = if index {
        header.encode(&json)
    } else {
        header.encode_not_indexed(&json)
    };

    let lp_key = keys::partition_prefix(rid, &t.epk);
    let (lp_bytes, lp_items) = lp_stats(ctx, &lp_key)?;
    let old_len = old.as_ref().map_or(0, |o| o.len as u64);
    let new_lp_bytes = lp_bytes - old_len.min(lp_bytes) + value.len() as u64;
    if new_lp_bytes > ctx.limits.max_logical_partition_bytes && new_lp_bytes > lp_bytes {
        return Err(Error::PartitionFull {
            partition_key: t.pk.to_string(),
            size: new_lp_bytes,
            limit: ctx.limits.max_logical_partition_bytes,
        });
    }

    let old_unique = match &old_doc {
        Some(d) => unique::entries(def, &t.epk, d),
        None => Vec::new(),
    };
    let new_unique = unique::entries(def, &t.epk, &sealed);
    if let Err(e) = check_unique(ctx, def, t, &old_unique, &new_unique) {
        // Refused once the write was prepared: charged as the write it would have been, as
        // Cosmos DB charges a unique-key 409 (RU.md, "Failed requests").
        let terms = new_terms.len() + new_unique.len();
        meter.write_item(value.len(), terms as u64);
        return Err(e);
    }

    // Past this point nothing fails but storage itself.
    ctx.store.docs.put(ctx.wtxn, &t.key, &value)?;
    let unique_touched = update_unique(ctx, t, &old_unique, &new_unique)?;
    if let Some(o) = &old {
        let old_pp = pp_id; // an item never changes physical partition between writes
        let at = (rid, old_pp, o.header.lsn);
        feed_entry::delete(ctx.store.feed, ctx.wtxn, at, &t.key[4..])?;
        if let Some(at) = ttl::expires_at(o.header.ts, o.header.ttl, def.default_ttl) {
            ctx.store
                .expiry
                .delete(ctx.wtxn, &keys::expiry_key(rid, at, &t.key))?;
        }
    }
    ctx.store.feed.put(
        ctx.wtxn,
        &feed_entry::key(rid, pp_id, lsn, seq),
        &t.key[4..],
    )?;
    let terms_touched = update_index(ctx, rid, pp_id, t, &old_terms, &new_terms)?;
    if let Some(at) = ttl::expires_at(ctx.now, ttl, def.default_ttl) {
        ctx.store
            .expiry
            .put(ctx.wtxn, &keys::expiry_key(rid, at, &t.key), &[])?;
    }
    if def.change_feed_retention.is_some() {
        let kind = if old.is_some() { "replace" } else { "create" };
        let mut record = format!(
            "{{\"metadata\":{{\"operationType\":\"{kind}\",\"lsn\":{lsn},\"crts\":{},\"timeToLiveExpired\":false",
            ctx.now
        );
        if let Some(o) = &old {
            record.push_str(&format!(",\"previousImageLSN\":{}", o.header.lsn));
        }
        record.push_str("},\"current\":");
        let mut record = record.into_bytes();
        record.extend_from_slice(&json);
        record.push(b'}');
        ctx.store.log.put(
            ctx.wtxn,
            &feed_entry::key(rid, pp_id, lsn, seq),
            &keys::log_value(&t.epk, ctx.now, &record),
        )?;
    }
    let new_items = lp_items + u64::from(old.is_none());
    put_lp_stats(ctx, &lp_key, new_lp_bytes, new_items, &t.pk)?;
    let pp = def.partitions.owner_mut(&t.epk);
    pp.lsn = lsn;
    pp.bytes = (pp.bytes + value.len() as u64).saturating_sub(old_len);
    pp.items += u64::from(old.is_none());

    meter.write_item(value.len(), terms_touched + unique_touched);
    Ok(ItemOutcome {
        status,
        body: Some(json),
        etag: Some(etag),
        meter: *meter,
        partition: pp_id,
    })
}

/// Deletes the item at `t`; returns the physical partition it was in. `expired` marks a TTL purge
/// in the all-versions change feed.
fn remove(
    ctx: &mut Ctx,
    def: &mut ContainerDef,
    t: &Target,
    old: &Existing,
    expired: bool,
) -> Result<u32> {
    let rid = def.rid;
    let current = def.partitions.owner(&t.epk).lsn;
    let (lsn, seq) = next_lsn(ctx, current);
    let pp = def.partitions.owner_mut(&t.epk);
    let pp_id = pp.id;
    pp.lsn = lsn;
    pp.bytes = pp.bytes.saturating_sub(old.len as u64);
    pp.items = pp.items.saturating_sub(1);
    ctx.store.docs.delete(ctx.wtxn, &t.key)?;
    feed_entry::delete(
        ctx.store.feed,
        ctx.wtxn,
        (rid, pp_id, old.header.lsn),
        &t.key[4..],
    )?;
    let old_doc = parse(&old.json)?;
    let old_terms = if old.not_indexed {
        Vec::new()
    } else {
        index::terms(&old_doc, &def.policy())
    };
    update_index(ctx, rid, pp_id, t, &old_terms, &[])?;
    update_unique(ctx, t, &unique::entries(def, &t.epk, &old_doc), &[])?;
    if let Some(at) = ttl::expires_at(old.header.ts, old.header.ttl, def.default_ttl) {
        ctx.store
            .expiry
            .delete(ctx.wtxn, &keys::expiry_key(rid, at, &t.key))?;
    }
    if def.change_feed_retention.is_some() {
        let id = serde_json::from_slice::<Value>(&old.json)
            .ok()
            .and_then(|d| d.get("id").cloned())
            .unwrap_or(Value::Null);
        let record = serde_json::json!({
            "metadata": {
                "operationType": "delete", "lsn": lsn, "crts": ctx.now,
                "previousImageLSN": old.header.lsn, "timeToLiveExpired": expired,
                "id": id, "partitionKey": t.pk.to_json(),
            }
        });
        let bytes = serde_json::to_vec(&record).map_err(|e| Error::Corrupt(e.to_string()))?;
        ctx.store.log.put(
            ctx.wtxn,
            &feed_entry::key(rid, pp_id, lsn, seq),
            &keys::log_value(&t.epk, ctx.now, &bytes),
        )?;
    }
    let lp_key = keys::partition_prefix(rid, &t.epk);
    let (bytes, items) = lp_stats(ctx, &lp_key)?;
    if items <= 1 {
        ctx.store.lps.delete(ctx.wtxn, &lp_key)?;
    } else {
        put_lp_stats(
            ctx,
            &lp_key,
            bytes.saturating_sub(old.len as u64),
            items - 1,
            &t.pk,
        )?;
    }
    Ok(pp_id)
}

fn lp_stats(ctx: &Ctx, lp_key: &[u8]) -> Result<(u64, u64)> {
    Ok(match ctx.store.lps.get(ctx.wtxn, lp_key)? {
        Some(v) if v.len() >= 16 => (
            u64::from_be_bytes(v[..8].try_into().expect("8")),
            u64::from_be_bytes(v[8..16].try_into().expect("8")),
        ),
        _ => (0, 0),
    })
}

fn put_lp_stats(
    ctx: &mut Ctx,
    lp_key: &[u8],
    bytes: u64,
    items: u64,
    pk: &PartitionKey,
) -> Result<()> {
    let mut v = Vec::with_capacity(32);
    v.extend_from_slice(&bytes.to_be_bytes());
    v.extend_from_slice(&items.to_be_bytes());
    if let Some(j) = pk.to_json() {
        serde_json::to_writer(&mut v, &j).map_err(|e| Error::Corrupt(e.to_string()))?;
    }
    ctx.store.lps.put(ctx.wtxn, lp_key, &v)?;
    Ok(())
}

/// 409 if another live item of the logical partition holds one of the new entries. An item whose
/// TTL passed (not purged yet) no longer holds anything.
fn check_unique(
    ctx: &Ctx,
    def: &ContainerDef,
    t: &Target,
    old: &[unique::Entry],
    new: &[unique::Entry],
) -> Result<()> {
    let id_key = &t.key[20..];
    for e in new.iter().filter(|e| old.binary_search(e).is_err()) {
        let Some(holder) = ctx.store.unique.get(ctx.wtxn, &e.key)? else {
            continue;
        };
        if holder == id_key {
            continue;
        }
        let mut holder_key = t.key[..20].to_vec();
        holder_key.extend_from_slice(holder);
        let alive = match ctx.store.docs.get(ctx.wtxn, &holder_key)? {
            Some(v) => DocHeader::decode(v)
                .is_some_and(|(h, _)| !ttl::is_expired(&h, def.default_ttl, ctx.now)),
            None => false,
        };
        if alive {
            return Err(Error::UniqueKey {
                paths: unique::describe(def, e.number),
            });
        }
    }
    Ok(())
}

/// Replaces the item's unique-key entries; returns how many changed (charged as index terms).
fn update_unique(
    ctx: &mut Ctx,
    t: &Target,
    old: &[unique::Entry],
    new: &[unique::Entry],
) -> Result<u64> {
    let id_key = &t.key[20..];
    let mut touched = 0;
    for e in old.iter().filter(|e| new.binary_search(e).is_err()) {
        // Only if still ours: a purged holder's entry may since belong to another item.
        if ctx.store.unique.get(ctx.wtxn, &e.key)? == Some(id_key) {
            ctx.store.unique.delete(ctx.wtxn, &e.key)?;
        }
        touched += 1;
    }
    for e in new.iter().filter(|e| old.binary_search(e).is_err()) {
        ctx.store.unique.put(ctx.wtxn, &e.key, id_key)?;
        touched += 1;
    }
    Ok(touched)
}
