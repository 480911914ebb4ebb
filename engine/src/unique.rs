//! Unique key policies (Cosmos DB's `uniqueKeyPolicy`): no two items of one logical partition
//! may have the same values at a unique key's paths. Each item's values per unique key are kept
//! in the `unique` database, `rid · epk · key number · hash of the values` → the id holding
//! them, so a write checks a key with one lookup, inside its own transaction: two concurrent
//! creates of one value cannot both pass, because the writer applies them one after the other.
//! A missing path counts as a value (as in Cosmos DB): two items both without `/email` clash.

use serde_json::Value;

use crate::catalog::ContainerDef;
use crate::error::{Error, Result};
use crate::partition::Epk;
use crate::storage::keys;

/// Cosmos DB's limits: up to 10 unique keys, up to 16 paths each.
const MAX_KEYS: usize = 10;
const MAX_PATHS: usize = 16;

/// Checks a policy at container creation.
pub fn validate(keys: &[Vec<String>]) -> Result<()> {
    if keys.len() > MAX_KEYS {
        return Err(Error::bad(
            "uniqueKeyPolicy",
            format!("at most {MAX_KEYS} unique keys"),
        ));
    }
    for (i, paths) in keys.iter().enumerate() {
        if paths.is_empty() || paths.len() > MAX_PATHS {
            return Err(Error::bad(
                "uniqueKeyPolicy",
                format!("unique key {i} needs 1 to {MAX_PATHS} paths"),
            ));
        }
        for p in paths {
            if !p.starts_with('/') || p.len() < 2 || p.contains('*') || p.contains('[') {
                return Err(Error::bad(
                    "uniqueKeyPolicy",
                    format!("'{p}' is not a path like /email or /address/zipCode"),
                ));
            }
        }
        if keys[..i].contains(paths) {
            return Err(Error::bad(
                "uniqueKeyPolicy",
                format!("the unique key {paths:?} is given twice"),
            ));
        }
    }
    Ok(())
}

/// One unique key's entry for an item.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    pub key: Vec<u8>,
    /// Which unique key (its index in the policy).
    pub number: usize,
}

/// The entries of `doc` in logical partition `epk` under `def`'s unique keys (none without a
/// policy), sorted.
pub fn entries(def: &ContainerDef, epk: &Epk, doc: &Value) -> Vec<Entry> {
    let mut out: Vec<Entry> = def
        .unique_keys
        .iter()
        .enumerate()
        .map(|(number, paths)| {
            let mut text = String::new();
            for p in paths {
                match value_at(doc, p) {
                    Some(v) => text.push_str(&crate::sql::exec::canonical(v)),
                    None => text.push_str("\u{0}undefined"),
                }
                text.push('\u{1}');
            }
            let mut key = keys::partition_prefix(def.rid, epk).to_vec();
            key.push(number as u8);
            key.extend_from_slice(&xxhash_rust::xxh3::xxh3_128(text.as_bytes()).to_be_bytes());
            Entry { key, number }
        })
        .collect();
    out.sort();
    out
}

/// The paths of unique key `number`, for messages.
pub fn describe(def: &ContainerDef, number: usize) -> String {
    let paths = def.unique_keys.get(number).cloned().unwrap_or_default();
    if paths.len() == 1 {
        format!("value at {}", paths[0])
    } else {
        format!("values at {}", paths.join(", "))
    }
}

fn value_at<'v>(doc: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('/')
        .skip(1)
        .try_fold(doc, |v, seg| v.as_object()?.get(seg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_are_checked() {
        assert!(validate(&[vec!["/email".into()], vec!["/a".into(), "/b/c".into()]]).is_ok());
        assert!(validate(&[vec!["email".into()]]).is_err());
        assert!(validate(&[vec![]]).is_err());
        assert!(validate(&[vec!["/a".into()], vec!["/a".into()]]).is_err());
    }
}
