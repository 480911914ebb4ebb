//! What background work started by a page has done so far: a change-feed worker carrying a
//! rename to every copy reports, per change it handles, the copies it rewrote and the RU that
//! cost (measured on its own ledger, [`cosmos::ledger::measured`]); the page that made the
//! change shows those figures and refreshes until the workers are done. That trade-off — one
//! cheap write on the page, many writes behind it — is what denormalizing is about, so the page
//! says it in RU rather than "reload to follow".
//!
//! Kept in this process's memory: with two app processes on one account, the worker that holds
//! the lease may be the other process's, and this page then says it saw the change handled
//! without its figures.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;

/// Most pieces of work remembered (the oldest go first): one per rename, so plenty for a demo.
const KEPT: usize = 256;

/// One piece of background work: copies rewritten and RU spent so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Progress {
    /// Copies rewritten (items patched or replaced by the workers).
    pub copies: u64,
    /// RU the workers spent on it, failed attempts included.
    pub request_charge: f64,
    /// A worker finished handling the change (it may still flow on to further copies, which a
    /// page learns from [`Workers::pending_after`](crate::background::workers::Workers::pending_after)).
    pub handled: bool,
    /// When the first worker finished (Unix seconds; 0 before): the copies a later worker makes
    /// of items changed until then are the rename's too ([`Propagations::add_downstream`]).
    pub handled_at: u64,
    /// Copies the later workers made of what the first one rewrote, and their RU.
    pub downstream_copies: u64,
    pub downstream_charge: f64,
    /// Order of the last report, to forget the oldest.
    seq: u64,
}

/// The progress of every rename this process's workers handled, by a key the page and the
/// worker both make (e.g. [`key`]`("category", id, new_name)`). Registered as app data.
#[derive(Clone, Default)]
pub struct Propagations(Arc<Mutex<(u64, HashMap<String, Progress>)>>);

/// The key of a rename of `kind` `id` to `name`: the worker sees the new name in the changed
/// document, the page in its link, so a second rename of the same item is told apart.
pub fn key(kind: &str, id: &str, name: &str) -> String {
    format!("{kind}\u{1f}{id}\u{1f}{name}")
}

/// The link to a rename's status page at `path` (e.g. `/admin/renames/category/c1`): the new
/// name and the second the change was made, as its query.
pub fn status_link(path: &str, to: &str, at: u64) -> String {
    let query = form_urlencoded::Serializer::new(String::new())
        .append_pair("to", to)
        .append_pair("at", &at.to_string())
        .finish();
    let path: String = path
        .split('/')
        .map(|segment| form_urlencoded::byte_serialize(segment.as_bytes()).collect::<String>())
        .collect::<Vec<_>>()
        .join("/");
    format!("{path}?{query}")
}

impl Propagations {
    pub fn new() -> Propagations {
        Propagations::default()
    }

    /// A worker's report on `key`: `copies` more rewritten for `request_charge` more RU;
    /// `handled` once it has finished with the change (a failed attempt reports its RU with
    /// `handled` false, and the retry reports again).
    pub fn add(&self, key: &str, copies: u64, request_charge: f64, handled: bool) {
        let mut guard = self.0.lock();
        let (seq, map) = &mut *guard;
        *seq += 1;
        let p = map.entry(key.to_owned()).or_default();
        p.copies += copies;
        p.request_charge = ((p.request_charge + request_charge) * 100.0).round() / 100.0;
        if handled && !p.handled {
            p.handled_at = crate::pages::time::unix_now();
        }
        p.handled |= handled;
        p.seq = *seq;
        if map.len() > KEPT {
            if let Some(oldest) = map
                .iter()
                .min_by_key(|(_, p)| p.seq)
                .map(|(k, _)| k.clone())
            {
                map.remove(&oldest);
            }
        }
    }

    /// A later worker's report: copies it made of an item the first worker changed (the item's
    /// `_ts`, Unix seconds) flow from the rename `key` when one is in progress — started and not
    /// finished before the item changed. Anything else (a copy of a new like, say) is not the
    /// rename's, and nothing is recorded. Whether it counted.
    pub fn add_downstream(&self, key: &str, changed_at: u64, copies: u64, charge: f64) -> bool {
        let mut guard = self.0.lock();
        let (seq, map) = &mut *guard;
        let Some(p) = map.get_mut(key) else {
            return false;
        };
        if p.handled && changed_at > p.handled_at {
            return false;
        }
        *seq += 1;
        p.downstream_copies += copies;
        p.downstream_charge = ((p.downstream_charge + charge) * 100.0).round() / 100.0;
        p.seq = *seq;
        true
    }

    /// What the workers reported on `key` so far (`None`: nothing yet).
    pub fn get(&self, key: &str) -> Option<Progress> {
        self.0.lock().1.get(key).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_add_up_per_key_and_the_oldest_are_forgotten() {
        let p = Propagations::new();
        let k = key("category", "c1", "Bikes");
        assert_eq!(p.get(&k), None);
        p.add(&k, 0, 12.5, false);
        p.add(&k, 7, 40.25, true);
        let got = p.get(&k).unwrap();
        assert_eq!(
            (got.copies, got.request_charge, got.handled),
            (7, 52.75, true)
        );
        // Another rename of the same category is another key.
        assert_eq!(p.get(&key("category", "c1", "Cycles")), None);
        for i in 0..KEPT {
            p.add(&format!("k{i}"), 1, 1.0, true);
        }
        assert_eq!(p.get(&k), None, "the oldest is forgotten past {KEPT}");
        assert!(p.get(&format!("k{}", KEPT - 1)).is_some());
    }

    #[test]
    fn downstream_copies_count_only_for_a_rename_in_progress() {
        let p = Propagations::new();
        let k = key("username", "u1", "newcomer");
        // No rename started under that key: a copy of a post is not a rename's.
        assert!(!p.add_downstream(&k, 10, 2, 4.0));
        assert_eq!(p.get(&k), None);
        p.add(&k, 0, 0.0, false);
        assert!(p.add_downstream(&k, 10, 2, 4.0));
        p.add(&k, 5, 20.0, true);
        let done = p.get(&k).unwrap();
        assert_eq!((done.copies, done.request_charge), (5, 20.0));
        assert_eq!((done.downstream_copies, done.downstream_charge), (2, 4.0));
        // Items the rename changed come through the next feed after it finished...
        assert!(p.add_downstream(&k, done.handled_at, 1, 1.5));
        // ...but an item changed later (a like) is not the rename's.
        assert!(!p.add_downstream(&k, done.handled_at + 1, 1, 1.5));
        assert_eq!(p.get(&k).unwrap().downstream_copies, 3);
    }

    #[test]
    fn the_status_link_encodes_the_name_and_the_id() {
        assert_eq!(
            status_link("/admin/renames/tag/a b&c", "Rock & Roll", 7),
            "/admin/renames/tag/a+b%26c?to=Rock+%26+Roll&at=7"
        );
    }
}
