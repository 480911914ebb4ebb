//! What a script sees: the logical partition it runs in, like `getContext().getCollection()`.

use std::time::Instant;

use serde_json::Value;

use super::ScriptBudget;
use crate::catalog::ContainerDef;
use crate::error::{Error, Result};
use crate::item::PatchOperation;
use crate::partition::PartitionKey;
use crate::ru::Meter;
use crate::storage::keys::{self, DocHeader};
use crate::ttl;
use crate::writer::apply::{apply_item, Ctx};
use crate::writer::ops::{ItemOp, ItemOpKind};

pub struct ScriptContext<'c, 'a, 't> {
    pub(crate) ctx: &'c mut Ctx<'a, 't>,
    pub(crate) def: &'c mut ContainerDef,
    pub(crate) partition_key: PartitionKey,
    pub(crate) meter: Meter,
    pub(crate) budget: ScriptBudget,
    pub(crate) started: Instant,
    pub(crate) name: String,
    /// What a JavaScript procedure wrote with `console.log`.
    pub(crate) log: String,
    /// In a post-trigger: the item its write changed, as it was before that write. The
    /// trigger's queries and read feeds see that version (see [`Before`]).
    pub(crate) before: Option<Before>,
    /// In a post-trigger: the request body as the pre-triggers left it, which the service hands
    /// a post-trigger as `getContext().getRequest().getBody()` (azure-cosmos 4.17.1's
    /// test_trigger_functionality reads it there).
    pub(crate) request: Option<Value>,
}

/// The triggering item as it was before its write, for a post-trigger's queries. Cosmos DB's
/// own post-trigger in `004_*` (`truncateFeed`, run on the service by its authors) counts
/// "+ 1 because the query didn't count the newly inserted doc": a post-trigger's queries do not
/// see the write that triggered it, while point reads and the trigger's own writes are seen.
pub(crate) struct Before {
    pub id: String,
    /// `None` when the write created the item.
    pub doc: Option<Value>,
}

impl<'c, 'a, 't> ScriptContext<'c, 'a, 't> {
    /// The logical partition this script is confined to.
    pub fn partition_key(&self) -> &PartitionKey {
        &self.partition_key
    }

    /// Stops the script (and so rolls it back) once it overran its time or RU budget.
    pub(crate) fn check_budget(&self) -> Result<()> {
        let elapsed = self.started.elapsed();
        let ru = self.meter.charge();
        if elapsed > self.budget.max_duration || ru > self.budget.max_request_units {
            return Err(Error::RequestTimeout(format!(
                "script '{}' exceeded its budget ({:?}, {} RU) after {elapsed:?} and {ru} RU; everything it did was rolled back",
                self.name, self.budget.max_duration, self.budget.max_request_units
            )));
        }
        Ok(())
    }

    fn op(&mut self, kind: ItemOpKind, if_match: Option<String>) -> Result<Option<Value>> {
        self.check_budget()?;
        if let ItemOpKind::Create(d) | ItemOpKind::Upsert(d) | ItemOpKind::Replace { doc: d, .. } =
            &kind
        {
            let pk = self.def.partition_key.extract(d)?;
            if pk != self.partition_key {
                return Err(Error::bad(
                    "partitionKey",
                    format!(
                        "script '{}' runs in logical partition {} and cannot write an item of partition {pk}",
                        self.name, self.partition_key
                    ),
                ));
            }
        }
        let op = ItemOp {
            kind,
            partition_key: Some(self.partition_key.clone()),
            if_match,
            if_none_match: None,
        };
        let out = apply_item(self.ctx, self.def, &op)?;
        self.meter.add(&out.meter);
        out.body
            .map(|b| serde_json::from_slice(&b).map_err(|e| Error::Corrupt(e.to_string())))
            .transpose()
    }

    /// Reads an item of this partition; `None` when it does not exist.
    pub fn read_item(&mut self, id: &str) -> Result<Option<Value>> {
        match self.op(ItemOpKind::Read { id: id.to_owned() }, None) {
            Err(Error::NotFound { .. }) => Ok(None),
            other => other,
        }
    }

