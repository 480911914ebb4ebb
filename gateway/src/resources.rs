//! The JSON of databases, containers, partition key ranges and offers, as Cosmos DB returns them
//! (the SDKs read `partitionKey`, `_rid`, `_self` and the feeds' `_count`).

use engine::rid::{self, ChildKind};
use engine::{ContainerDef, DatabaseDef, EpkRange};
use serde_json::{json, Value};

/// Resource ids and links are the engine's (`engine::rid`: Cosmos DB's form, which the SDKs
/// parse); these name them as the routes use them.
pub fn container_rid(def: &ContainerDef) -> String {
    def.resource_id()
}

pub fn container_self(def: &ContainerDef) -> String {
    def.self_link()
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
    let rid = def.resource_id();
    json!({
        "id": def.id,
        "_rid": rid,
        "_self": def.self_link(),
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
    // Absent when there are none, as the service answers (the SDK's tests read a KeyError).
    if !def.computed_properties().is_empty() {
        v["computedProperties"] = json!(def.computed_properties());
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

/// One partition key range as the REST API shows it.
pub(crate) struct Range {
    pub id: String,
    pub epks: EpkRange,
    pub parents: Vec<String>,
}

/// A partition key range (`routes::pkranges` says what the ranges are).
pub fn partition_key_range(def: &ContainerDef, range: &Range, throughput_fraction: f64) -> Value {
    let n: u32 = range.id.parse().unwrap_or(0);
    let rid = rid::encode(&rid::child_bytes(
        &def.resource_bytes(),
        ChildKind::PartitionKeyRange,
        n as u64,
    ));
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

/// What an offer provisions: a container's own throughput or a database's shared one.
pub enum Provisioned<'a> {
    Container(&'a ContainerDef),
    Database(&'a DatabaseDef),
}

impl Provisioned<'_> {
    /// The offer's id (`rid::offer`: 3 bytes, as the service's): the resource's number.
    pub fn offer_id(&self) -> String {
        rid::offer(match self {
            Provisioned::Container(c) => c.rid(),
            Provisioned::Database(d) => d.number(),
        })
    }

    fn link_and_rid(&self) -> (String, String) {
        match self {
            Provisioned::Container(c) => (c.self_link(), c.resource_id()),
            Provisioned::Database(d) => (d.self_link(), d.resource_id()),
        }
    }

    fn created(&self) -> u64 {
        match self {
            Provisioned::Container(c) => c.created(),
            Provisioned::Database(d) => d.created,
        }
    }
}

pub fn offer(of: &Provisioned, throughput: u32) -> Value {
    let id = of.offer_id();
    let (link, resource_rid) = of.link_and_rid();
    json!({
        "id": id,
        "_rid": id,
        "_self": format!("offers/{id}/"),
        "_etag": format!("\"{id}-{throughput}\""),
        "_ts": of.created(),
        "offerVersion": "V2",
        "offerType": "Invalid",
        "resource": link,
        "offerResourceId": resource_rid,
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
