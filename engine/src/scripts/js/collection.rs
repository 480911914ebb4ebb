//! The collection operations a script queues (`createDocument`, `queryDocuments`, …), performed
//! on the [`ScriptContext`] of its transaction's logical partition.

use std::collections::HashMap;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::scripts::ScriptContext;

/// One operation as `prelude.js` queues it.
pub(super) struct Op {
    pub id: u64,
    kind: String,
    args: Vec<Value>,
    options: Value,
    /// Whether the script gave a callback (without one, nothing receives the result).
    pub cb: bool,
}

impl Op {
    /// The operations of a `takeOps()` list (`prelude.js`): `{id, kind, args, options, cb}`
    /// each. Their parts are moved out of the list, not copied (the documents in `args`).
    pub fn list(queued: Value) -> std::result::Result<Vec<Op>, String> {
        let Value::Array(items) = queued else {
            return Err("the queued operations are not a list".into());
        };
        items.into_iter().map(Op::of).collect()
    }

    pub fn new(id: u64, kind: String, args: Vec<Value>, options: Value, cb: bool) -> Op {
        Op {
            id,
            kind,
            args,
            options,
            cb,
        }
    }

    fn of(op: Value) -> std::result::Result<Op, String> {
        let Value::Object(mut op) = op else {
            return Err("a queued operation is not an object".into());
        };
        let id = op.get("id").and_then(Value::as_u64);
        let cb = op.get("cb").map_or(Some(false), Value::as_bool);
        let (Some(id), Some(cb)) = (id, cb) else {
            return Err("a queued operation has no id".into());
        };
        let (Some(Value::String(kind)), Some(Value::Array(args))) =
            (op.remove("kind"), op.remove("args"))
        else {
            return Err(format!("queued operation {id} has no kind or arguments"));
        };
        let options = op.remove("options").unwrap_or(Value::Null);
        Ok(Op {
            id,
            kind,
            args,
            options,
            cb,
        })
    }
}

/// What an operation answers: its resource, and for a feed (`readDocuments`,
/// `queryDocuments`) the continuation of the next page when there is one (the callback's
/// `responseOptions.continuation`).
pub(super) struct Done {
    pub resource: Value,
    pub continuation: Option<String>,
}

