//! Splitting a physical partition in two, moving whole logical partitions.
//!
//! Items are keyed by EPK, so the documents of the moving half stay where they are: the split
//! chooses a boundary between logical partitions (the byte median), gives the upper half to a new
//! partition that continues the parent's LSN sequence, and moves that half's change-feed entries.
//! It runs on the writer thread in one transaction: readers never stop (MVCC), writers queue for
//! its duration and continue on the new map; nothing is lost either way.

use crate::catalog::{self, ContainerDef};
use crate::error::{Error, Result};
use crate::partition::key::{below, level_bits};
use crate::partition::{cosmos, PartitionKey, PhysicalPartition, Placement};
use crate::storage::keys;
use crate::storage::keys::decode_lp_stats;
use crate::storage::Store;

/// Splits partition `pp_id` of `def`; `Ok(false)` when it holds a single EPK coordinate (one
/// logical partition cannot be divided). Commits and updates `def` on success.
pub fn split(store: &Store, def: &mut ContainerDef, pp_id: u32) -> Result<bool> {
    split_by(store, def, pp_id, false)
}

/// Splits partition `pp_id` of `def` for throughput, as the service does when RU/s are raised
/// past what the partitions serve: at its byte median when it holds two logical partitions or
/// more, so that each child takes about half the data (azure-cosmos's
/// `test_latest_session_token_from_pk`, run on live accounts, writes keys `A1`..`A10`, whose
/// hashes all lie below the middle of the key space, raises 400 → 11,000 RU/s and expects `A1`,
/// the seventh of them, in the second child); else at the middle of its key range (an empty or
/// one-key partition splits too; one half may be empty). A hierarchical key placed by Cosmos's
/// hash always splits at its byte median (its boundaries must be ones a Cosmos EPK can say,
/// `cosmos_boundary`). `Ok(false)` when the range cannot be halved.
pub fn split_for_throughput(store: &Store, def: &mut ContainerDef, pp_id: u32) -> Result<bool> {
    let halve =
        !(def.partition_key.placement == Placement::Cosmos && def.partition_key.is_hierarchical());
    split_by(store, def, pp_id, halve)
}

fn split_by(store: &Store, def: &mut ContainerDef, pp_id: u32, halve: bool) -> Result<bool> {
    let rid = def.rid;
    let index = def
        .partitions
        .partitions
        .iter()
        .position(|p| p.id == pp_id)
        .ok_or_else(|| Error::NotFound {
            what: format!("physical partition {pp_id}"),
        })?;
    let (start, end) = def.partitions.range_of(index);

    let wtxn = store.env.write_txn()?;
    // Logical partitions of the range in EPK order: (coordinate, bytes, items).
    let lo = keys::coordinate_key(rid, start);
    let mut lps = Vec::new();
    for entry in store.lps.range(&wtxn, &crate::storage::from(&lo))? {
        let (k, v) = entry?;
        if k[..4] != rid.to_be_bytes() {
            break;
        }
        let c = keys::epk_of(k).coordinate();
        if end.is_some_and(|e| c >= e) {
            break;
        }
        let (bytes, items, _) = decode_lp_stats(v);
        lps.push((c, bytes, items));
    }
    let total: u64 = lps.iter().map(|l| l.1).sum();
    let mut acc = 0;
    let mut boundary = None;
    let divisible = lps.windows(2).any(|w| w[1].0 > w[0].0);
    if halve && !divisible {
        let top = end.map_or(u64::MAX as u128 + 1, u128::from);
        // Where the key's partitions may start (hash v1: a hash's first coordinate).
        let aligned = !below(def.partition_key.aligned_bits());
        let middle = ((start as u128 + top) / 2) as u64 & aligned;
        if middle <= start {
            return Ok(false);
        }
        return finish(store, wtxn, def, index, pp_id, &lps, (middle, None));
    }
    for (i, (c, bytes, _)) in lps.iter().enumerate() {
        if acc * 2 >= total && i > 0 && *c > lps[i - 1].0 {
            boundary = Some(*c);
            break;
        }
        acc += bytes;
    }
    // The median fell on the last coordinate: cut before it if it is distinct.
    if boundary.is_none() {
        boundary = lps
            .windows(2)
            .rev()
            .find(|w| w[1].0 > w[0].0)
            .map(|w| w[1].0);
    }
    let Some(boundary) = boundary else {
        return Ok(false);
    };
    // Under Cosmos placement a hierarchical key's boundary must be one a Cosmos EPK can say.
    let at = match cosmos_boundary(store, &wtxn, def, start, end, boundary)? {
        Some(b) => b,
        None => return Ok(false),
    };
    finish(store, wtxn, def, index, pp_id, &lps, at)
}

