//! Where a write's change-feed entry lives: `rid · partition · lsn`, and for the writes of a
//! transactional batch after its first, `rid · partition · lsn · seq`.
//!
//! The service gives a transactional batch one LSN (azure-cosmos's `test_batch_lsn`: the
//! batch's `lsn` header is the partition's previous LSN + 1, however many writes it holds), so
//! its items share `_lsn`. The feed is keyed by LSN, so the batch's second and later writes
//! carry their order in the batch after it: such a key sorts after the batch's first entry and
//! before the next LSN, keys written before batches shared an LSN are all of the first form (no
//! migration), and a reader positioned after an LSN skips every entry of that LSN.

use heed::types::Bytes;
use heed::{Database, RwTxn};

use super::keys;
use crate::error::Result;

/// The key of the `seq`-th write (from 0) of LSN `lsn`: the plain 16-byte key for the first.
pub(crate) fn key(rid: u32, partition: u32, lsn: u64, seq: u32) -> Vec<u8> {
    let mut k = keys::feed_key(rid, partition, lsn).to_vec();
    if seq > 0 {
        k.extend_from_slice(&seq.to_be_bytes());
    }
    k
}

/// Whether `k` is a well-formed entry key (16 bytes, or 20 for a batch's later writes).
pub(crate) fn is_key(k: &[u8]) -> bool {
    matches!(k.len(), 16 | 20)
}

/// Whether `next` is another entry of the same LSN (and partition) as `k`: a page never ends
/// between two writes of one batch, so a continuation (an LSN) resumes after all of them.
pub(crate) fn same_lsn(k: &[u8], next: &[u8]) -> bool {
    k.len() >= 16 && next.len() >= 16 && k[..16] == next[..16]
}

/// Deletes the entry at LSN `lsn` of `partition` whose value is `value` (an item's
/// `epk · id`): the one entry of a lone write, or one of a batch's.
pub(crate) fn delete(
    db: Database<Bytes, Bytes>,
    wtxn: &mut RwTxn,
    (rid, partition, lsn): (u32, u32, u64),
    value: &[u8],
) -> Result<()> {
    let plain = keys::feed_key(rid, partition, lsn);
    // The common case, a lone write's entry, without a cursor.
    if db.get(wtxn, &plain)? == Some(value) {
        db.delete(wtxn, &plain)?;
        return Ok(());
    }
    let found = db
        .prefix_iter(wtxn, &plain)?
        .find_map(|e| match e {
            Ok((k, v)) if v == value => Some(Ok(k.to_vec())),
            Ok(_) => None,
            Err(e) => Some(Err(e)),
        })
        .transpose()?;
    if let Some(k) = found {
        db.delete(wtxn, &k)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_sorts_between_its_lsn_and_the_next() {
        let first = key(7, 1, 41, 0);
        let second = key(7, 1, 41, 1);
        let third = key(7, 1, 41, 2);
        let next = key(7, 1, 42, 0);
        assert_eq!(first, keys::feed_key(7, 1, 41).to_vec());
        assert!(first < second && second < third && third < next);
        assert_eq!(keys::lsn_of_feed_key(&third), 41);
        assert!(same_lsn(&first, &third) && !same_lsn(&third, &next));
        assert!(is_key(&first) && is_key(&second) && !is_key(&first[..12]));
    }
}
