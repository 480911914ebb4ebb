//! What background work started by a page has done so far: a change-feed worker carrying a
//! rename to every copy reports, per change it handles, the copies it rewrote and the RU that
//! cost (measured on its own ledger, [`cosmos::ledger::measured`]); the page that made the
//! change shows those figures and refreshes until the workers are done. That trade-off — one
//! cheap write on the page, many writes behind it — is what denormalizing is about, so the page
//! says it in RU rather than "reload to follow".
//!
//! Kept twice. In this process's memory, for the worker that must know whether a rename is in
//! progress (free, and asked for every change it copies); and, when the app gives a lease
//! container ([`Propagations::kept_in`]), as one small document per rename in it, under the
//! partition `progress:<processor>` (beside the leases and `deadLetter:<processor>`), each
//! report adding its copies and RU with a patch's `incr`. So the figures survive a restart and
//! show on the page whichever app process's worker held the lease: with two processes on one
//! account, the worker that carried a rename is often the other one's. A page that finds
//! nothing in memory reads that document (one point read, on its own footer).

use std::collections::HashMap;
use std::sync::Arc;

use cosmos::{Container, Labelled, PatchOperation};
use parking_lot::Mutex;
use serde_json::{json, Value};

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
/// worker both make (e.g. [`key`]`("category", id, new_name)`), and where they are kept for the
/// other processes. Registered as app data.
#[derive(Clone, Default)]
pub struct Propagations {
    memory: Arc<Mutex<(u64, HashMap<String, Progress>)>>,
    store: Option<Store>,
}

/// The lease container and the partition the figures are kept in.
#[derive(Clone)]
struct Store {
    leases: Container,
    partition: String,
}

/// A report's increments (what one call adds to the kept document).
#[derive(Default)]
struct Delta {
    copies: u64,
    charge: f64,
    /// Set when this report is the first to say the change was handled (Unix seconds).
    handled_at: Option<u64>,
    downstream_copies: u64,
    downstream_charge: f64,
}

impl Delta {
    fn is_empty(&self) -> bool {
        self.copies == 0
            && self.charge == 0.0
            && self.handled_at.is_none()
            && self.downstream_copies == 0
            && self.downstream_charge == 0.0
    }
}

/// The lease-container partition holding `processor`'s rename figures.
pub fn partition(processor: &str) -> String {
    format!("progress:{processor}")
}

/// The document id of `key`: ids may not hold `/`, `\`, `?` or `#` and a name may, so the
/// kind (readable in the Data Explorer) and a hash of the whole key (FNV-1a, stable across
/// builds, unlike std's hasher).
fn document_id(key: &str) -> String {
    let kind = key.split('\u{1f}').next().unwrap_or_default();
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{kind}-{hash:016x}")
}

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
    /// Figures kept in this process's memory only (an app without a lease container, tests).
    pub fn new() -> Propagations {
        Propagations::default()
    }

    /// Figures kept in `leases` too, under [`partition`]`(processor)`, for the pages of every
    /// app process and after a restart.
    pub fn kept_in(leases: Container, processor: &str) -> Propagations {
        Propagations {
            memory: Arc::default(),
            store: Some(Store {
                leases,
                partition: partition(processor),
            }),
        }
    }

    /// A worker's report on `key`: `copies` more rewritten for `request_charge` more RU;
    /// `handled` once it has finished with the change (a failed attempt reports its RU with
    /// `handled` false, and the retry reports again). Kept in memory, then in the lease
    /// container when there is one (a failure to keep it is logged, not the worker's failure:
    /// the copies are made either way).
    pub async fn add(&self, key: &str, copies: u64, request_charge: f64, handled: bool) {
        let delta = self.remember(key, copies, request_charge, handled);
        self.keep(key, delta).await;
    }

    fn remember(&self, key: &str, copies: u64, request_charge: f64, handled: bool) -> Delta {
        let mut guard = self.memory.lock();
        let (seq, map) = &mut *guard;
        *seq += 1;
        let p = map.entry(key.to_owned()).or_default();
        p.copies += copies;
        p.request_charge = round(p.request_charge + request_charge);
        let mut handled_at = None;
        if handled && !p.handled {
            p.handled_at = crate::pages::time::unix_now();
            handled_at = Some(p.handled_at);
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
        Delta {
            copies,
            charge: request_charge,
            handled_at,
            ..Delta::default()
        }
    }

    /// A later worker's report: copies it made of an item the first worker changed (the item's
    /// `_ts`, Unix seconds) flow from the rename `key` when one is in progress — started and not
    /// finished before the item changed — in this process (the first worker's report is how
    /// it knows: asking the kept document for every item copied would cost a read each).
    /// Anything else (a copy of a new like, say) is not the rename's, and nothing is recorded.
    /// Whether it counted; what counted is kept by [`keep_downstream`](Self::keep_downstream).
    pub fn add_downstream(&self, key: &str, changed_at: u64, copies: u64, charge: f64) -> bool {
        let mut guard = self.memory.lock();
        let (seq, map) = &mut *guard;
        let Some(p) = map.get_mut(key) else {
            return false;
        };
        if p.handled && changed_at > p.handled_at {
            return false;
        }
        *seq += 1;
        p.downstream_copies += copies;
        p.downstream_charge = round(p.downstream_charge + charge);
        p.seq = *seq;
        true
    }

    /// Keeps, in the lease container, downstream copies that [`add_downstream`](Self::add_downstream)
    /// counted (a worker adds up a batch's first: one write per rename per batch).
    pub async fn keep_downstream(&self, key: &str, copies: u64, charge: f64) {
        let delta = Delta {
            downstream_copies: copies,
            downstream_charge: charge,
            ..Delta::default()
        };
        self.keep(key, delta).await;
    }

    /// Adds `delta` to `key`'s document: a patch of increments (two processes' reports add up
    /// whatever their order), creating the document on the first report.
    async fn keep(&self, key: &str, delta: Delta) {
        let Some(store) = &self.store else { return };
        if delta.is_empty() {
            return;
        }
        if let Err(e) = store.add(key, &delta).await {
            tracing::warn!(key, error = %e, "a rename's figures could not be kept");
        }
    }

    /// What the workers reported on `key` so far, in this process's memory (`None`: nothing).
    pub fn get(&self, key: &str) -> Option<Progress> {
        self.memory.lock().1.get(key).cloned()
    }

    /// What the workers reported on `key` so far: this process's memory, or else (another
    /// process's worker, or before a restart) the kept document — one point read, charged to
    /// the caller's page.
    pub async fn load(&self, key: &str) -> cosmos::Result<Option<Progress>> {
        if let Some(p) = self.get(key) {
            return Ok(Some(p));
        }
        match &self.store {
            Some(store) => store.get(key).await,
            None => Ok(None),
        }
    }
}