/// One queued collection operation, on the transaction's logical partition.
pub(super) fn perform(
    c: &mut ScriptContext<'_, '_, '_>,
    op: Op,
    known: &mut HashMap<String, String>,
) -> Result<Done> {
    // Each argument is taken once, moved (a document is not copied).
    let mut args = op.args;
    let mut arg = |i: usize| args.get_mut(i).map(std::mem::take).unwrap_or(Value::Null);
    let if_match = op
        .options
        .get("accessCondition")
        .filter(|a| a.get("type").and_then(Value::as_str) == Some("IfMatch"))
        .and_then(|a| a.get("condition"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    let out = match op.kind.as_str() {
        "read" => {
            let id = resolve(c, &arg(0), known)?;
            c.read_item(&id)?.ok_or_else(|| Error::NotFound {
                what: format!("item '{id}'"),
            })?
        }
        "readAll" => {
            let page = Page::of(&op.options)?;
            let items = c.read_all_items()?;
            return Ok(page.cut(items, known));
        }
        "create" => c.create_item(with_id(arg(1), &op.options)?)?,
        "upsert" => c.upsert_item(with_id(arg(1), &op.options)?)?,
        "replace" => {
            let doc = arg(1);
            let id = match doc.get("id").and_then(Value::as_str) {
                Some(id) => id.to_owned(),
                None => resolve(c, &arg(0), known)?,
            };
            c.replace_item(&id, doc, if_match)?
        }
        "delete" => {
            let id = resolve(c, &arg(0), known)?;
            c.delete_item(&id)?;
            Value::Null
        }
        "query" => {
            let spec = arg(1);
            let sql = spec.get("query").and_then(Value::as_str).unwrap_or("");
            let params: Vec<(String, Value)> = spec
                .get("parameters")
                .and_then(Value::as_array)
                .map(|ps| {
                    ps.iter()
                        .filter_map(|p| {
                            Some((p.get("name")?.as_str()?.to_owned(), p.get("value")?.clone()))
                        })
                        .collect()
                })
                .unwrap_or_default();
            let refs: Vec<(&str, Value)> = params
                .iter()
                .map(|(k, v)| (k.as_str(), v.clone()))
                .collect();
            let page = Page::of(&op.options)?;
            let rows = c.query(sql, &refs)?;
            return Ok(page.cut(rows, known));
        }
        other => {
            return Err(Error::bad(
                "script",
                format!("unknown collection operation '{other}'"),
            ))
        }
    };
    remember(&out, known);
    Ok(Done {
        resource: out,
        continuation: None,
    })
}

/// The page a feed operation asked for: `options.pageSize` items (all when it is absent or not
/// positive) from where `options.continuation` says, as the server-side API's `FeedOptions`.
///
/// The continuation is the number of items already handed out: each page runs the query again
/// over the partition as the transaction sees it now (with the script's own writes) and is
/// charged as a query, as each page of a query is on the service. A token stays valid across
/// calls, so a procedure can return it for its caller to call again from there (the
/// continuation pattern of Cosmos DB's bulk samples).
struct Page {
    skip: usize,
    size: Option<usize>,
}

impl Page {
    fn of(options: &Value) -> Result<Page> {
        let size = options
            .get("pageSize")
            .and_then(Value::as_f64)
            .filter(|n| *n >= 1.0)
            .map(|n| n as usize);
        let skip = match options.get("continuation") {
            None | Some(Value::Null) => 0,
            Some(Value::String(t)) if t.is_empty() => 0,
            Some(Value::String(t)) => t.parse().map_err(|_| {
                Error::bad(
                    "continuation",
                    format!("'{t}' is not a continuation this collection handed out"),
                )
            })?,
            Some(other) => {
                return Err(Error::bad(
                    "continuation",
                    format!("a continuation is a string, not {other}"),
                ))
            }
        };
        Ok(Page { skip, size })
    }

    fn cut(&self, rows: Vec<Value>, known: &mut HashMap<String, String>) -> Done {
        let total = rows.len();
        let end = match self.size {
            Some(n) => self.skip.saturating_add(n).min(total),
            None => total,
        };
        let page: Vec<Value> = rows
            .into_iter()
            .skip(self.skip)
            .take(end.saturating_sub(self.skip))
            .collect();
        let resource = Value::Array(page);
        remember(&resource, known);
        Done {
            resource,
            continuation: (end < total).then(|| end.to_string()),
        }
    }
}

/// Records `_rid → id` of every item handed to the script, so the `_self` links it passes back
/// (`replaceDocument(doc._self, …)`) name their items.
fn remember(v: &Value, known: &mut HashMap<String, String>) {
    match v {
        Value::Array(items) => items.iter().for_each(|i| remember(i, known)),
        Value::Object(o) => {
            if let (Some(Value::String(rid)), Some(Value::String(id))) =
                (o.get("_rid"), o.get("id"))
            {
                known.insert(rid.clone(), id.clone());
            }
        }
        _ => {}
    }
}

/// The item id a document link names: `_self` (`docs/{rid}/`, of an item the script was given)
/// or the alt link `dbs/{db}/colls/{container}/docs/{id}`.
fn resolve(
    c: &mut ScriptContext<'_, '_, '_>,
    link: &Value,
    known: &HashMap<String, String>,
) -> Result<String> {
    let link = link
        .as_str()
        .ok_or_else(|| Error::bad("link", "a document link is a string"))?;
    let last = link.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    if let Some(id) = known.get(last) {
        return Ok(id.clone());
    }
    let alt = format!("dbs/{}/colls/{}/docs/", c.def.database, c.def.id);
    let id = link.trim_start_matches('/').strip_prefix(alt.as_str());
    match id {
        Some(id) if !id.trim_end_matches('/').is_empty() => Ok(id.trim_end_matches('/').to_owned()),
        _ => Err(Error::bad(
            "link",
            format!("'{link}' is neither the _self of an item this script read nor {alt}{{id}}"),
        )),
    }
}

/// Cosmos DB gives a document without an id a generated one, unless the script disables it.
fn with_id(mut doc: Value, options: &Value) -> Result<Value> {
    if let Value::Object(o) = &mut doc {
        if !o.contains_key("id") {
            if options.get("disableAutomaticIdGeneration") == Some(&Value::Bool(true)) {
                return Err(Error::bad(
                    "id",
                    "the document has no id and automatic id generation is disabled",
                ));
            }
            let n: u128 = rand::random();
            let s = format!("{n:032x}");
            let guid = format!(
                "{}-{}-{}-{}-{}",
                &s[..8],
                &s[8..12],
                &s[12..16],
                &s[16..20],
                &s[20..]
            );
            o.insert("id".into(), Value::String(guid));
        }
    }
    Ok(doc)
}
