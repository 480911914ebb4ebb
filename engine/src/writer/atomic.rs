//! All-or-nothing units inside a write group: batches, stored procedures and writes with
//! triggers run in a nested LMDB transaction, and the container's in-memory counters are restored
//! from a copy when they fail.

use super::apply::Ctx;
use crate::catalog::ContainerDef;
use crate::error::{Error, Result};

/// Runs `f` in a nested transaction: commits it on `Ok`, aborts it and restores `def` on `Err`.
/// The outer `Err` is only for storage failures, which abort the whole group.
pub fn atomically<R>(
    ctx: &mut Ctx,
    def: &mut ContainerDef,
    f: impl FnOnce(&mut Ctx, &mut ContainerDef) -> Result<R>,
) -> Result<Result<R>> {
    let before = def.clone();
    let mut child = ctx.store.env.nested_write_txn(ctx.wtxn)?;
    let r = {
        let mut cctx = Ctx {
            store: ctx.store,
            wtxn: &mut child,
            now: ctx.now,
            limits: ctx.limits,
            batch: ctx.batch,
        };
        f(&mut cctx, def)
    };
    match r {
        Ok(v) => {
            child.commit()?;
            Ok(Ok(v))
        }
        Err(e @ Error::Storage(_)) => Err(e),
        Err(e) => {
            child.abort();
            *def = before;
            Ok(Err(e))
        }
    }
}