/// Moves the part of partition `pp_id` (at `index`) from `boundary` up to a new partition and
/// commits; `lps` are its logical partitions (coordinate, bytes, items).
fn finish(
    store: &Store,
    mut wtxn: heed::RwTxn,
    def: &mut ContainerDef,
    index: usize,
    pp_id: u32,
    lps: &[(u64, u64, u64)],
    (boundary, cosmos_start): (u64, Option<String>),
) -> Result<bool> {
    let rid = def.rid;
    let child_id = def.partitions.next_id;
    // The feed and the change log are scoped per physical partition: the upper half moves.
    // Both values start with the EPK.
    for dbi in [store.feed, store.log] {
        let mut moved = Vec::new();
        {
            let mut it = dbi.prefix_iter_mut(&mut wtxn, &keys::feed_prefix(rid, pp_id))?;
            while let Some((k, v)) = it.next().transpose()? {
                if keys::epk_of_feed_value(v).coordinate() >= boundary {
                    // The key after the partition: the LSN, and a batch's order within it.
                    moved.push((k[8..].to_vec(), v.to_vec()));
                    // Safety: `k` and `v` are not used after the deletion.
                    unsafe { it.del_current()? };
                }
            }
        }
        for (at, v) in &moved {
            let mut k = keys::feed_prefix(rid, child_id).to_vec();
            k.extend_from_slice(at);
            dbi.put(&mut wtxn, &k, v)?;
        }
    }
    // Index entries carry the EPK just before their trailing id hash.
    let mut moved = Vec::new();
    let mut moved_counts = std::collections::BTreeMap::<[u8; 8], i64>::new();
    let mut moved_terms = std::collections::BTreeMap::<Vec<u8>, i64>::new();
    {
        let mut it = store
            .index
            .prefix_iter_mut(&mut wtxn, &keys::feed_prefix(rid, pp_id))?;
        while let Some((k, v)) = it.next().transpose()? {
            if crate::index::is_count_key(k) {
                continue;
            }
            if crate::index::epk_of_entry(k)?.coordinate() >= boundary {
                *moved_counts
                    .entry(crate::index::term_path(&k[8..]))
                    .or_insert(0) += 1;
                *moved_terms
                    .entry(crate::index::term_of_entry(k).to_vec())
                    .or_insert(0) += 1;
                let mut child_key = k.to_vec();
                child_key[4..8].copy_from_slice(&child_id.to_be_bytes());
                moved.push((child_key, v.to_vec()));
                // Safety: `k` and `v` are not used after the deletion.
                unsafe { it.del_current()? };
            }
        }
    }
    for (k, v) in &moved {
        store.index.put(&mut wtxn, k, v)?;
    }
    // The moved entries' counts go with them.
    let negated = moved_counts.iter().map(|(p, n)| (*p, -n)).collect();
    crate::index::adjust_counts(store, &mut wtxn, rid, pp_id, &negated)?;
    crate::index::adjust_counts(store, &mut wtxn, rid, child_id, &moved_counts)?;
    for (term, n) in &moved_terms {
        crate::index::terms::adjust(store, &mut wtxn, rid, pp_id, term, -n)?;
        crate::index::terms::adjust(store, &mut wtxn, rid, child_id, term, *n)?;
    }

    let (upper_bytes, upper_items) = lps
        .iter()
        .filter(|l| l.0 >= boundary)
        .fold((0, 0), |(b, n), l| (b + l.1, n + l.2));
    let (lower_bytes, lower_items) = lps
        .iter()
        .filter(|l| l.0 < boundary)
        .fold((0, 0), |(b, n), l| (b + l.1, n + l.2));
    // Both halves are new partition key ranges to the REST API: the old range is gone. Range
    // ids come from the partition id counter, so they never meet a partition id of another.
    // The lower half takes the lower id, as the service numbers them (azure-cosmos's routing
    // fixtures: children "3" ["", "1F") and "4" ["1F", "3F") of "99"; its live
    // `test_latest_session_token_from_pk` finds a key of the upper half of range 0 in "2").
    let (lower_range, upper_range) = (child_id, child_id + 1);
    let parent = &mut def.partitions.partitions[index];
    let mut lineage = std::mem::take(&mut parent.range_parents);
    lineage.push(parent.range_id());
    parent.bytes = lower_bytes;
    parent.items = lower_items;
    parent.range_id = Some(lower_range);
    parent.range_parents = lineage.clone();
    let child = PhysicalPartition {
        id: child_id,
        start: boundary,
        lsn: parent.lsn,
        bytes: upper_bytes,
        items: upper_items,
        parent: Some(pp_id),
        range_id: Some(upper_range),
        range_parents: lineage,
        cosmos_start,
    };
    def.partitions.partitions.insert(index + 1, child);
    def.partitions.next_id += 2;
    catalog::put_container(store, &mut wtxn, def)?;
    wtxn.commit()?;
    Ok(true)
}

