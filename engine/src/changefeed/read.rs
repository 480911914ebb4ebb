//! Reading the change feed: one page per call, charged like a query.

use serde_json::Value;

use super::audit::Walk;
use super::token::{ChangeFeedMode, Cursor, FeedRange, FeedToken};
use crate::catalog::ContainerDef;
use crate::client::container::ContainerClient;
use crate::client::response::Diagnostics;
use crate::error::{Error, Result};
use crate::partition::{KeyScope, PartitionKey};
use crate::ru::Meter;
use crate::storage::feed_entry;
use crate::storage::keys::{self, hex, DocHeader};
use crate::ttl;

/// Where a change feed starts when there is no continuation yet.
#[derive(Debug, Clone, PartialEq)]
pub enum ChangeFeedStart {
    Beginning,
    Now,
    /// Changes at or after this time (seconds since the epoch).
    PointInTime(u64),
    Continuation(String),
    /// Changes after this LSN, in every partition read: a Cosmos DB change-feed etag is the LSN
    /// of a range (the SDKs keep it as their continuation, and apps keep a record's `_lsn`).
    AfterLsn(u64),
}

#[derive(Debug, Clone)]
pub struct ChangeFeedOptions {
    pub mode: ChangeFeedMode,
    pub start: ChangeFeedStart,
    pub max_item_count: usize,
    /// Only this EPK range (see `ContainerClient::feed_ranges`); `None` = the whole container.
    pub range: Option<FeedRange>,
    /// Only this logical partition.
    pub partition_key: Option<PartitionKey>,
}