fn round(ru: f64) -> f64 {
    (ru * 100.0).round() / 100.0
}

impl Store {
    async fn add(&self, key: &str, d: &Delta) -> cosmos::Result<()> {
        let id = document_id(key);
        let mut ops = vec![
            PatchOperation::increment("/copies", d.copies),
            PatchOperation::increment("/requestCharge", d.charge),
            PatchOperation::increment("/downstreamCopies", d.downstream_copies),
            PatchOperation::increment("/downstreamCharge", d.downstream_charge),
        ];
        if let Some(at) = d.handled_at {
            ops.push(PatchOperation::set("/handled", true));
            ops.push(PatchOperation::set("/handledAt", at));
        }
        // Patch first (every report but the first); a missing document is created, and one
        // created meanwhile by another process is patched after all.
        for _ in 0..2 {
            match self
                .leases
                .patch_item::<Value>(&id, self.partition.as_str(), &ops, None)
                .await
            {
                Err(cosmos::Error::NotFound { .. }) => {}
                other => return other.map(|_| ()),
            }
            let doc = json!({
                "id": id,
                "processor": self.partition,
                "key": key.split('\u{1f}').collect::<Vec<_>>(),
                "copies": d.copies,
                "requestCharge": d.charge,
                "handled": d.handled_at.is_some(),
                "handledAt": d.handled_at.unwrap_or(0),
                "downstreamCopies": d.downstream_copies,
                "downstreamCharge": d.downstream_charge,
            });
            match self.leases.create_item(&doc, None, None).await {
                Err(cosmos::Error::Conflict { .. }) => continue,
                other => return other.map(|_| ()),
            }
        }
        Ok(())
    }

