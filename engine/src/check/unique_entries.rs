//! Unique-key entries (`rid · epk · key number · hash of the values` → the holder's id): every
//! live item holds the entries of its values, and no entry names a live item that does not hold
//! its values. A missing entry lets a second item with the same values in; an entry naming the
//! wrong live item refuses a value that item does not hold (409) for as long as it lives.
//! An entry naming an item that is gone or expired blocks nothing (the next write of those
//! values takes it over), so it is not a problem; nor does an entry of the rule before issue 34
//! (a `null` or `-0.0` hashed apart from a missing path or `0`), which no write computes any
//! more. Its item then lacks the entry of today's rule, which is reported, saying why.

use std::collections::{HashMap, HashSet};

use super::report::Problems;
use super::snapshot::Container;
use crate::error::Result;
use crate::storage::keys::{self, DocHeader};
use crate::ttl;
use crate::unique;

/// Where the key number sits in an entry's key (after the container's rid and the EPK).
const NUMBER_AT: usize = 20;

pub(super) fn check_unique_entries(
    c: &Container,
    expected: &mut HashMap<Vec<u8>, Vec<u8>>,
    legacy: &HashMap<Vec<u8>, Vec<u8>>,
    problems: &mut Problems,
) -> Result<()> {
    // A store written before unique keys has no `unique` table, and no container with a policy.
    if c.def.unique_keys().is_empty() {
        return Ok(());
    }
    if !c.store.has_unique_table {
        problems.note(
            "missing unique-key table",
            "the data file has no `unique` table: this container's unique keys have no entries \
             to check, and a writer would start from none (a second item with a value would be \
             accepted)"
                .to_owned(),
        );
        return Ok(());
    }
    // Items (their `docs` keys) whose entry of the rule before issue 34 was found.
    let mut written_before: HashSet<Vec<u8>> = HashSet::new();
    for entry in c.store.unique.prefix_iter(c.rtxn, &c.prefix)? {
        let (k, holder) = entry?;
        if expected.get(k).is_some_and(|id| id.as_slice() == holder) {
            // Found: what stays in `expected` at the end is missing.
            expected.remove(k);
            continue;
        }
        if legacy.get(k).is_some_and(|id| id.as_slice() == holder) {
            written_before.insert(k[..NUMBER_AT].iter().chain(holder).copied().collect());
            continue;
        }
        if k.len() <= NUMBER_AT {
            problems.note(
                "damaged unique-key entry",
                format!("unique-key entry {} is cut short", keys::show(k)),
            );
            continue;
        }
        let mut holder_key = k[..NUMBER_AT].to_vec();
        holder_key.extend_from_slice(holder);
        let live = match c.store.docs.get(c.rtxn, &holder_key)? {
            Some(v) => DocHeader::decode(v)
                .is_some_and(|(h, _)| !ttl::is_expired(&h, c.def.default_ttl, c.now)),
            None => false,
        };
        if live {
            problems.note(
                "stray unique-key entry",
                format!(
                    "a unique-key entry ({}) names item '{}', which does not hold those {}: \
                     a write of them would be refused",
                    keys::show(k),
                    keys::shown_id(&holder_key),
                    describe(c, k)
                ),
            );
        }
    }
    for (k, id) in expected.iter() {
        let item: Vec<u8> = k[..NUMBER_AT].iter().chain(id).copied().collect();
        let why = if written_before.contains(&item) {
            " (its entry was written when null and a missing path, or -0 and 0, were different \
             values: delete the item and create it again)"
        } else {
            ""
        };
        problems.note(
            "missing unique-key entry",
            format!(
                "item '{}' has no unique-key entry for its {}: a second item with them would be \
                 accepted{why}",
                String::from_utf8_lossy(id),
                describe(c, k)
            ),
        );
    }
    Ok(())
}

/// "value at /email" for the unique key an entry's key belongs to.
fn describe(c: &Container, k: &[u8]) -> String {
    unique::describe(c.def, k.get(NUMBER_AT).copied().unwrap_or(0) as usize)
}

/// Entries under a container id that is no container with a unique key policy (a deleted
/// container's are deleted with it): damage, or entries of the wrong store. One problem per such
/// id, with its count. Known containers' entries are skipped by seeking past their prefix.
pub(super) fn check_entries_of_unknown_containers(
    store: &crate::storage::Store,
    rtxn: &heed::RoTxn,
    with_policy: &std::collections::BTreeSet<u32>,
    all: &std::collections::BTreeMap<u32, String>,
    problems: &mut Problems,
) -> Result<()> {
    use std::ops::Bound;
    if !store.has_unique_table {
        return Ok(());
    }
    // LMDB refuses an empty key, even as a bound: the first look is unbounded.
    let mut from: Vec<u8> = Vec::new();
    loop {
        let start = match from.is_empty() {
            true => Bound::Unbounded,
            false => Bound::Included(from.as_slice()),
        };
        let bounds = (start, Bound::Unbounded);
        let Some(first) = store.unique.range(rtxn, &bounds)?.next() else {
            return Ok(());
        };
        let (k, _) = first?;
        let Some(rid) = k
            .get(..4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        else {
            problems.note(
                "damaged unique-key entry",
                format!("unique-key entry {} is cut short", keys::show(k)),
            );
            from = k.iter().copied().chain([0]).collect();
            continue;
        };
        if !with_policy.contains(&rid) {
            let n = store
                .unique
                .prefix_iter(rtxn, &keys::container_prefix(rid))?
                .count();
            let whose = match all.get(&rid) {
                Some(name) => format!("container {name}, which has no unique keys"),
                None => format!("container id {rid}, which no container has"),
            };
            problems.note(
                "unique-key entries of an unknown container",
                format!("{n} unique-key entries are stored under {whose}"),
            );
        }
        match rid.checked_add(1) {
            Some(next) => from = keys::container_prefix(next).to_vec(),
            None => return Ok(()),
        }
    }
}
