//! Physical partitions: each owns a contiguous range of the EPK coordinate space
//! (`[start, next partition's start)`), its own change-feed sequence (LSN) and its own counters.

use serde::{Deserialize, Serialize};

use super::key::Epk;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhysicalPartition {
    pub id: u32,
    /// Inclusive lower bound of the EPK coordinate; the upper bound is the next partition's start.
    pub start: u64,
    /// Last LSN assigned in this partition (a child continues its parent's sequence).
    pub lsn: u64,
    /// Bytes of stored items (documents as stored, keys excluded).
    pub bytes: u64,
    pub items: u64,
    /// The partition this one was split from, if any.
    #[serde(default)]
    pub parent: Option<u32>,
    /// The partition key range id the REST API shows. A split ends both halves' ranges, so
    /// both get new ones (the lower half keeps its partition `id`, which its stored feed and
    /// index entries carry); `None` is the partition's `id` (never split since it was made).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range_id: Option<u32>,
    /// The range ids this partition's range descends from, oldest first (the REST `parents`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub range_parents: Vec<u32>,
    /// Where the range starts as a Cosmos EPK, when the coordinate cannot say it: a split inside
    /// one hierarchical prefix's share (`partition::cosmos::start_of`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cosmos_start: Option<String>,
}

impl PhysicalPartition {
    /// The partition key range id the REST API shows for this partition's current range.
    pub fn range_id(&self) -> u32 {
        self.range_id.unwrap_or(self.id)
    }
}

/// The physical partitions of one container, sorted by `start`; the first starts at 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartitionMap {
    pub partitions: Vec<PhysicalPartition>,
    pub next_id: u32,
}

impl PartitionMap {
    /// `count` partitions splitting the coordinate space evenly.
    #[cfg(test)]
    pub fn evenly(count: u32) -> Self {
        Self::evenly_aligned(count, 64)
    }

    /// `count` partitions splitting the coordinate space evenly, each starting where the first
    /// `aligned_bits` bits change (a hierarchical key's first level: so no partition starts
    /// inside one first value's share of the space).
    ///
    /// A plain key (`aligned_bits` 64) starts its partitions where the service starts a new
    /// container's partition key ranges: at `i * ((2^126 - 1) / count)` of the 126-bit EPK
    /// space (the emulator's five ranges of 30,000 RU/s end at `0CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC`,
    /// `1999…98`, `2666…64`, `3333…30`, which azure-cosmos's `test_circuit_breaker_emulator.py`
    /// reads; two ranges meet at `1FFF…FF`). The EPK is recorded as the partition's Cosmos start
    /// and its coordinate is the EPK's top 64 bits (a key whose EPK shares that coordinate but
    /// lies below the boundary, one in 2^64, is held by the upper partition).
    pub fn evenly_aligned(count: u32, aligned_bits: u32) -> Self {
        let count = count.max(1);
        let step = u64::MAX / count as u64;
        let unit = 1u64.checked_shl(64 - aligned_bits.min(64)).unwrap_or(1);
        let epk_step = ((1u128 << 126) - 1) / count as u128;
        let partitions = (0..count)
            .map(|i| PhysicalPartition {
                id: i,
                start: if aligned_bits >= 64 {
                    ((epk_step * i as u128) >> 62) as u64
                } else {
                    step * i as u64 / unit * unit
                },
                lsn: 0,
                bytes: 0,
                items: 0,
                parent: None,
                range_id: None,
                range_parents: Vec::new(),
                cosmos_start: (aligned_bits >= 64 && i > 0)
                    .then(|| crate::partition::hash::hex(epk_step * i as u128)),
            })
            .collect();
        PartitionMap {
            partitions,
            next_id: count,
        }
    }

    /// Index (in `partitions`) of the partition owning `epk`.
    pub fn index_of(&self, epk: &Epk) -> usize {
        let c = epk.coordinate();
        self.partitions.partition_point(|p| p.start <= c) - 1
    }

    /// Indexes of the partitions owning any coordinate of `lo..=hi`.
    pub fn indexes_overlapping(&self, lo: u64, hi: u64) -> std::ops::RangeInclusive<usize> {
        let at = |c: u64| self.partitions.partition_point(|p| p.start <= c) - 1;
        at(lo)..=at(hi)
    }

    pub fn owner(&self, epk: &Epk) -> &PhysicalPartition {
        &self.partitions[self.index_of(epk)]
    }

    pub fn owner_mut(&mut self, epk: &Epk) -> &mut PhysicalPartition {
        let i = self.index_of(epk);
        &mut self.partitions[i]
    }

    pub fn by_id(&self, id: u32) -> Option<&PhysicalPartition> {
        self.partitions.iter().find(|p| p.id == id)
    }

    /// `(start, end_exclusive)` of partition at `index`; `None` end means the top of the space.
    pub fn range_of(&self, index: usize) -> (u64, Option<u64>) {
        (
            self.partitions[index].start,
            self.partitions.get(index + 1).map(|p| p.start),
        )
    }

    pub fn len(&self) -> usize {
        self.partitions.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_container_s_ranges_start_where_the_service_s_do() {
        // The emulator's five ranges (azure-cosmos's test_circuit_breaker_emulator.py) and
        // the service's two.
        let starts = |n: u32| -> Vec<Option<String>> {
            PartitionMap::evenly_aligned(n, 64)
                .partitions
                .into_iter()
                .map(|p| p.cosmos_start)
                .collect()
        };
        assert_eq!(
            starts(5),
            [
                None,
                Some("0CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC".into()),
                Some("19999999999999999999999999999998".into()),
                Some("26666666666666666666666666666664".into()),
                Some("33333333333333333333333333333330".into()),
            ]
        );
        assert_eq!(
            starts(2)[1].as_deref(),
            Some("1FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF")
        );
        // Each start's coordinate is its EPK's top 64 bits.
        let m = PartitionMap::evenly_aligned(5, 64);
        assert_eq!(m.partitions[1].start, 0x3333_3333_3333_3333);
    }

    fn epk_at(c: u64) -> Epk {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&c.to_be_bytes());
        Epk(b)
    }

    #[test]
    fn owners_cover_the_whole_space() {
        let m = PartitionMap::evenly(4);
        assert_eq!(m.owner(&epk_at(0)).id, 0);
        assert_eq!(m.owner(&epk_at(u64::MAX / 4 - 1)).id, 0);
        assert_eq!(m.owner(&epk_at(u64::MAX / 4)).id, 1);
        assert_eq!(m.owner(&epk_at(u64::MAX)).id, 3);
        assert_eq!(m.range_of(3).1, None);
    }
}
