//! One container as every check reads it: one read transaction (a consistent snapshot) and
//! one verdict on what is live.

use heed::RoTxn;

use crate::catalog::ContainerDef;
use crate::storage::Store;

/// One container as every check reads it: one snapshot, and one verdict on what is live.
pub(super) struct Container<'a> {
    pub store: &'a Store,
    pub rtxn: &'a RoTxn<'a>,
    pub def: &'a ContainerDef,
    /// The prefix of the container's keys, in every table.
    pub prefix: [u8; 4],
    /// A rebuild rewrites the index entries: they are not compared with the items meanwhile.
    pub rebuilding: bool,
    /// One `now` for every TTL decision, so items and their index entries agree on what expired.
    pub now: u64,
    /// Whether the store keeps the index's term counters (`index::terms`).
    pub terms_known: bool,
}
