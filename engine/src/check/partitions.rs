//! The partition map and its counters: the catalog's records of partitions against the items.

use std::collections::BTreeMap;

use super::report::Problems;
use super::snapshot::Container;
use crate::error::Result;
use crate::partition::Epk;
use crate::storage::keys;

/// Physical partitions tile the space: the first starts at 0, starts strictly increase.
pub(super) fn check_partition_map(c: &Container, problems: &mut Problems) {
    let parts = &c.def.partitions.partitions;
    if parts.first().map(|p| p.start) != Some(0) {
        problems.note(
            "partition map",
            "the first physical partition does not start at 0".into(),
        );
    }
    for w in parts.windows(2) {
        if w[0].start >= w[1].start {
            problems.note(
                "partition map",
                format!(
                    "physical partitions {} and {} overlap or are out of order",
                    w[0].id, w[1].id
                ),
            );
        }
    }
}

/// Each physical partition's item counter matches the items it holds.
pub(super) fn check_physical_partition_counters(
    c: &Container,
    per_pp: &BTreeMap<u32, u64>,
    problems: &mut Problems,
) {
    for (pp, n) in per_pp {
        if let Some(p) = c.def.partitions.by_id(*pp) {
            if p.items != *n {
                problems.note(
                    "counter",
                    format!(
                        "physical partition {pp} counts {} items, holds {n}",
                        p.items
                    ),
                );
            }
        }
    }
}

/// Each logical partition's stored item count matches the items it holds.
pub(super) fn check_logical_partition_counters(
    c: &Container,
    per_lp: &BTreeMap<[u8; 16], u64>,
    problems: &mut Problems,
) -> Result<()> {
    for (epk, n) in per_lp {
        let stored = c
            .store
            .lps
            .get(c.rtxn, &keys::partition_prefix(c.def.rid, &Epk(*epk)))?
            .map(|v| crate::storage::keys::decode_lp_stats(v).1);
        if stored != Some(*n) {
            problems.note(
                "counter",
                format!(
                    "logical partition {} counts {stored:?} items, holds {n}",
                    keys::show(epk)
                ),
            );
        }
    }
    Ok(())
}
