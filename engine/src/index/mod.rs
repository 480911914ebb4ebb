//! The index: for every indexed scalar of an item, an entry
//! `rid · partition · path-hash(8) · encoded value · epk(16) · id-hash(8)` → `id-key`,
//! scoped per physical partition as in Cosmos DB, written in the item's transaction.
//!
//! Composite indexes add one entry per item that has a scalar at each of their paths, with the
//! values of descending components bit-inverted (the encoding is prefix-free, so inverting it
//! reverses its order).

pub mod encoding;
pub mod policy;
pub mod scan;
pub mod spatial;
pub mod terms;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::item::SYSTEM_PROPERTIES;
use crate::partition::Epk;
pub use policy::CompiledPolicy;

/// Hash of an index path (`["tags", "[]"]`), the fixed-size part of an entry key.
pub fn path_hash(segments: &[String]) -> [u8; 8] {
    let mut joined = String::new();
    for s in segments {
        joined.push('/');
        joined.push_str(&s.replace('~', "~0").replace('/', "~1"));
    }
    xxhash_rust::xxh3::xxh3_64(joined.as_bytes()).to_be_bytes()
}

pub fn composite_hash(paths: &[(Vec<String>, bool)]) -> [u8; 8] {
    let mut joined = String::from("composite");
    for (p, desc) in paths {
        joined.push_str(&format!("|{}:{desc}", p.join("/")));
    }
    xxhash_rust::xxh3::xxh3_64(joined.as_bytes()).to_be_bytes()
}

/// The terms of `doc` under `policy`: each `path-hash · encoded value`, sorted, deduplicated.
/// System properties are not indexed, except `_ts`.
pub fn terms(doc: &Value, policy: &CompiledPolicy) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    if !policy.consistent {
        return out;
    }
    let mut path = Vec::new();
    if let Value::Object(m) = doc {
        for (k, v) in m {
            if SYSTEM_PROPERTIES.contains(&k.as_str()) && k != "_ts" {
                continue;
            }
            path.push(k.clone());
            leaves(v, &mut path, policy, &mut out);
            path.pop();
        }
    }
    for path in &policy.spatial {
        if let Some(entry) = lookup(doc, path).and_then(spatial::entry) {
            let mut term = spatial::hash(path).to_vec();
            term.extend_from_slice(&entry);
            out.push(term);
        }
    }
    for composite in &policy.composites {
        let mut term = composite_hash(composite).to_vec();
        let complete = composite.iter().all(|(p, desc)| {
            let Some(v) = lookup(doc, p) else {
                return false;
            };
            let start = term.len();
            if !encoding::encode_into(v, &mut term) {
                return false;
            }
            if *desc {
                term[start..].iter_mut().for_each(|b| *b = !*b);
            }
            true
        });
        if complete {
            out.push(term);
        }
    }
    out.sort();
    out.dedup();
    out
}

fn leaves(v: &Value, path: &mut Vec<String>, policy: &CompiledPolicy, out: &mut Vec<Vec<u8>>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                path.push(k.clone());
                leaves(v, path, policy, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            path.push("[]".into());
            for v in a {
                leaves(v, path, policy, out);
            }
            path.pop();
        }
        scalar => {
            if policy.indexes(path) {
                let mut term = path_hash(path).to_vec();
                encoding::encode_into(scalar, &mut term);
                out.push(term);
            }
        }
    }
}

fn lookup<'a>(doc: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(doc, |v, seg| v.get(seg))
}

/// The key of one entry: `rid · partition · term · epk · id-hash`.
pub fn entry_key(rid: u32, partition: u32, term: &[u8], epk: &Epk, id_key: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(8 + term.len() + 24);
    k.extend_from_slice(&rid.to_be_bytes());
    k.extend_from_slice(&partition.to_be_bytes());
    k.extend_from_slice(term);
    k.extend_from_slice(&epk.0);
    k.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(id_key).to_be_bytes());
    k
}

/// Per physical partition and path, the number of entries of the path, kept under
/// `rid · partition · path-hash · 00` (tag 00 sorts before every value). An ORDER BY merge needs
/// every item to be in the index (Cosmos DB returns items lacking the property too): when a
/// partition holds as many entries of the path as items, it is.
pub fn count_key(rid: u32, partition: u32, path_hash: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(17);
    k.extend_from_slice(&rid.to_be_bytes());
    k.extend_from_slice(&partition.to_be_bytes());
    k.extend_from_slice(&path_hash[..8]);
    k.push(0x00);
    k
}

/// Per logical partition and path, the number of entries of the path, kept under
/// `rid · FFFFFFFF · path-hash · epk` (no physical partition has that id, so no entry scan sees
/// it). A routed ORDER BY merge checks with one lookup per logical partition that every item of
/// the partition is in the index, instead of counting the physical partition's entries.
pub fn lp_count_key(rid: u32, path_hash: &[u8], epk: &Epk) -> Vec<u8> {
    let mut k = Vec::with_capacity(32);
    k.extend_from_slice(&rid.to_be_bytes());
    k.extend_from_slice(&u32::MAX.to_be_bytes());
    k.extend_from_slice(&path_hash[..8]);
    k.extend_from_slice(&epk.0);
    k
}

