//! Containers: create (partition key, indexing policy, default TTL, throughput), read, list,
//! replace, delete.

use actix_web::HttpResponse;
use engine::ContainerProperties;
use serde_json::Value;

use crate::error::{GatewayError, Result};
use crate::headers::{self, Reply};
use crate::request::Ctx;
use crate::resources;

/// RU/s per physical partition a new container starts with, as the service does: 30,000 RU/s
/// make five ("Best practices for scaling provisioned throughput": a container "with five
/// physical partitions and 30,000 RU/s"; azure-cosmos's test_config.py: THROUGHPUT_FOR_5_PARTITIONS
/// = 30000, THROUGHPUT_FOR_2_PARTITIONS = 12000). A partition serves up to 10,000 RU/s; more
/// splits them (engine `throughput::RU_PER_PARTITION`).
pub const RU_PER_PARTITION: u32 = 6_000;

/// A database's containers, and the database's rid for the feed.
fn all(ctx: &Ctx, db: &str) -> Result<(Vec<Value>, String)> {
    let db = ctx.database_id(db)?;
    let db_rid = ctx.database(&db)?.resource_id();
    let all = ctx
        .engine()
        .database(&db)
        .containers()
        .iter()
        .map(|c| resources::container(c))
        .collect();
    Ok((all, db_rid))
}

fn page(all: Vec<Value>, db_rid: &str) -> HttpResponse {
    let n = all.len();
    Reply::new(200, 1.0)
        .header("x-ms-item-count", n.to_string())
        .json(resources::feed(db_rid, "DocumentCollections", all).to_string())
}

pub fn list(ctx: &Ctx, db: &str) -> Result<HttpResponse> {
    let (all, db_rid) = all(ctx, db)?;
    Ok(page(all, &db_rid))
}

/// `query_containers` ([`super::resource_query`]).
pub fn query(ctx: &Ctx, db: &str) -> Result<HttpResponse> {
    let (all, db_rid) = all(ctx, db)?;
    Ok(page(super::resource_query::select(ctx, all)?, &db_rid))
}

pub fn read(ctx: &Ctx, db: &str, id: &str) -> Result<HttpResponse> {
    let (client, def) = ctx.container(db, id)?;
    let mut body = resources::container(&def);
    // `x-ms-documentdb-populatepartitionstatistics`: each range's size and count
    // (`statistics`, the .NET SDK's `PartitionKeyRangeStatistics`: `id`, `sizeInKB`,
    // `documentCount`, `partitionKeys`), from the engine's per-partition counters.
    if headers::flag(ctx.headers(), "x-ms-documentdb-populatepartitionstatistics") {
        body["statistics"] = Value::Array(
            client
                .partitions()?
                .iter()
                .map(|p| {
                    serde_json::json!({
                        "id": p.range_id.to_string(),
                        "sizeInKB": p.bytes.div_ceil(1024),
                        "documentCount": p.items,
                        "partitionKeys": [],
                    })
                })
                .collect(),
        );
    }
    // Quota and usage in the service's form (sizes in KB); the engine has no per-container
    // storage quota, so the quota is what a logical partition may hold times the partitions.
    let (_, items, bytes) = def.totals();
    let kb = bytes.div_ceil(1024);
    let mut reply = Reply::new(200, 1.0);
    // `x-ms-documentdb-populatequotainfo`: how far the index has caught up with a policy
    // change, in percent (the service's `x-ms-documentdb-collection-index-transformation-
    // progress`, read by the SDKs' `IndexTransformationProgress`); the engine rebuilds online
    // and counts the items done. It never indexes lazily, so no lazy-indexing progress.
    if headers::flag(ctx.headers(), "x-ms-documentdb-populatequotainfo") {
        let progress = match def.index_rebuild_progress() {
            None => 100,
            Some(done) if items == 0 => u64::from(done > 0) * 100,
            Some(done) => (done * 100 / items).min(99),
        };
        reply = reply.header(
            "x-ms-documentdb-collection-index-transformation-progress",
            progress.to_string(),
        );
    }
    Ok(reply
        .etag(body["_etag"].as_str())
        .header(
            "x-ms-resource-quota",
            "documentSize=2048;documentsSize=-1;documentsCount=-1;collectionSize=-1",
        )
        .header(
            "x-ms-resource-usage",
            format!(
                "documentSize={kb};documentsSize={kb};documentsCount={items};collectionSize={kb}"
            ),
        )
        .json(body.to_string()))
}

fn bad(msg: impl Into<String>) -> GatewayError {
    GatewayError::BadRequest(msg.into())
}

/// The partition key's hash version (checked by `partition_key_path`): as the service, 1 when
/// absent ("if not specified the default value is 1", `PartitionKeyDefinition.version` of the
/// JavaScript SDK; the Python SDK reads an absent version as 1), but 2 for a hierarchical key,
/// which has no other.
fn partition_key_version(body: &Value) -> u8 {
    let pk = body.get("partitionKey");
    match pk.and_then(|pk| pk.get("version")).and_then(Value::as_u64) {
        Some(1) => 1,
        Some(_) => 2,
        None if pk.and_then(|pk| pk.get("kind")).and_then(Value::as_str) == Some("MultiHash") => 2,
        None => 1,
    }
}

