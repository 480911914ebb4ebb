//! The JSON of databases, containers, partition key ranges and offers, as Cosmos DB returns them
//! (the SDKs read `partitionKey`, `_rid`, `_self` and the feeds' `_count`).

use base64::Engine as _;
use engine::{ContainerDef, DatabaseDef};
use serde_json::{json, Value};

/// Cosmos DB's resource ids are base64 with `-` for `/`: a database's has 4 bytes, a
/// container's 8 (its database's 4, then its own).
fn rid(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD
        .encode(bytes)
        .replace('/', "-")
}

/// A database's 4 bytes: the engine numbers containers but not databases, so a hash of the id
/// (FNV-1a: stable across builds, unlike std's hasher).
fn database_bytes(id: &str) -> [u8; 4] {
    let mut h: u32 = 0x811c_9dc5;
    for b in id.bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h.to_be_bytes()
}

pub fn database_rid(id: &str) -> String {
    rid(&database_bytes(id))
}

pub fn container_rid(def: &ContainerDef) -> String {
    let mut b = database_bytes(def.database()).to_vec();
    b.extend_from_slice(&def.rid().to_be_bytes());
    rid(&b)
}

pub fn container_self(def: &ContainerDef) -> String {
    format!(
        "dbs/{}/colls/{}/",
        database_rid(def.database()),
        container_rid(def)
    )
}

/// An etag for a resource that changes only with its settings.
fn etag_of(v: &Value) -> String {
    let text = v.to_string();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("\"{h:016x}\"")
}

pub fn database(def: &DatabaseDef) -> Value {
    let rid = database_rid(&def.id);
    json!({
        "id": def.id,
        "_rid": rid,
        "_self": format!("dbs/{rid}/"),
        "_etag": format!("\"{}\"", rid),
        "_colls": "colls/",
        "_users": "users/",
        "_ts": def.created,
    })
}

/// The indexing policy as Cosmos DB shows it: the engine stores `{}` for the default one.
fn indexing_policy(def: &ContainerDef) -> Value {
    match &def.indexing_policy() {
        Value::Object(o) if !o.is_empty() => def.indexing_policy().clone(),
        _ => json!({
            "indexingMode": "consistent",
            "automatic": true,
            "includedPaths": [{"path": "/*"}],
            "excludedPaths": [{"path": "/\"_etag\"/?"}],
        }),
    }
}

pub fn container(def: &ContainerDef) -> Value {
    let mut v = json!({
        "id": def.id(),
        "indexingPolicy": indexing_policy(def),
        "partitionKey": {
            "paths": def.partition_key().paths,
            "kind": def.partition_key().kind,
            "version": def.partition_key().version,
        },
        "uniqueKeyPolicy": {"uniqueKeys": def.unique_keys().iter().map(|paths| json!({"paths": paths})).collect::<Vec<_>>()},
        "conflictResolutionPolicy": {
            "mode": "LastWriterWins",
            "conflictResolutionPath": "/_ts",
            "conflictResolutionProcedure": "",
        },
        "geospatialConfig": {"type": "Geography"},
    });
    if let Some(ttl) = def.default_ttl() {
        v["defaultTtl"] = json!(ttl);
    }
    if let Some(seconds) = def.change_feed_retention() {
        v["changeFeedPolicy"] = json!({"retentionDuration": seconds.div_ceil(60)});
    }
    let etag = etag_of(&v);
    v["_rid"] = json!(container_rid(def));
    v["_ts"] = json!(def.created());
    v["_self"] = json!(container_self(def));
    v["_etag"] = json!(etag);
    for (k, f) in [
        ("_docs", "docs/"),
        ("_sprocs", "sprocs/"),
        ("_triggers", "triggers/"),
        ("_udfs", "udfs/"),
        ("_conflicts", "conflicts/"),
    ] {
        v[k] = json!(f);
    }
    v
}

/// A partition key range (`routes::pkranges` says what the ranges are).
pub fn partition_key_range(
    def: &ContainerDef,
    range: &crate::routes::Range,
    throughput_fraction: f64,
) -> Value {
    let n: u32 = range.id.parse().unwrap_or(0);
    let mut b = [0u8; 8];
    b[0] = 2;
    b[4..].copy_from_slice(&n.to_be_bytes());
    let rid = format!("{}{}", &container_rid(def)[..8], self::rid(&b));
    json!({
        "id": range.id,
        "_rid": rid,
        "_self": format!("{}pkranges/{rid}/", container_self(def)),
        "_etag": format!("\"{:08x}-range-{}\"", def.rid(), range.id),
        "_ts": def.created(),
        "minInclusive": range.epks.start,
        "maxExclusive": range.epks.end,
        "ridPrefix": n,
        "throughputFraction": throughput_fraction,
        "status": "online",
        "parents": range.parents,
        "ownedArchivalPKRangeIds": [],
    })
}

/// An offer's id: its container's rid without the database part, lower case (offers are
/// addressed by id, which the SDKs lower-case when they sign).
pub fn offer_id(def: &ContainerDef) -> String {
    format!("{:08x}", def.rid())
}

pub fn offer(def: &ContainerDef, throughput: u32) -> Value {
    let id = offer_id(def);
    json!({
        "id": id,
        "_rid": id,
        "_self": format!("offers/{id}/"),
        "_etag": format!("\"{id}-{throughput}\""),
        "_ts": def.created(),
        "offerVersion": "V2",
        "offerType": "Invalid",
        "resource": container_self(def),
        "offerResourceId": container_rid(def),
        "content": {
            "offerThroughput": throughput,
            "offerIsRUPerMinuteThroughputEnabled": false,
        },
    })
}

/// A feed page body: `{"_rid": ..., "<Key>": [...], "_count": n}`.
pub fn feed(rid: &str, key: &str, items: Vec<Value>) -> Value {
    let count = items.len();
    json!({"_rid": rid, key: items, "_count": count})
}