/// The boundary to split at, given the byte median `c` of the partition `[start, end)`, and
/// the Cosmos EPK it starts at when its coordinate cannot say it (see `cosmos::boundary`).
///
/// A plain key's coordinate is its Cosmos EPK's top bits, so any boundary is exact. A
/// hierarchical key's coordinate holds each level's top bits: a boundary inside the share of
/// one first value (or first two) is exact only if no other first value shares those bits,
/// because Cosmos orders by the whole first value before the next. So the boundary is `c` if
/// the shares it falls in hold one prefix each, else `c` rounded to a coarser level, else the
/// next first-level share; `None` when none of these lies inside the partition.
fn cosmos_boundary(
    store: &Store,
    txn: &heed::RoTxn<heed::WithoutTls>,
    def: &ContainerDef,
    start: u64,
    end: Option<u64>,
    c: u64,
) -> Result<Option<(u64, Option<String>)>> {
    let pkd = &def.partition_key;
    if pkd.placement != Placement::Cosmos || !pkd.is_hierarchical() {
        return Ok(Some((c, None)));
    }
    let levels = pkd.paths.len();
    let rounded = |depth: usize| c & !below(level_bits(levels, depth));
    let key_at_c = lp_key_at(store, txn, def, c)?;
    for depth in (1..=levels).rev() {
        let x = rounded(depth);
        if x <= start {
            continue;
        }
        let needed = cosmos::deepest_level(x, levels) - 1;
        if needed == 0 {
            return Ok(Some((x, None)));
        }
        let Some(key) = &key_at_c else { continue };
        if one_prefix_in_shares(store, txn, def, x, needed, key)? {
            return Ok(Some((x, Some(cosmos::boundary(pkd, x, key)))));
        }
    }
    let share = 1u64 << (64 - level_bits(levels, 1));
    Ok(rounded(1)
        .checked_add(share)
        .filter(|&x| end.is_none_or(|e| x < e))
        .map(|x| (x, None)))
}

/// The key of the first logical partition at or above coordinate `c`.
fn lp_key_at(
    store: &Store,
    txn: &heed::RoTxn<heed::WithoutTls>,
    def: &ContainerDef,
    c: u64,
) -> Result<Option<PartitionKey>> {
    let lo = keys::coordinate_key(def.rid, c);
    let Some((k, v)) = store
        .lps
        .range(txn, &crate::storage::from(&lo))?
        .next()
        .transpose()?
    else {
        return Ok(None);
    };
    if k[..4] != def.rid.to_be_bytes() {
        return Ok(None);
    }
    Ok(decode_lp_stats(v)
        .2
        .and_then(|json| partition_key_of(&json).ok()))
}

fn partition_key_of(json: &serde_json::Value) -> Result<PartitionKey> {
    match json {
        serde_json::Value::Array(values) => PartitionKey::from_json_values(values, "pk"),
        v => PartitionKey::from_json(v, "pk"),
    }
}

/// Whether, for each level `j` in `1..=depth`, every logical partition in the share of
/// coordinate `x`'s first `j` levels has the same first `j` values as `key`.
fn one_prefix_in_shares(
    store: &Store,
    txn: &heed::RoTxn<heed::WithoutTls>,
    def: &ContainerDef,
    x: u64,
    depth: usize,
    key: &PartitionKey,
) -> Result<bool> {
    let levels = def.partition_key.paths.len();
    for j in 1..=depth {
        let low = below(level_bits(levels, j));
        let (lo, hi) = (x & !low, x | low);
        for entry in store.lps.range(
            txn,
            &crate::storage::from(&keys::coordinate_key(def.rid, lo)),
        )? {
            let (k, v) = entry?;
            if k[..4] != def.rid.to_be_bytes() || keys::epk_of(k).coordinate() > hi {
                break;
            }
            let same = decode_lp_stats(v)
                .2
                .and_then(|json| partition_key_of(&json).ok())
                .is_some_and(|other| other.components()[..j] == key.components()[..j]);
            if !same {
                return Ok(false);
            }
        }
    }
    Ok(true)
}
