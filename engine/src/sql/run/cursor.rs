//! Query state kept between pages on the engine's side, when it is too large for the
//! continuation: a DISTINCT's values seen, many GROUP BY groups, items gathered for an unindexed
//! ORDER BY, or the rows of a finished result still to hand out. The continuation then carries
//! only the state's id (DESIGN.md, "Paged aggregates, GROUP BY and DISTINCT", says why).
//!
//! Bounded three ways: one query's state at most [`MAX_STATE`] (past it the query is a 400
//! naming the limit), all of them at most [`MAX_TOTAL`] (the oldest go first), and each kept
//! [`EXPIRY`] after the page that stored it. States are kept as they are, not serialized: a page
//! takes its state out and the next page's goes in under a new id, so a long gather costs no
//! copy per page (a page that fails loses its state: the query starts again). A page's state goes
//! in the continuation instead while it is small ([`INLINE_MAX`]).

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

use super::partial::{Partial, INLINE_MAX};
use super::{Run, Token};
use crate::error::{Error, Result};

/// One query's state between two pages, at most.
pub(super) const MAX_STATE: usize = 64 << 20;
/// Every query's state together, at most.
const MAX_TOTAL: usize = 512 << 20;
/// How long a state waits for its next page.
pub(super) const EXPIRY: Duration = Duration::from_secs(15 * 60);

struct Entry {
    /// The container and query it belongs to: an id does not resume another query.
    rid: u32,
    qhash: u64,
    state: Partial,
    /// Its size, as estimated when it was kept.
    bytes: usize,
    stored: Instant,
}

#[derive(Default)]
struct Cursors {
    map: HashMap<u64, Entry>,
    total: usize,
}

// One store per process: ids are random, and checked against the container and the query.
static CURSORS: LazyLock<Mutex<Cursors>> = LazyLock::new(Default::default);

fn cursors() -> std::sync::MutexGuard<'static, Cursors> {
    // A panic while holding the lock leaves a consistent map (every change is one statement).
    CURSORS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Keeps `state` (about `bytes` long) for the next page of query `qhash` on container `rid`;
/// returns its id.
pub(super) fn put(rid: u32, qhash: u64, state: Partial, bytes: usize) -> Result<u64> {
    if bytes > MAX_STATE {
        return Err(Error::bad(
            "query",
            format!(
                "the query's state between pages (its DISTINCT values, GROUP BY groups or rows to sort) would take {} MB, over the {} MB the engine keeps for one query; narrow it with a filter, TOP or an ORDER BY on an indexed path",
                bytes >> 20,
                MAX_STATE >> 20
            ),
        ));
    }
    let mut c = cursors();
    let now = Instant::now();
    let expired: Vec<u64> = c
        .map
        .iter()
        .filter(|(_, e)| now.duration_since(e.stored) > EXPIRY)
        .map(|(id, _)| *id)
        .collect();
    for id in expired {
        c.drop_entry(id);
    }
    while c.total + bytes > MAX_TOTAL {
        let Some(oldest) = c
            .map
            .iter()
            .min_by_key(|(_, e)| e.stored)
            .map(|(id, _)| *id)
        else {
            break;
        };
        c.drop_entry(oldest);
    }
    let id = loop {
        let id = rand::random::<u64>();
        if id != 0 && !c.map.contains_key(&id) {
            break id;
        }
    };
    c.total += bytes;
    c.map.insert(
        id,
        Entry {
            rid,
            qhash,
            state,
            bytes,
            stored: now,
        },
    );
    Ok(id)
}

/// Takes out the state stored under `id` for this query; a 400 once it expired, was evicted,
/// was taken by an earlier page, or the engine restarted (the query must start again).
pub(super) fn take(id: u64, rid: u32, qhash: u64) -> Result<Partial> {
    let mut c = cursors();
    match c.map.get(&id) {
        Some(e) if e.rid == rid && e.qhash == qhash => {}
        Some(_) => {
            return Err(Error::bad(
                "continuation",
                "the continuation belongs to another query or container",
            ))
        }
        None => {
            return Err(Error::bad(
                "continuation",
                format!(
                    "the query's state between pages is gone (kept {} minutes after a page, once, and not across an engine restart); run the query again",
                    EXPIRY.as_secs() / 60
                ),
            ))
        }
    }
    let e = c.map.remove(&id).expect("checked above");
    c.total -= e.bytes;
    Ok(e.state)
}

impl<'a> Run<'a> {
    /// The state the continuation carries or names (`None` on a first page).
    pub(super) fn take_partial(&mut self, token: &mut Token) -> Result<Option<Partial>> {
        if let Some(p) = token.partial.take() {
            return Ok(Some(p));
        }
        match token.cursor.take() {
            Some(id) => take(id, self.def.rid, self.qhash).map(Some),
            None => Ok(None),
        }
    }

    /// Puts `p` in the continuation, or on the engine's side when it is too long for it.
    pub(super) fn keep_partial(&mut self, token: &mut Token, p: Partial) -> Result<()> {
        let estimate = p.estimate();
        // JSON values, strings and numbers: serializing cannot fail.
        if estimate <= 4 * INLINE_MAX
            && serde_json::to_vec(&p)
                .expect("query states serialize")
                .len()
                <= INLINE_MAX
        {
            token.partial = Some(p);
        } else {
            token.cursor = Some(put(self.def.rid, self.qhash, p, estimate)?);
        }
        Ok(())
    }
}

impl Cursors {
    fn drop_entry(&mut self, id: u64) {
        if let Some(e) = self.map.remove(&id) {
            self.total -= e.bytes;
        }
    }
}