impl Default for ChangeFeedOptions {
    fn default() -> Self {
        ChangeFeedOptions {
            mode: ChangeFeedMode::LatestVersion,
            start: ChangeFeedStart::Beginning,
            max_item_count: 100,
            range: None,
            partition_key: None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct ChangeFeedPage {
    /// Latest-version mode: the items. All-versions mode: `{"current", "metadata"}` records.
    pub items: Vec<Value>,
    /// Pass it back to continue after this page (also when the page is empty).
    pub continuation: String,
    pub request_charge: f64,
    pub diagnostics: Diagnostics,
}

impl ChangeFeedPage {
    /// Cosmos DB answers 304 Not Modified when nothing changed since the continuation.
    pub fn not_modified(&self) -> bool {
        self.items.is_empty()
    }

    /// The continuation as one LSN, when it has a single cursor (a feed of one physical
    /// partition): the form of the service's etag for a feed by partition key range id, which
    /// the SDKs keep as a digit string and send back in `If-None-Match`
    /// ([`ChangeFeedStart::AfterLsn`] reads on from it).
    pub fn lsn(&self) -> Option<u64> {
        let bytes = base64::Engine::decode(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            &self.continuation,
        )
        .ok()?;
        let t: super::token::FeedToken = serde_json::from_slice(&bytes).ok()?;
        match t.cursors.as_slice() {
            [one] if t.since.is_none() && t.epk.is_none() && t.prefix.is_none() => Some(one.lsn),
            _ => None,
        }
    }
}

/// A continuation read for a narrower range than it was made for (the SDKs carry a split
/// range's continuation on to each child): only its cursors' share of that range.
fn narrowed(mut t: FeedToken, range: Option<FeedRange>) -> FeedToken {
    let Some(r) = range else { return t };
    let cursors: Vec<Cursor> = t
        .cursors
        .iter()
        .filter_map(|c| {
            let range = c.range.intersect(r.start, r.end)?;
            Some(Cursor { range, ..c.clone() })
        })
        .collect();
    if !cursors.is_empty() {
        t.cursors = cursors;
    }
    t
}

impl ContainerClient {
    /// The EPK ranges of the current physical partitions (a unit of parallel feed reading).
    pub fn feed_ranges(&self) -> Result<Vec<FeedRange>> {
        let def = self.read_container()?;
        Ok((0..def.partitions.len())
            .map(|i| {
                let (start, end) = def.partitions.range_of(i);
                FeedRange { start, end }
            })
            .collect())
    }

    /// A continuation that starts reading at `start` (not at a previous page).
    pub fn change_feed_token(&self, options: &ChangeFeedOptions) -> Result<String> {
        Ok(self.initial_token(options)?.encode())
    }

    fn initial_token(&self, options: &ChangeFeedOptions) -> Result<FeedToken> {
        let def = self.read_container()?;
        if let ChangeFeedStart::Continuation(c) = &options.start {
            let t = FeedToken::decode(c, def.rid)?;
            if t.mode != options.mode {
                return Err(Error::bad(
                    "continuation",
                    "the continuation is of the other change-feed mode",
                ));
            }
            return Ok(narrowed(t, options.range));
        }
        let scope = options
            .partition_key
            .as_ref()
            .map(|pk| def.partition_key.scope(pk))
            .transpose()?;
        let (epk, prefix) = match &scope {
            Some(KeyScope::Full(e)) => (Some(*e), None),
            Some(KeyScope::Prefix { prefix, .. }) => (None, prefix.to_json()),
            None => (None, None),
        };
        let range = match (&scope, options.range) {
            (Some(scope), _) => {
                let (lo, hi) = scope.coordinates();
                FeedRange {
                    start: lo,
                    end: hi.checked_add(1),
                }
            }
            (None, Some(r)) => r,
            (None, None) => FeedRange::FULL,
        };
        let mut t = FeedToken {
            rid: def.rid,
            mode: options.mode,
            since: match options.start {
                ChangeFeedStart::PointInTime(t) => Some(t),
                _ => None,
            },
            epk: epk.map(|e| e.0.iter().map(|b| format!("{b:02x}")).collect()),
            prefix,
            cursors: vec![Cursor {
                range,
                partition: 0,
                lsn: 0,
                count: None,
            }],
        };
        t.refine(&def.partitions);
        if options.start == ChangeFeedStart::Now {
            for c in &mut t.cursors {
                c.lsn = def.partitions.by_id(c.partition).map_or(0, |p| p.lsn);
            }
        }
        if let ChangeFeedStart::AfterLsn(lsn) = options.start {
            for c in &mut t.cursors {
                c.lsn = lsn;
            }
        }
        Ok(t)
    }

    /// Reads one page of the change feed.
    pub async fn change_feed(&self, options: &ChangeFeedOptions) -> Result<ChangeFeedPage> {
        let shared = self.shared()?;
        let mut token = self.initial_token(options)?;
        if token.mode == ChangeFeedMode::AllVersionsAndDeletes
            && shared.def.load().change_feed_retention.is_none()
        {
            return Err(Error::bad(
                "mode",
                "the all-versions-and-deletes change feed needs a container created with_all_versions_retention",
            ));
        }
        let first = token.cursors.first().map_or(0, |c| c.partition);
        shared.throughput.admit(first)?;
        // A page reads up to `max_item_count` items: on the heavy lane, never on the caller's
        // async thread (a processor's worker shares it with the app's requests).
        let (c, max) = (self.clone(), options.max_item_count.max(1));
        let (items, meter, visited, token) = crate::blocking::heavy(move || {
            let (items, meter, visited) = c.read_page(&mut token, max)?;
            Ok::<_, Error>((items, meter, visited, token))
        })
        .await?;
        let charge = meter.charge();
        for pp in &visited {
            shared
                .throughput
                .charge(*pp, charge / visited.len().max(1) as f64);
        }
        Ok(ChangeFeedPage {
            items,
            continuation: token.encode(),
            request_charge: charge,
            diagnostics: Diagnostics::from_meter(&meter, visited),
        })
    }

    /// Whether a physical partition that `continuation` reads has committed past it, from the
    /// in-memory partition map: no storage read, no charge. A processor's worker asks it when a
    /// commit to the container wakes it, so that a write to one partition does not send every
    /// lease a (charged) read. Conservative: `true` when it cannot tell.
    pub(crate) fn change_feed_may_have_changes(&self, continuation: &str) -> bool {
        let Ok(shared) = self.shared() else {
            return true;
        };
        let def = shared.def.load();
        let Ok(mut token) = FeedToken::decode(continuation, def.rid) else {
            return true;
        };
        token.refine(&def.partitions);
        token.cursors.iter().any(|c| {
            def.partitions
                .by_id(c.partition)
                .is_none_or(|p| p.lsn > c.lsn)
        })
    }

    /// Changes not yet read past `continuation` (the lag of a reader or a lease). It counts
    /// them, so it runs on the heavy lane.
    pub async fn change_feed_pending(&self, continuation: &str) -> Result<u64> {
        let (c, continuation) = (self.clone(), continuation.to_owned());
        crate::blocking::heavy(move || c.count_pending(&continuation)).await
    }

    fn count_pending(&self, continuation: &str) -> Result<u64> {
        let def = self.read_container()?;
        let mut token = FeedToken::decode(continuation, def.rid)?;
        let store = &self.engine.inner.store;
        store.read(|rtxn| {
            let def = self.definition_in(rtxn)?;
            token.refine(&def.partitions);
            let db = match token.mode {
                ChangeFeedMode::LatestVersion => store.feed,
                ChangeFeedMode::AllVersionsAndDeletes => store.log,
            };
            let mut n = 0;
            for c in &token.cursors {
                let from = keys::feed_key(def.rid, c.partition, c.lsn.saturating_add(1));
                for entry in db.range(rtxn, &crate::storage::from(&from))? {
                    let (k, v) = entry?;
                    if k[..8] != keys::feed_prefix(def.rid, c.partition) {
                        break;
                    }
                    if c.range.contains(keys::epk_of_feed_value(v).coordinate()) {
                        n += 1;
                    }
                }
            }
            Ok(n)
        })
    }

    fn read_page(
        &self,
        token: &mut FeedToken,
        max: usize,
    ) -> Result<(Vec<Value>, Meter, Vec<u32>)> {
        let store = &self.engine.inner.store;
        let now = ttl::now();
        store.read(|rtxn| {
            // The partition map of this snapshot: a split commits its map and moved entries together.
            let def = self.definition_in(rtxn)?;
            token.refine(&def.partitions);
            let only_epk = token.epk.clone();
            let only_prefix = match &token.prefix {
                Some(serde_json::Value::Array(values)) => {
                    Some(PartitionKey::from_json_values(values, "continuation")?)
                }
                _ => None,
            };
            let mut meter = Meter {
                queries: 1,
                ..Default::default()
            };
            let mut items = Vec::new();
            let mut visited = Vec::new();
            let db = match token.mode {
                ChangeFeedMode::LatestVersion => store.feed,
                ChangeFeedMode::AllVersionsAndDeletes => store.log,
            };
            let all_versions = token.mode == ChangeFeedMode::AllVersionsAndDeletes;
            'cursors: for c in token.cursors.iter_mut() {
                if items.len() >= max {
                    break;
                }
                visited.push(c.partition);
                let mut walk = Walk::begin(store, rtxn, &def, c, all_versions)?;
                let prefix = keys::feed_prefix(def.rid, c.partition);
                let from = keys::feed_key(def.rid, c.partition, c.lsn.saturating_add(1));
                let mut entries = db.range(rtxn, &crate::storage::from(&from))?.peekable();
                while let Some(entry) = entries.next() {
                    let (k, v) = entry?;
                    walk.key(k)?;
                    if k.get(..8) != Some(prefix.as_slice()) {
                        break;
                    }
                    let lsn = walk.entry(k)?;
                    let epk = keys::epk_of_feed_value(v);
                    let ours = c.range.contains(epk.coordinate())
                        && only_epk.as_deref().is_none_or(|e| *e == hex(&epk.0));
                    if ours {
                        if let Some(item) = load(
                            store,
                            rtxn,
                            &def,
                            token.mode,
                            token.since,
                            (lsn, v),
                            now,
                            &mut meter,
                            &walk,
                        )? {
                            let keep = only_prefix.as_ref().is_none_or(|p| {
                                key_of_change(&def, &item)
                                    .is_some_and(|k| k.components().starts_with(p.components()))
                            });
                            if keep {
                                items.push(item);
                            }
                        }
                    }
                    c.lsn = lsn;
                    // A page ends only after the last write of an LSN: a continuation is an
                    // LSN, and a batch's writes share one (`entry`).
                    let more_of_lsn =
                        matches!(entries.peek(), Some(Ok((next, _))) if feed_entry::same_lsn(k, next));
                    if items.len() >= max && !more_of_lsn {
                        c.count = walk.carry();
                        break 'cursors;
                    }
                }
                walk.finish()?;
                c.count = None;
            }
            meter.partitions_visited = visited.len() as u64;
            if items.is_empty() {
                // Nothing new: the service answers 304 Not Modified. Its price is not documented
                // (RU.md, "Change feed"): charged as a 404 point read, the minimum, not a query
                // page — an idle processor polls every lease every 5 s, forever.
                meter.queries = 0;
            }
            Ok((items, meter, visited))
        })
    }
}

/// The feed item an entry stands for: the item itself (latest version) or the log record.
/// The partition key of a change: the item's (latest version, or an all-versions record's
/// current image), or the one a delete record names.
fn key_of_change(def: &ContainerDef, change: &Value) -> Option<PartitionKey> {
    let doc = change.get("current").unwrap_or(change);
    if doc.get("id").is_some() {
        return def.partition_key.extract(doc).ok();
    }
    match change.pointer("/metadata/partitionKey") {
        Some(Value::Array(values)) => PartitionKey::from_json_values(values, "partitionKey").ok(),
        Some(v) => PartitionKey::from_json(v, "partitionKey").ok(),
        None => None,
    }
}

/// A delete record as the service gives it: `"current": {}` beside its metadata ("Change feed
/// modes", all versions and deletes: a delete's `current` is empty; azure-cosmos's
/// `test_change_feed_all_versions.py` looks for the key). The log stores deletes without it.
fn with_empty_current(record: &mut Value) {
    if let Value::Object(fields) = record {
        if !fields.contains_key("current") {
            fields.insert("current".into(), Value::Object(Default::default()));
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn load(
    store: &crate::storage::Store,
    rtxn: &heed::RoTxn,
    def: &ContainerDef,
    mode: ChangeFeedMode,
    since: Option<u64>,
    (lsn, value): (u64, &[u8]),
    now: u64,
    meter: &mut Meter,
    walk: &Walk,
) -> Result<Option<Value>> {
    match mode {
        ChangeFeedMode::LatestVersion => {
            let mut key = def.rid.to_be_bytes().to_vec();
            key.extend_from_slice(value);
            let Some(v) = store.docs.get(rtxn, &key)? else {
                return Err(walk.no_item(lsn, &key));
            };
            let (h, json) = DocHeader::verify(v)
                .map_err(|d| keys::corrupt_item(&key, &def.full_id(), d.describe()))?;
            walk.item(lsn, &key, h.lsn)?;
            if ttl::is_expired(&h, def.default_ttl, now) || since.is_some_and(|s| h.ts < s) {
                return Ok(None);
            }
            meter.scan_item(v.len());
            Ok(Some(
                serde_json::from_slice(json).map_err(|e| Error::Corrupt(e.to_string()))?,
            ))
        }
        ChangeFeedMode::AllVersionsAndDeletes => {
            if since.is_some_and(|s| keys::ts_of_log_value(value) < s) {
                return Ok(None);
            }
            meter.scan_item(value.len());
            let record = value.get(24..).unwrap_or_default();
            let mut record: Value = serde_json::from_slice(record).map_err(|e| {
                crate::storage::audit::damaged(
                    store,
                    format!(
                        "an all-versions change feed record of container '{}' at LSN {lsn} does not parse: {e}",
                        def.full_id()
                    ),
                )
            })?;
            with_empty_current(&mut record);
            Ok(Some(record))
        }
    }
}
