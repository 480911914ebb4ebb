//! Unique key policies (Cosmos DB's `uniqueKeyPolicy`): no two items of one logical partition
//! may have the same values at a unique key's paths. Each item's values per unique key are kept
//! in the `unique` database, `rid · epk · key number · hash of the values` → the id holding
//! them, so a write checks a key with one lookup, inside its own transaction: two concurrent
//! creates of one value cannot both pass, because the writer applies them one after the other.
//! A missing path counts as `null` (as in Cosmos DB: "uniqueness constraint is also enforced for
//! missing values"): two items both without `/email`, or one without it and one with
//! `"email": null`, clash. Values compare as Cosmos DB compares them: `-0.0` is `0`.
//!
//! Entries written before those two rules (issue 34) hashed `null` and `-0.0` apart from a
//! missing path and `0`; [`legacy_entries`] gives them, so that `check` can tell such a
//! leftover (which no write computes any more, so it blocks nothing) from damage.

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
        if let Some(twice) = paths
            .iter()
            .enumerate()
            .find_map(|(j, p)| paths[..j].contains(p).then_some(p))
        {
            return Err(Error::bad(
                "uniqueKeyPolicy",
                format!("unique key {i} names the path {twice} twice"),
            ));
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
    entries_by(def, epk, doc, Rule::Cosmos)
}

/// The entries the rule before issue 34 gave `doc` where they differ from [`entries`]: only for
/// a `null` or a `-0.0` at a unique key's path. A store written before may still hold them.
pub fn legacy_entries(def: &ContainerDef, epk: &Epk, doc: &Value) -> Vec<Entry> {
    let now = entries(def, epk, doc);
    let mut old = entries_by(def, epk, doc, Rule::Legacy);
    old.retain(|e| now.binary_search(e).is_err());
    old
}

#[derive(Clone, Copy, PartialEq)]
enum Rule {
    /// A missing path is `null`; `-0.0` is `0`.
    Cosmos,
    /// Before issue 34: `null`, missing, `-0.0` and `0` four values.
    Legacy,
}

/// What a missing path hashes as; under [`Rule::Cosmos`] `null` too, so that entries of items
/// lacking the path, the common case, kept their keys when the rule changed.
const MISSING: &str = "\u{0}undefined";

fn entries_by(def: &ContainerDef, epk: &Epk, doc: &Value, rule: Rule) -> Vec<Entry> {
    let mut out: Vec<Entry> = def
        .unique_keys
        .iter()
        .enumerate()
        .map(|(number, paths)| {
            let mut text = String::new();
            for p in paths {
                match (value_at(doc, p), rule) {
                    (None, _) | (Some(Value::Null), Rule::Cosmos) => text.push_str(MISSING),
                    (Some(v), Rule::Cosmos) => {
                        text.push_str(&crate::sql::exec::canonical(&fold_negative_zero(v)))
                    }
                    (Some(v), Rule::Legacy) => text.push_str(&crate::sql::exec::canonical(v)),
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

/// `v` with every `-0.0` in it made `0` (a copy only when it holds one).
fn fold_negative_zero(v: &Value) -> std::borrow::Cow<'_, Value> {
    fn has(v: &Value) -> bool {
        match v {
            Value::Number(n) => n.as_f64().is_some_and(|f| f == 0.0 && f.is_sign_negative()),
            Value::Array(a) => a.iter().any(has),
            Value::Object(m) => m.values().any(has),
            _ => false,
        }
    }
    fn fold(v: &Value) -> Value {
        match v {
            Value::Number(n) if n.as_f64().is_some_and(|f| f == 0.0) => Value::from(0),
            Value::Array(a) => Value::Array(a.iter().map(fold).collect()),
            Value::Object(m) => {
                Value::Object(m.iter().map(|(k, v)| (k.clone(), fold(v))).collect())
            }
            other => other.clone(),
        }
    }
    if has(v) {
        std::borrow::Cow::Owned(fold(v))
    } else {
        std::borrow::Cow::Borrowed(v)
    }
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
        let twice = validate(&[vec!["/name".into(), "/name".into()]]).unwrap_err();
        assert!(twice.to_string().contains("/name twice"), "{twice}");
    }
}
