//! Background purge, run on the writer once a second: items whose TTL passed (found through the
//! `expiry` index, not by scanning) and change-log records older than their retention. Bounded
//! per round so a backlog never stalls the writes queued behind it.

use std::ops::Bound;

use super::apply::{purge_if_expired, Ctx};
use super::{Dirty, State};
use crate::error::Result;
use crate::storage::keys;

/// Most items and log records removed per round.
pub const PURGE_BATCH: usize = 1000;

pub(super) fn run(ctx: &mut Ctx, state: &mut State, dirty: &mut Dirty) -> Result<usize> {
    let mut done = 0;
    for def in state.containers.values_mut() {
        if done >= PURGE_BATCH {
            break;
        }
        let rid = def.rid;
        if def.default_ttl.is_some() {
            let lo = keys::coordinate_key(rid, 0);
            let hi = keys::coordinate_key(rid, ctx.now + 1);
            let range = (Bound::Included(&lo[..]), Bound::Excluded(&hi[..]));
            let due: Vec<Vec<u8>> = ctx
                .store
                .expiry
                .range(ctx.wtxn, &range)?
                .take(PURGE_BATCH - done)
                .map(|e| e.map(|(k, _)| k.to_vec()))
                .collect::<heed::Result<_>>()?;
            for k in due {
                if purge_if_expired(ctx, def, &keys::doc_key_of_expiry(rid, &k))? {
                    done += 1;
                    dirty.containers.insert(rid);
                }
                // The entry is gone with its item; a stale one (never expected) is dropped too.
                ctx.store.expiry.delete(ctx.wtxn, &k)?;
            }
        }
        if let Some(retention) = def.change_feed_retention {
            let cutoff = ctx.now.saturating_sub(retention);
            for pp in &def.partitions.partitions {
                let mut it = ctx
                    .store
                    .log
                    .prefix_iter_mut(ctx.wtxn, &keys::feed_prefix(rid, pp.id))?;
                while done < PURGE_BATCH {
                    match it.next().transpose()? {
                        Some((_, v)) if keys::ts_of_log_value(v) < cutoff => {
                            // Safety: nothing borrowed from the entry outlives the deletion.
                            unsafe { it.del_current()? };
                            done += 1;
                        }
                        _ => break,
                    }
                }
            }
        }
    }
    Ok(done)
}
