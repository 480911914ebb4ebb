//! Keys of no container (issue 34): every table but `meta` and `unique` (checked with its
//! policies, `unique_entries`) keys its entries by container id first, and dropping a container
//! removes them all in its transaction. Keys under an id no container has are damage or another
//! store's: one problem per table and id, with the count. Known containers' keys are skipped by
//! seeking past their prefix, so the walk costs a seek per container id.

use std::collections::BTreeMap;
use std::ops::Bound;

use heed::types::Bytes;
use heed::{Database, RoTxn};

use super::report::Problems;
use crate::error::Result;
use crate::storage::{keys, Store};

/// Reports the keys of `store`'s container-keyed tables under ids `all` does not hold.
pub(super) fn check_keys_of_unknown_containers(
    store: &Store,
    rtxn: &RoTxn,
    all: &BTreeMap<u32, String>,
    problems: &mut Problems,
) -> Result<()> {
    let tables: [(&str, Database<'static, Bytes, Bytes>); 6] = [
        ("docs", store.docs),
        ("lps", store.lps),
        ("feed", store.feed),
        ("log", store.log),
        ("index", store.index),
        ("expiry", store.expiry),
    ];
    for (name, table) in tables {
        // LMDB refuses an empty key, even as a bound: the first look is unbounded.
        let mut from: Vec<u8> = Vec::new();
        loop {
            let start = match from.is_empty() {
                true => Bound::Unbounded,
                false => Bound::Included(from.as_slice()),
            };
            let Some(first) = table.range(rtxn, &(start, Bound::Unbounded))?.next() else {
                break;
            };
            let (k, _) = first?;
            let Some(rid) = k
                .get(..4)
                .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
            else {
                problems.note(
                    "keys of no container",
                    format!(
                        "{name} key {} is too short to name a container",
                        keys::show(k)
                    ),
                );
                from = k.iter().copied().chain([0]).collect();
                continue;
            };
            if !all.contains_key(&rid) {
                let n = table
                    .prefix_iter(rtxn, &keys::container_prefix(rid))?
                    .count();
                problems.note(
                    "keys of no container",
                    format!("{n} {name} keys are stored under container id {rid}, which no container has"),
                );
            }
            match rid.checked_add(1) {
                Some(next) => from = keys::container_prefix(next).to_vec(),
                None => break,
            }
        }
    }
    Ok(())
}