/// Adds `deltas` (path hash → change) to the counts of the logical partition `epk`.
pub fn adjust_lp_counts(
    store: &crate::storage::Store,
    wtxn: &mut heed::RwTxn,
    rid: u32,
    epk: &Epk,
    deltas: &std::collections::BTreeMap<[u8; 8], i64>,
) -> heed::Result<()> {
    for (path, delta) in deltas.iter().filter(|(_, d)| **d != 0) {
        let key = lp_count_key(rid, path, epk);
        let next = (read_count(store, wtxn, &key)? as i64 + delta).max(0) as u64;
        if next == 0 {
            store.index.delete(wtxn, &key)?;
        } else {
            store.index.put(wtxn, &key, &next.to_be_bytes())?;
        }
    }
    Ok(())
}

/// Whether an index key is a count (see `count_key`), not an entry.
pub fn is_count_key(key: &[u8]) -> bool {
    key.len() == 17 && key[16] == 0x00
}

/// Adds `deltas` (path hash → change) to the counts of partition `pp`.
pub fn adjust_counts(
    store: &crate::storage::Store,
    wtxn: &mut heed::RwTxn,
    rid: u32,
    pp: u32,
    deltas: &std::collections::BTreeMap<[u8; 8], i64>,
) -> heed::Result<()> {
    for (path, delta) in deltas.iter().filter(|(_, d)| **d != 0) {
        let key = count_key(rid, pp, path);
        let current = read_count(store, wtxn, &key)?;
        let next = (current as i64 + delta).max(0) as u64;
        if next == 0 {
            store.index.delete(wtxn, &key)?;
        } else {
            store.index.put(wtxn, &key, &next.to_be_bytes())?;
        }
    }
    Ok(())
}

pub fn read_count(
    store: &crate::storage::Store,
    txn: &heed::RoTxn,
    key: &[u8],
) -> heed::Result<u64> {
    Ok(store
        .index
        .get(txn, key)?
        .and_then(|v| v.try_into().ok())
        .map(u64::from_be_bytes)
        .unwrap_or(0))
}

/// The path hash of a term (its first 8 bytes).
pub fn term_path(term: &[u8]) -> [u8; 8] {
    term[..8]
        .try_into()
        .expect("terms start with an 8-byte path hash")
}

/// Shortest entry key: `rid · partition · path hash · value tag · epk · id hash`.
pub const MIN_ENTRY_LEN: usize = 4 + 4 + 8 + 1 + 16 + 8;

/// The EPK inside an entry key (the 16 bytes before the trailing id hash). A key too short to
/// hold one is damage (LMDB keeps no checksums), said as such rather than a panic.
pub fn epk_of_entry(key: &[u8]) -> Result<Epk> {
    if key.len() < MIN_ENTRY_LEN {
        return Err(Error::Corrupt(format!(
            "the data file is damaged: index entry {} is cut short; restore it from a backup, \
             run `engine check`",
            crate::storage::keys::hex(key)
        )));
    }
    Ok(Epk(key[key.len() - 24..key.len() - 8]
        .try_into()
        .expect("checked length")))
}

/// The term inside an entry key.
pub fn term_of_entry(key: &[u8]) -> &[u8] {
    &key[8..key.len() - 24]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn terms_follow_the_policy() {
        let doc = json!({"id": "1", "tags": ["a", "b", "a"], "address": {"city": "Oslo"}, "_etag": "x", "_ts": 5, "_rid": "r"});
        let all = CompiledPolicy::from_json(&json!({})).unwrap();
        // id, tags a, tags b (dedup), address/city, _ts
        assert_eq!(terms(&doc, &all).len(), 5);
        let narrow = CompiledPolicy::from_json(&json!({
            "includedPaths": [{"path": "/address/*"}],
            "excludedPaths": [{"path": "/*"}]
        }))
        .unwrap();
        assert_eq!(terms(&doc, &narrow).len(), 1);
        let composite = CompiledPolicy::from_json(&json!({
            "includedPaths": [{"path": "/*"}],
            "compositeIndexes": [[{"path": "/a"}, {"path": "/b", "order": "descending"}]]
        }))
        .unwrap();
        let t1 = terms(&json!({"a": 1, "b": 1}), &composite);
        let t2 = terms(&json!({"a": 1, "b": 2}), &composite);
        let c = |t: &[Vec<u8>]| t.iter().find(|x| x.len() > 17).cloned().unwrap();
        assert!(c(&t1) > c(&t2), "descending component inverts the order");
        assert_eq!(
            terms(&json!({"a": 1}), &composite).len(),
            1,
            "no composite entry without every path"
        );
    }
}