/// The paths of a partition key definition, as the engine takes them: one for `Hash`, up to
/// three joined by commas for a hierarchical (`MultiHash`) key.
fn partition_key_path(body: &Value) -> Result<String> {
    let pk = body
        .get("partitionKey")
        .ok_or_else(|| bad("The container needs a partitionKey definition ({\"paths\": [\"/pk\"], \"kind\": \"Hash\"})."))?;
    let kind = pk.get("kind").and_then(Value::as_str).unwrap_or("Hash");
    let version = match pk.get("version") {
        None | Some(Value::Null) => None,
        Some(v) if v.as_u64() == Some(1) || v.as_u64() == Some(2) => v.as_u64(),
        Some(v) => return Err(bad(format!("Partition key version {v} is not 1 or 2."))),
    };
    let paths: Vec<&str> = pk
        .get("paths")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if paths.iter().any(|p| p.contains(',')) {
        return Err(bad("A partition key path cannot contain a comma."));
    }
    match (kind, paths.as_slice()) {
        ("Hash", [p]) => Ok((*p).to_owned()),
        ("Hash", []) => Err(bad(
            "partitionKey.paths must hold exactly one path, such as \"/pk\" (kind MultiHash \
             takes up to three).",
        )),
        ("Hash", ps) => Err(bad(format!(
            "Too many partition key paths ({}): kind Hash takes exactly one path, such as \
             \"/pk\" (kind MultiHash takes up to three).",
            ps.len()
        ))),
        ("MultiHash", _) if version == Some(1) => Err(bad(
            "A hierarchical (MultiHash) partition key needs version 2.",
        )),
        ("MultiHash", ps) if (1..=3).contains(&ps.len()) => Ok(ps.join(",")),
        ("MultiHash", []) => Err(bad(
            "A hierarchical (MultiHash) partition key has 1 to 3 paths.",
        )),
        // The service's words first: the SDKs' tests look for them.
        ("MultiHash", ps) => Err(bad(format!(
            "Too many partition key paths ({}): a hierarchical (MultiHash) partition key has 1 \
             to 3 paths.",
            ps.len()
        ))),
        (other, _) => Err(bad(format!(
            "Partition key kind '{other}' is not supported: use Hash or MultiHash."
        ))),
    }
}

pub async fn create(ctx: &Ctx<'_>, db: &str) -> Result<HttpResponse> {
    let db = ctx.database_id(db)?;
    let body = ctx.json()?;
    let id = body
        .get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("The container needs a string 'id'."))?;
    let path = partition_key_path(&body)?;
    let mut props = ContainerProperties::new(id, &path);
    props.partition_key_version = Some(partition_key_version(&body));
    // {"uniqueKeys": [{"paths": ["/email"]}, ...]}: the engine checks the paths.
    if let Some(keys) = body
        .pointer("/uniqueKeyPolicy/uniqueKeys")
        .and_then(Value::as_array)
    {
        for key in keys {
            let paths: Vec<&str> = key
                .get("paths")
                .and_then(Value::as_array)
                .ok_or_else(|| bad("Each unique key needs 'paths', an array of paths."))?
                .iter()
                .map(|p| {
                    p.as_str()
                        .ok_or_else(|| bad("Unique key paths are strings."))
                })
                .collect::<Result<_, _>>()?;
            props = props.with_unique_key(&paths);
        }
    }
    if let Some(p) = body.get("indexingPolicy").filter(|p| !p.is_null()) {
        props = props.with_indexing_policy(p.clone());
    }
    if let Some(t) = default_ttl(&body)? {
        props = props.with_default_ttl(t);
    }
    props.computed_properties = computed_properties(&body)?;
    if let Some(seconds) = change_feed_retention(&body)? {
        props = props.with_all_versions_retention(seconds);
    }
    if let Some(ru) = super::throughput::throughput(ctx)? {
        props = props
            .with_throughput(ru)
            .with_initial_partitions(ru.div_ceil(RU_PER_PARTITION));
    }
    match ctx.engine().database(&db).create_container(props).await {
        Ok(_) => {}
        Err(engine::Error::Conflict { .. }) => {
            return Err(GatewayError::Conflict(format!(
                "Resource with specified id or name already exists: container '{id}'."
            )))
        }
        Err(e) => return Err(e.into()),
    }
    let (_, def) = ctx.container(&db, id)?;
    super::throughput::record_autoscale(ctx, &resources::Provisioned::Container(&def))?;
    Ok(Reply::new(201, 1.0).json(resources::container(&def).to_string()))
}

/// `defaultTtl`: absent or null = TTL off, `-1` = on without a default expiry, or seconds.
fn default_ttl(body: &Value) -> Result<Option<i64>> {
    match body.get("defaultTtl") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_i64() {
            Some(t) if t == -1 || t > 0 => Ok(Some(t)),
            _ => Err(bad(
                "defaultTtl must be -1 or a positive number of seconds.",
            )),
        },
    }
}

