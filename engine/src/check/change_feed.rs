//! The latest-version change feed: one entry per item, at (its partition, its LSN).

use std::collections::HashSet;

use super::report::Problems;
use super::snapshot::Container;
use crate::error::Result;
use crate::storage::keys;

/// Every feed entry is an item's latest version, and every item has its entry. `expected` are
/// the items' entries (see `Items::feed_entries`).
pub(super) fn check_change_feed(
    c: &Container,
    mut expected: HashSet<(u32, u64, Vec<u8>)>,
    problems: &mut Problems,
) -> Result<()> {
    for entry in c.store.feed.prefix_iter(c.rtxn, &c.prefix)? {
        let (k, v) = entry?;
        if !crate::storage::feed_entry::is_key(k) {
            problems.note(
                "change feed",
                format!("feed key {} is damaged ({} bytes)", keys::show(k), k.len()),
            );
            continue;
        }
        let pp = u32::from_be_bytes(k[4..8].try_into().expect("4"));
        let lsn = keys::lsn_of_feed_key(k);
        if !expected.remove(&(pp, lsn, v.to_vec())) {
            problems.note(
                "change feed",
                format!("feed entry at partition {pp}, LSN {lsn} is not an item's latest version"),
            );
        }
    }
    for (pp, lsn, _) in &expected {
        problems.note(
            "change feed",
            format!(
                "the item written at partition {pp}, LSN {lsn} is missing from the change feed"
            ),
        );
    }
    Ok(())
}
