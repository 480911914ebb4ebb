//! Change-feed continuations: an LSN per EPK range, so a reader survives partition splits.
//!
//! A token holds cursors over EPK coordinate ranges, not physical partition ids. When the range a
//! cursor covers is now owned by two partitions (a split), the cursor is refined into one per
//! child, each starting from the parent's LSN: the child continues its parent's LSN sequence and
//! the moved entries keep their LSNs, so nothing is lost and nothing repeats.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
/// Ranges are partition's (a query is confined by them too); the feed keeps cursors over them.
pub use crate::partition::FeedRange;
use crate::partition::PartitionMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ChangeFeedMode {
    /// Each item once, at its latest version, in LSN order; deletes are not shown.
    LatestVersion,
    /// Every create, replace and delete (TTL purges flagged), within the container's retention.
    AllVersionsAndDeletes,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cursor {
    pub range: FeedRange,
    /// The physical partition that owned `range` when the cursor was last refined.
    pub partition: u32,
    /// Entries with an LSN above this are still to be read.
    pub lsn: u64,
    /// A latest-version walk from the beginning, cut by a page's end: its count so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) count: Option<FeedCount>,
}

/// The latest-version entries a walk from the beginning has met so far, carried in the cursor
/// for the check of `audit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeedCount {
    /// The partition's LSN when the count began.
    pub l: u64,
    /// The partition's coordinate range then (a split changes it without moving the LSN).
    pub s: u64,
    pub e: Option<u64>,
    /// Entries met.
    pub n: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeedToken {
    pub rid: u32,
    pub mode: ChangeFeedMode,
    /// Only changes at or after this time (seconds), for "start from a point in time".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<u64>,
    /// Only this logical partition (its EPK, hex), for a feed of one partition key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epk: Option<String>,
    /// Only keys starting with these values (a hierarchical key's prefix, as a JSON array): the
    /// cursors cover the prefix's coordinate range, which other prefixes may share.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<serde_json::Value>,
    pub cursors: Vec<Cursor>,
}

impl FeedToken {
    pub fn encode(&self) -> String {
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(self).expect("a token always serializes"))
    }

    pub fn decode(s: &str, rid: u32) -> Result<FeedToken> {
        let bad = || {
            Error::bad(
                "continuation",
                "not a change-feed continuation of this container",
            )
        };
        let bytes = URL_SAFE_NO_PAD.decode(s).map_err(|_| bad())?;
        let t: FeedToken = serde_json::from_slice(&bytes).map_err(|_| bad())?;
        if t.rid != rid {
            return Err(bad());
        }
        // The one logical partition's EPK is matched as written (`read.rs`): one that is not
        // the 32 lower-case hex digits `initial_token` writes would match nothing, a feed that
        // answers "nothing new" forever instead of the 400 a bad token is.
        let epk_ok =
            |e: &String| e.len() == 32 && e.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if t.epk.as_ref().is_some_and(|e| !epk_ok(e)) {
            return Err(bad());
        }
        Ok(t)
    }

    /// Splits every cursor along the current partition boundaries.
    pub fn refine(&mut self, map: &PartitionMap) {
        let mut out = Vec::with_capacity(self.cursors.len());
        for c in &self.cursors {
            for i in 0..map.len() {
                let (s, e) = map.range_of(i);
                if let Some(range) = c.range.intersect(s, e) {
                    let partition = map.partitions[i].id;
                    out.push(Cursor {
                        range,
                        partition,
                        lsn: c.lsn,
                        // A count is of one partition's entries (its bounds are checked too).
                        count: c.count.filter(|_| partition == c.partition),
                    });
                }
            }
        }
        self.cursors = out;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refining_after_a_split_keeps_the_lsn_on_both_children() {
        let mut map = PartitionMap::evenly(1);
        let mut t = FeedToken {
            rid: 1,
            mode: ChangeFeedMode::LatestVersion,
            since: None,
            epk: None,
            prefix: None,
            cursors: vec![Cursor {
                range: FeedRange::FULL,
                partition: 0,
                lsn: 42,
                count: None,
            }],
        };
        map.partitions.push(crate::partition::PhysicalPartition {
            id: 1,
            start: 1 << 63,
            lsn: 42,
            bytes: 0,
            items: 0,
            parent: Some(0),
            range_id: None,
            range_parents: vec![0],
            cosmos_start: None,
        });
        t.refine(&map);
        assert_eq!(t.cursors.len(), 2);
        assert!(t.cursors.iter().all(|c| c.lsn == 42));
        assert_eq!(t.cursors[0].range.end, Some(1 << 63));
        assert_eq!(FeedToken::decode(&t.encode(), 1).unwrap(), t);
        assert!(FeedToken::decode(&t.encode(), 2).is_err());
        assert!(FeedToken::decode("garbage!", 1).is_err());
    }

    #[test]
    fn a_token_whose_partition_epk_is_not_one_is_refused() {
        let with = |epk: &str| FeedToken {
            rid: 1,
            mode: ChangeFeedMode::LatestVersion,
            since: None,
            epk: Some(epk.to_owned()),
            prefix: None,
            cursors: vec![],
        };
        let good = with(&"0123456789abcdef".repeat(2));
        assert_eq!(FeedToken::decode(&good.encode(), 1).unwrap(), good);
        for bad in ["", "zz", &"0".repeat(31), &"A".repeat(32), &"0".repeat(34)] {
            let e = FeedToken::decode(&with(bad).encode(), 1).unwrap_err();
            assert_eq!(e.status_code(), 400, "{bad}");
        }
    }
}
