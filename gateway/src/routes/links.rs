//! `_self` links. A path of resource ids (`dbs/{rid}/colls/{rid}/docs/{rid}`), which `paths`
//! has checked to name one chain of resources, becomes the path of their names before routing:
//! each id resolves to exactly the resource it names, within the one named before it, or the
//! request is a 404.

use crate::error::{GatewayError, Result};
use crate::request::Ctx;
use crate::{headers, paths};

pub(crate) async fn to_names(ctx: &Ctx<'_>, mut segments: Vec<String>) -> Result<Vec<String>> {
    if !paths::is_rid_path(&segments) {
        return Ok(segments);
    }
    let not_found = |what: &str, rid: &str| {
        GatewayError::NotFound(format!(
            "Resource Not Found. No {what} has the resource id '{rid}'."
        ))
    };
    let db = ctx
        .engine()
        .databases()
        .into_iter()
        .find(|d| d.resource_id() == segments[1])
        .ok_or_else(|| not_found("database", &segments[1]))?;
    segments[1] = db.id.clone();
    if segments[2] == "users" {
        return super::users::rids_to_names(ctx, &db, segments);
    }
    let Some(coll) = segments.get(3) else {
        return Ok(segments);
    };
    let c = ctx
        .engine()
        .database(&segments[1])
        .containers()
        .into_iter()
        .find(|c| c.resource_id() == *coll)
        .ok_or_else(|| not_found("container", coll))?;
    segments[3] = c.id().to_owned();
    let (Some(kind), Some(child)) = (segments.get(4), segments.get(5)) else {
        return Ok(segments);
    };
    let name = match kind.as_str() {
        "docs" => {
            let pk = headers::partition_key(ctx.headers())?.ok_or_else(|| {
                GatewayError::BadRequest(
                    "PartitionKey value must be supplied for this operation (header \
                     x-ms-documentdb-partitionkey)."
                        .into(),
                )
            })?;
            let client = ctx.engine().database(&segments[1]).container(c.id());
            let rid = child.clone();
            tokio::task::spawn_blocking(move || client.item_id_of_rid(&rid, &pk))
                .await
                .map_err(|e| GatewayError::Engine(engine::Error::Unavailable(e.to_string())))??
        }
        "operations" => return Ok(segments),
        kind => super::scripts::id_of_rid(ctx, &segments[1], &segments[3], kind, child)?,
    };
    segments[5] = name.ok_or_else(|| not_found(kind.trim_end_matches('s'), child))?;
    Ok(segments)
}

/// `x-ms-cosmos-intended-collection-rid`: the SDKs send the `_rid` of the container they mean
/// with every request below it; a container deleted and re-created under the same name has
/// another, and the service answers 400 with sub-status 1024 (`COLLECTION_RID_MISMATCH`), on
/// which the Python SDK refreshes its cached container (its partition key definition may have
/// changed) and retries (`_retry_utility.py`, `_container_recreate_retry_policy.py`).
pub(crate) fn check_intended_container(ctx: &Ctx, segments: &[&str]) -> Result<()> {
    let ["dbs", db, "colls", c, _, ..] = segments else {
        return Ok(());
    };
    let Some(intended) = headers::get(ctx.headers(), "x-ms-cosmos-intended-collection-rid") else {
        return Ok(());
    };
    let Some(def) = ctx
        .engine()
        .database(db)
        .containers()
        .into_iter()
        .find(|d| d.id() == *c)
    else {
        return Ok(()); // the route answers its 404
    };
    if def.resource_id() == intended {
        return Ok(());
    }
    Err(GatewayError::BadRequestSub {
        substatus: 1024,
        message: format!(
            "The container '{c}' the request names is not the one it was meant for: its resource \
             id is {}, the request's x-ms-cosmos-intended-collection-rid {intended} (it was \
             deleted and created again)",
            def.resource_id()
        ),
    })
}