    async fn get(&self, key: &str) -> cosmos::Result<Option<Progress>> {
        let doc = match self
            .leases
            .read_item::<Value>(&document_id(key), self.partition.as_str(), None)
            .labelled("read the rename's figures (leases)")
            .await
        {
            Ok(r) => r.resource.unwrap_or_default(),
            Err(cosmos::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        Ok(Some(Progress {
            copies: doc["copies"].as_u64().unwrap_or(0),
            request_charge: round(doc["requestCharge"].as_f64().unwrap_or(0.0)),
            handled: doc["handled"].as_bool().unwrap_or(false),
            handled_at: doc["handledAt"].as_u64().unwrap_or(0),
            downstream_copies: doc["downstreamCopies"].as_u64().unwrap_or(0),
            downstream_charge: round(doc["downstreamCharge"].as_f64().unwrap_or(0.0)),
            seq: 0,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reports_add_up_per_key_and_the_oldest_are_forgotten() {
        let p = Propagations::new();
        let k = key("category", "c1", "Bikes");
        assert_eq!(p.get(&k), None);
        p.add(&k, 0, 12.5, false).await;
        p.add(&k, 7, 40.25, true).await;
        let got = p.get(&k).unwrap();
        assert_eq!(
            (got.copies, got.request_charge, got.handled),
            (7, 52.75, true)
        );
        // Another rename of the same category is another key.
        assert_eq!(p.get(&key("category", "c1", "Cycles")), None);
        for i in 0..KEPT {
            p.add(&format!("k{i}"), 1, 1.0, true).await;
        }
        assert_eq!(p.get(&k), None, "the oldest is forgotten past {KEPT}");
        assert!(p.get(&format!("k{}", KEPT - 1)).is_some());
    }

    #[tokio::test]
    async fn downstream_copies_count_only_for_a_rename_in_progress() {
        let p = Propagations::new();
        let k = key("username", "u1", "newcomer");
        // No rename started under that key: a copy of a post is not a rename's.
        assert!(!p.add_downstream(&k, 10, 2, 4.0));
        assert_eq!(p.get(&k), None);
        p.add(&k, 0, 0.0, false).await;
        assert!(p.add_downstream(&k, 10, 2, 4.0));
        p.add(&k, 5, 20.0, true).await;
        let done = p.get(&k).unwrap();
        assert_eq!((done.copies, done.request_charge), (5, 20.0));
        assert_eq!((done.downstream_copies, done.downstream_charge), (2, 4.0));
        // Items the rename changed come through the next feed after it finished...
        assert!(p.add_downstream(&k, done.handled_at, 1, 1.5));
        // ...but an item changed later (a like) is not the rename's.
        assert!(!p.add_downstream(&k, done.handled_at + 1, 1, 1.5));
        assert_eq!(p.get(&k).unwrap().downstream_copies, 3);
    }

    /// Issue 37: the figures a worker in one process reports are on the page of another (or of
    /// this one after a restart): two `Propagations` on one lease container stand for the two
    /// processes; their reports add up in one document.
    #[tokio::test]
    async fn kept_figures_are_seen_by_another_process_and_add_up() {
        let (db, _dir) = crate::test_database().await;
        let leases = db
            .create_container_if_not_exists(cosmos::ContainerProperties::new(
                "leases",
                "/processor",
            ))
            .await
            .unwrap();
        let worker = Propagations::kept_in(leases.clone(), "w");
        let page = Propagations::kept_in(leases.clone(), "w");
        // A name a document id may not hold.
        let k = key("category", "c/1", "Bikes #1 / ? \\");
        assert_eq!(page.load(&k).await.unwrap(), None);
        worker.add(&k, 0, 0.0, false).await; // registration only: nothing written
        assert_eq!(page.load(&k).await.unwrap(), None);
        worker.add(&k, 0, 2.5, false).await;
        worker.add(&k, 7, 40.25, true).await;
        assert!(worker.add_downstream(&k, 0, 3, 6.0));
        worker.keep_downstream(&k, 3, 6.0).await;
        let seen = page.load(&k).await.unwrap().expect("kept");
        let mine = worker.get(&k).unwrap();
        assert_eq!(
            (
                seen.copies,
                seen.request_charge,
                seen.handled,
                seen.handled_at
            ),
            (7, 42.75, true, mine.handled_at)
        );
        assert_eq!((seen.downstream_copies, seen.downstream_charge), (3, 6.0));
        // The other process's own worker reports on the same rename: added, not overwritten.
        page.add(&k, 1, 1.25, true).await;
        let both = Propagations::kept_in(leases.clone(), "w")
            .load(&k)
            .await
            .unwrap()
            .unwrap();
        assert_eq!((both.copies, both.request_charge), (8, 44.0));
        // Another processor's figures are another partition.
        let other = Propagations::kept_in(leases, "x");
        assert_eq!(other.load(&k).await.unwrap(), None);
        // A process without a lease container remembers only what it saw.
        assert_eq!(Propagations::new().load(&k).await.unwrap(), None);
    }

    #[test]
    fn the_status_link_encodes_the_name_and_the_id() {
        assert_eq!(
            status_link("/admin/renames/tag/a b&c", "Rock & Roll", 7),
            "/admin/renames/tag/a+b%26c?to=Rock+%26+Roll&at=7"
        );
    }
}
