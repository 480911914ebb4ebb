//! Replacing a container's changeable settings: the default TTL and the computed properties.
//!
//! Cosmos DB lets a container replace change its `defaultTtl` ("Configure time to live in Azure
//! Cosmos DB"): items then expire by the new value counted from their last write (`_ts`), and an
//! item's own `ttl` still wins. Reads already judge expiry by the definition they see; what the
//! new value changes on storage is the `expiry` index the purge walks, rebuilt here in the same
//! transaction as the definition, so the two never disagree.

use super::apply::Ctx;
use super::{Dirty, State};
use crate::catalog::ComputedProperty;
use crate::error::{Error, Result};
use crate::storage::keys::{self, DocHeader};
use crate::ttl;

use super::ops::WriteOutput;

pub(super) fn replace(
    ctx: &mut Ctx,
    state: &mut State,
    dirty: &mut Dirty,
    (database, id): (&str, &str),
    default_ttl: Option<Option<i64>>,
    computed_properties: Option<&[ComputedProperty]>,
) -> Result<WriteOutput> {
    let rid = state.rid_of(database, id).ok_or_else(|| Error::NotFound {
        what: format!("container '{database}/{id}'"),
    })?;
    if let Some(Some(t)) = default_ttl {
        if t == 0 || t < -1 {
            return Err(Error::bad(
                "defaultTtl",
                "defaultTtl must be -1 or a positive number of seconds",
            ));
        }
    }
    let def = state.containers.get(&rid).expect("rid_of found it");
    let mut next = match computed_properties {
        Some(props) if props != def.computed_properties() => {
            // Checked (and compiled) by the query language, which the catalog is below.
            def.with_computed_properties(props.to_vec(), crate::sql::computed::compile(props)?)
        }
        _ => def.clone(),
    };
    if let Some(ttl) = default_ttl {
        if ttl != next.default_ttl {
            reindex_expiry(ctx, rid, next.default_ttl, ttl)?;
            next.default_ttl = ttl;
        }
    }
    state.containers.insert(rid, next.clone());
    dirty.containers.insert(rid);
    Ok(WriteOutput::Container(Box::new(next)))
}

/// Moves every item's `expiry` entry from where `old` put it to where `new` puts it (none when
/// the item never expires). One pass over the container's items, in the writer's transaction.
fn reindex_expiry(ctx: &mut Ctx, rid: u32, old: Option<i64>, new: Option<i64>) -> Result<()> {
    let container = format!("{rid}");
    let prefix = keys::container_prefix(rid);
    let mut moves = Vec::new();
    for entry in ctx.store.docs.prefix_iter(ctx.wtxn, &prefix)? {
        let (k, v) = entry?;
        if !keys::is_doc_key(k) {
            continue;
        }
        let h = DocHeader::peek(v).map_err(|d| keys::corrupt_item(k, &container, d.describe()))?;
        let was = ttl::expires_at(h.ts, h.ttl, old);
        let will = ttl::expires_at(h.ts, h.ttl, new);
        if was != will {
            moves.push((k.to_vec(), was, will));
        }
    }
    for (k, was, will) in moves {
        if let Some(at) = was {
            ctx.store
                .expiry
                .delete(ctx.wtxn, &keys::expiry_key(rid, at, &k))?;
        }
        if let Some(at) = will {
            ctx.store
                .expiry
                .put(ctx.wtxn, &keys::expiry_key(rid, at, &k), &[])?;
        }
    }
    Ok(())
}