/// `computedProperties`: an array of `{"name", "query"}` (absent = none). Anything else is the
/// service's "One of the specified inputs is invalid" (azure-cosmos 4.17.1's
/// test_computed_properties.py sends an object and looks for those words); the engine checks
/// the names and queries (`engine::ComputedProperty`).
fn computed_properties(body: &Value) -> Result<Vec<engine::ComputedProperty>> {
    let invalid = || {
        bad(
            "One of the specified inputs is invalid: computedProperties is an array of \
             {\"name\": ..., \"query\": \"SELECT VALUE <expression> FROM c\"}.",
        )
    };
    match body.get("computedProperties") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(all)) => all
            .iter()
            .map(|p| {
                let field = |k: &str| p.get(k).and_then(Value::as_str).ok_or_else(invalid);
                if p.as_object().is_some_and(|o| o.len() != 2) {
                    return Err(invalid());
                }
                Ok(engine::ComputedProperty::new(
                    field("name")?,
                    field("query")?,
                ))
            })
            .collect(),
        Some(_) => Err(invalid()),
    }
}

/// `{"changeFeedPolicy": {"retentionDuration": MINUTES}}`: the all-versions-and-deletes change
/// feed, its records kept that long (as seconds); absent or 0: the latest-version feed only.
fn change_feed_retention(body: &Value) -> Result<Option<u64>> {
    match body.pointer("/changeFeedPolicy/retentionDuration") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(0) => Ok(None),
            Some(minutes) if minutes <= 60 * 24 * 365 => Ok(Some(minutes * 60)),
            _ => Err(bad(
                "changeFeedPolicy.retentionDuration must be a whole number of minutes (at most a year).",
            )),
        },
    }
}

/// Replace: the body is the whole new definition, as on the service. The indexing policy
/// (rebuilt online), the default TTL (items expire by the new value) and the computed
/// properties (absent = removed) may change; the partition key and the change feed policy may
/// not.
pub async fn replace(ctx: &Ctx<'_>, db: &str, id: &str) -> Result<HttpResponse> {
    let (_, def) = ctx.container(db, id)?;
    let body = ctx.json()?;
    if body.get("id").and_then(Value::as_str) != Some(def.id()) {
        return Err(bad("The body's id must be the container's id."));
    }
    let path = partition_key_path(&body)?;
    if def.partition_key().paths.join(",") != path {
        return Err(bad("A container's partition key cannot be changed."));
    }
    let ttl = default_ttl(&body)?;
    let computed = computed_properties(&body)?;
    // Absent: kept as it is (an SDK replacing the indexing policy need not repeat it).
    if body.get("changeFeedPolicy").is_some()
        && change_feed_retention(&body)? != def.change_feed_retention()
    {
        return Err(bad(
            "Changing changeFeedPolicy is not supported by this engine: create a new container.",
        ));
    }
    let db = ctx.engine().database(def.database());
    // First what the engine may still refuse (a computed property's query), so a refused
    // replace changes nothing else.
    if computed != def.computed_properties() {
        db.replace_computed_properties(def.id(), computed).await?;
    }
    let current = resources::container(&def);
    if let Some(policy) = body.get("indexingPolicy").filter(|p| !p.is_null()) {
        if *policy != current["indexingPolicy"] {
            ctx.engine()
                .database(def.database())
                .replace_indexing_policy(def.id(), policy.clone())
                .await?;
        }
    }
    if ttl != def.default_ttl() {
        db.replace_default_ttl(def.id(), ttl).await?;
    }
    let (_, def) = ctx.container(def.database(), def.id())?;
    Ok(Reply::new(200, 1.0).json(resources::container(&def).to_string()))
}

pub async fn delete(ctx: &Ctx<'_>, db: &str, id: &str) -> Result<HttpResponse> {
    let (_, def) = ctx.container(db, id)?;
    ctx.engine()
        .database(def.database())
        .delete_container(def.id())
        .await?;
    Ok(Reply::new(204, 1.0).empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn too_many_key_paths_are_refused_in_the_services_words() {
        // azure-cosmos 4.17.1's test_crud_subpartition.py looks for "Too many partition key
        // paths" for four paths, whether the kind is MultiHash or Hash.
        for kind in ["MultiHash", "Hash"] {
            let body = json!({"partitionKey": {"paths": ["/a", "/b", "/c", "/d"], "kind": kind}});
            let e = partition_key_path(&body).unwrap_err().to_string();
            assert!(
                e.contains("Too many partition key paths (4)"),
                "{kind}: {e}"
            );
        }
        let body = json!({"partitionKey": {"paths": ["/a", "/b"], "kind": "MultiHash"}});
        assert_eq!(partition_key_path(&body).unwrap(), "/a,/b");
        let body = json!({"partitionKey": {"paths": [], "kind": "MultiHash"}});
        assert!(!partition_key_path(&body)
            .unwrap_err()
            .to_string()
            .contains("Too many"));
    }
}
