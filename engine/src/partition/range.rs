//! Ranges of the EPK coordinate space: what a change-feed cursor covers and what a query's
//! feed range confines it to.

use super::cosmos::EpkRange;
use super::{PartitionKeyDefinition, Placement};

/// A range of the EPK coordinate space `[start, end)`; `end: None` is the top of the space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FeedRange {
    pub start: u64,
    pub end: Option<u64>,
}

impl FeedRange {
    pub const FULL: FeedRange = FeedRange {
        start: 0,
        end: None,
    };

    /// The part of this range inside `[start, end)`, if any.
    pub(crate) fn intersect(&self, start: u64, end: Option<u64>) -> Option<FeedRange> {
        let s = self.start.max(start);
        let e = match (self.end, end) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, None) => a,
            (None, b) => b,
        };
        (e.is_none_or(|e| s < e)).then_some(FeedRange { start: s, end: e })
    }

    pub fn contains(&self, c: u64) -> bool {
        c >= self.start && self.end.is_none_or(|e| c < e)
    }

    /// The coordinates that hold every key whose Cosmos EPK is in `range`, for a container
    /// placed by Cosmos DB's hash (`partition::cosmos::cover`); `None` under the engine's own
    /// placement, where any coordinate may.
    pub fn covering(pkd: &PartitionKeyDefinition, range: &EpkRange) -> Option<FeedRange> {
        (pkd.placement == Placement::Cosmos).then(|| {
            let (lo, hi) = super::cosmos::cover(pkd, range);
            FeedRange {
                start: lo,
                end: hi.checked_add(1),
            }
        })
    }
}