    pub fn create_item(&mut self, doc: Value) -> Result<Value> {
        self.op(ItemOpKind::Create(doc), None)
            .map(Option::unwrap_or_default)
    }

    pub fn upsert_item(&mut self, doc: Value) -> Result<Value> {
        self.op(ItemOpKind::Upsert(doc), None)
            .map(Option::unwrap_or_default)
    }

    /// Replaces item `id`; with `if_match`, only if its etag is still that one.
    pub fn replace_item(
        &mut self,
        id: &str,
        doc: Value,
        if_match: Option<String>,
    ) -> Result<Value> {
        self.op(
            ItemOpKind::Replace {
                id: id.to_owned(),
                doc,
            },
            if_match,
        )
        .map(Option::unwrap_or_default)
    }

    pub fn patch_item(&mut self, id: &str, operations: Vec<PatchOperation>) -> Result<Value> {
        self.op(
            ItemOpKind::Patch {
                id: id.to_owned(),
                operations,
                condition: None,
            },
            None,
        )
        .map(Option::unwrap_or_default)
    }

    pub fn delete_item(&mut self, id: &str) -> Result<()> {
        self.op(ItemOpKind::Delete { id: id.to_owned() }, None)
            .map(|_| ())
    }

    /// Every live item of this logical partition, in id order, as this transaction sees them.
    pub fn read_all_items(&mut self) -> Result<Vec<Value>> {
        self.check_budget()?;
        let prefix = keys::partition_prefix(
            self.def.rid,
            &self.def.partition_key.epk(&self.partition_key),
        );
        let mut out = Vec::new();
        for entry in self.ctx.store.docs.prefix_iter(self.ctx.wtxn, &prefix)? {
            let (_, v) = entry?;
            let (h, json) =
                DocHeader::decode(v).ok_or_else(|| Error::Corrupt("short item header".into()))?;
            if ttl::is_expired(&h, self.def.default_ttl, self.ctx.now) {
                continue;
            }
            self.meter.scan_item(v.len());
            let doc: Value =
                serde_json::from_slice(json).map_err(|e| Error::Corrupt(e.to_string()))?;
            if !self.is_before_write(&doc) {
                out.push(doc);
            }
        }
        if let Some(Before { doc: Some(old), .. }) = &self.before {
            // Before the write the item was there (replaced, upserted or deleted): in id order.
            let id = old.get("id").and_then(Value::as_str).unwrap_or_default();
            let at = out.partition_point(|d| d.get("id").and_then(Value::as_str) < Some(id));
            out.insert(at, old.clone());
        }
        self.meter.queries += 1;
        self.check_budget()?;
        Ok(out)
    }

    /// Whether `doc` is the triggering item as its write left it, which a post-trigger's queries
    /// do not see ([`Before`]).
    fn is_before_write(&self, doc: &Value) -> bool {
        self.before
            .as_ref()
            .is_some_and(|b| doc.get("id").and_then(Value::as_str) == Some(b.id.as_str()))
    }

    /// Runs a query over this logical partition, as this transaction sees it (the scripts'
    /// `queryDocuments`).
    pub fn query(&mut self, sql: &str, params: &[(&str, Value)]) -> Result<Vec<Value>> {
        let query = crate::sql::parse(sql)?;
        let query = crate::sql::computed::resolve(&self.def.computed()?, &query).unwrap_or(query);
        let params: crate::sql::Params = params
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        crate::sql::check_params(&query, &params)?;
        let items = self.read_all_items()?;
        // The script's deadline stops the evaluator too (a JOIN that multiplies the rows).
        let deadline = self.started + self.budget.max_duration;
        let rows = crate::sql::bounds::with_deadline(deadline, || {
            crate::sql::execute(&query, &params, items)
        })?;
        self.check_budget()?;
        Ok(rows)
    }

    /// RU spent so far.
    pub fn request_charge(&self) -> f64 {
        self.meter.charge()
    }
}
