//! Runs a planned query on storage, one page per call, inside one read transaction.
//!
//! Continuations are positions, not partition ids, so they survive partition splits: the last
//! item key for streamed results (items are keyed by EPK, in partition order), the last index
//! position per EPK range for ORDER BY merges, a row offset for whole results.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use heed::RoTxn;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ast::Query;
use super::eval::Params;
use super::exec;
use super::plan::{self, Mode, Plan, Predicate};
use crate::catalog::ContainerDef;
use crate::error::{Error, Result};
use crate::index::{self, scan};
use crate::partition::{Epk, PartitionKey};
use crate::ru::Meter;
use crate::storage::keys::{self, DocHeader};
use crate::storage::Store;
use crate::ttl;

/// Limits of one page.
#[derive(Debug, Clone, Copy)]
pub struct PageBudget {
    pub max_items: usize,
    /// A streamed page stops after this much work and returns a continuation.
    pub max_request_units: f64,
    pub max_duration: Duration,
}

/// What one page cost and did, like Cosmos DB's query metrics.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct QueryMetrics {
    pub retrieved_document_count: u64,
    pub retrieved_document_size: u64,
    pub output_document_count: u64,
    pub index_lookups: u64,
    /// Share of retrieved items that produced a result (1 = the index found exactly them).
    pub index_hit_ratio: f64,
    pub partitions_visited: usize,
    /// How the query ran (`stream`, `ordered /path`, `whole`; index or scan; routing).
    pub plan: String,
    pub execution_time_ms: f64,
}

/// A result row: a value the executor produced, or an item's stored JSON handed over as it is
/// (when storage selected exactly the rows of a `SELECT *`, nothing needs evaluating or
/// rebuilding: the caller deserializes the bytes straight into its type).
#[derive(Debug, Clone)]
pub enum Row {
    Value(Value),
    Json(Vec<u8>),
}

pub struct Page {
    pub rows: Vec<Row>,
    pub continuation: Option<String>,
    pub meter: Meter,
    pub metrics: QueryMetrics,
    pub partitions: Vec<u32>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Token {
    rid: u32,
    /// Hash of the query text and parameters: a continuation only resumes its own query.
    q: u64,
    /// `s` stream, `o` ordered, `w` whole.
    mode: char,
    /// Stream: the last item key processed (hex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    key: Option<String>,
    /// Ordered: per EPK range start, the last index position consumed (hex, partition-free).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    ranges: Vec<(u64, Option<u64>, Option<String>)>,
    skipped: u64,
    emitted: u64,
    offset: u64,
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Result<Vec<u8>> {
    (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(|| Error::bad("continuation", "malformed continuation token"))
}

pub fn query_hash(sql: &str, params: &Params) -> u64 {
    let mut p: Vec<_> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    p.sort();
    xxhash_rust::xxh3::xxh3_64(format!("{sql}\u{0}{}", p.join("\u{0}")).as_bytes())
}

/// The index an ORDER BY merge scans.
struct OrderIndex {
    hash: [u8; 8],
    /// Scanned from its end: the query's order is the index's reversed.
    backwards: bool,
    describe: String,
}

fn order_index(policy: &index::CompiledPolicy, keys: &[(Vec<String>, bool)]) -> Option<OrderIndex> {
    let name = |p: &[String]| format!("/{}", p.join("/"));
    let dir = |d: bool| if d { "DESC" } else { "ASC" };
    if let [(path, desc)] = keys {
        return policy.indexes(path).then(|| OrderIndex {
            hash: index::path_hash(path),
            backwards: *desc,
            describe: format!("ordered index {} {}", name(path), dir(*desc)),
        });
    }
    policy.composites.iter().find_map(|c| {
        let same_paths = c.len() == keys.len() && c.iter().zip(keys).all(|(a, b)| a.0 == b.0);
        let forwards = same_paths && c.iter().zip(keys).all(|(a, b)| a.1 == b.1);
        let backwards = same_paths && c.iter().zip(keys).all(|(a, b)| a.1 != b.1);
        (forwards || backwards).then(|| OrderIndex {
            hash: index::composite_hash(c),
            backwards,
            describe: format!(
                "ordered composite index ({}){}",
                c.iter()
                    .map(|(p, d)| format!("{} {}", name(p), dir(*d)))
                    .collect::<Vec<_>>()
                    .join(", "),
                if backwards { " backwards" } else { "" }
            ),
        })
    })
}

/// One physical partition the query visits, and the logical partitions it is confined to.
struct Target {
    pp: u32,
    start: u64,
    end: Option<u64>,
    epks: Option<Vec<Epk>>,
}

#[allow(clippy::too_many_arguments)]
pub fn run_page(
    store: &Store,
    rtxn: &RoTxn,
    def: &ContainerDef,
    q: &Query,
    qhash: u64,
    params: &Params,
    partition_key: Option<&PartitionKey>,
    budget: PageBudget,
    continuation: Option<&str>,
) -> Result<Page> {
    let started = Instant::now();
    let pk_path = def.partition_key.segments()?;
    let plan = plan::plan(q, params, &pk_path)?;
    let token = match continuation {
        Some(c) => {
            let bytes = URL_SAFE_NO_PAD
                .decode(c)
                .map_err(|_| Error::bad("continuation", "malformed continuation token"))?;
            let t: Token = serde_json::from_slice(&bytes)
                .map_err(|_| Error::bad("continuation", "malformed continuation token"))?;
            if t.rid != def.rid || t.q != qhash {
                return Err(Error::bad(
                    "continuation",
                    "the continuation belongs to another query or container",
                ));
            }
            Some(t)
        }
        None => None,
    };
    let targets = targets(def, &plan, partition_key);
    let policy = def.policy();
    let index_ready = def.index_rebuild.is_none() && policy.consistent;
    let mut run = Run {
        store,
        rtxn,
        def,
        q,
        params,
        plan: &plan,
        budget,
        started,
        meter: Meter {
            queries: 1,
            ..Default::default()
        },
        metrics: QueryMetrics::default(),
        rows: Vec::new(),
        visited: Vec::new(),
        index_ready,
        matched_docs: 0,
        exact: false,
        last_key: None,
        finished: false,
        now: ttl::now(),
    };
    // An ORDER BY merge needs an index in that order holding every item: the path's range index
    // for one key, a composite index (scanned forwards or backwards) for several.
    let resumed_whole = token.as_ref().is_some_and(|t| t.mode == 'w');
    let order_index = match &plan.mode {
        Mode::Ordered { keys } if index_ready && !resumed_whole => match order_index(&policy, keys)
        {
            Some(ix) if run.all_indexed(&targets, &ix.hash)? => Some(ix),
            _ => None,
        },
        _ => None,
    };
    let mode = match &plan.mode {
        _ if resumed_whole => Mode::Whole,
        Mode::Ordered { .. } if order_index.is_none() => Mode::Whole,
        m => m.clone(),
    };
    let routed = targets.iter().any(|t| t.epks.is_some());
    run.exact =
        !matches!(mode, Mode::Whole) && plan.exact_with(run.access_for(routed, &pk_path), &pk_path);
    let mut token = token.unwrap_or(Token {
        rid: def.rid,
        q: qhash,
        ..Default::default()
    });
    let done = match &mode {
        Mode::Whole => {
            token.mode = 'w';
            run.whole(&targets, &mut token)?
        }
        Mode::Stream => {
            token.mode = 's';
            let done = run.stream(&targets, &mut token)?;
            if let Some(k) = &run.last_key {
                token.key = Some(hex(k));
            }
            done
        }
        Mode::Ordered { .. } => {
            token.mode = 'o';
            let ix = order_index.as_ref().expect("an ordered plan has its index");
            run.ordered(&targets, &ix.hash, ix.backwards, &mut token)?
        }
    };
    let access = match (&order_index, targets.iter().any(|t| t.epks.is_some())) {
        (Some(ix), _) => ix.describe.clone(),
        (_, routed) => match (run.access_for(routed, &pk_path), routed) {
            (Some(p), true) => format!("logical partitions, {}", p.describe()),
            (None, true) => "logical partition scan".into(),
            (Some(p), false) => p.describe(),
            (None, false) => "scan".into(),
        },
    };
    let mode_name = match mode {
        Mode::Stream => "stream",
        Mode::Ordered { .. } => "ordered",
        Mode::Whole => "whole",
    };
    run.meter.partitions_visited = run.visited.len() as u64;
    let mut metrics = run.metrics;
    metrics.output_document_count = run.rows.len() as u64;
    metrics.partitions_visited = run.visited.len();
    metrics.index_hit_ratio = if metrics.retrieved_document_count == 0 {
        1.0
    } else {
        run.matched_docs as f64 / metrics.retrieved_document_count as f64
    };
    let exact = if run.exact { ", exact" } else { "" };
    metrics.plan = format!(
        "{mode_name}{exact}, {access}, {} of {} partitions",
        targets.len(),
        def.partitions.len()
    );
    metrics.execution_time_ms = started.elapsed().as_secs_f64() * 1000.0;
    Ok(Page {
        rows: run.rows,
        continuation: (!done)
            .then(|| URL_SAFE_NO_PAD.encode(serde_json::to_vec(&token).expect("tokens serialize"))),
        meter: run.meter,
        metrics,
        partitions: run.visited,
    })
}

/// The partitions to visit: those owning the partition key values the query is confined to, or
/// every partition.
fn targets(def: &ContainerDef, plan: &Plan, pk: Option<&PartitionKey>) -> Vec<Target> {
    let epks: Option<Vec<Epk>> = match (pk, &plan.partition_values) {
        (Some(pk), _) => Some(vec![pk.epk()]),
        (None, Some(values)) => Some(
            values
                .iter()
                .filter_map(|v| PartitionKey::from_json(v, "pk").ok())
                .map(|p| p.epk())
                .collect(),
        ),
        (None, None) => None,
    };
    (0..def.partitions.len())
        .filter_map(|i| {
            let (start, end) = def.partitions.range_of(i);
            let pp = def.partitions.partitions[i].id;
            match &epks {
                None => Some(Target {
                    pp,
                    start,
                    end,
                    epks: None,
                }),
                Some(all) => {
                    let mut mine: Vec<Epk> = all
                        .iter()
                        .filter(|e| def.partitions.index_of(e) == i)
                        .copied()
                        .collect();
                    mine.sort();
                    mine.dedup();
                    (!mine.is_empty()).then_some(Target {
                        pp,
                        start,
                        end,
                        epks: Some(mine),
                    })
                }
            }
        })
        .collect()
}

/// Index entries of one partition, in order.
type EntryIter<'t> = Box<dyn Iterator<Item = heed::Result<(&'t [u8], &'t [u8])>> + 't>;

struct Run<'a> {
    store: &'a Store,
    rtxn: &'a RoTxn<'a>,
    def: &'a ContainerDef,
    q: &'a Query,
    params: &'a Params,
    plan: &'a Plan,
    budget: PageBudget,
    started: Instant,
    meter: Meter,
    metrics: QueryMetrics,
    rows: Vec<Row>,
    /// The rows are exactly the candidate items (see `Plan::exact_with`).
    exact: bool,
    visited: Vec<u32>,
    index_ready: bool,
    matched_docs: u64,
    /// Streamed: the last item key processed.
    last_key: Option<Vec<u8>>,
    /// OFFSET/LIMIT/TOP are satisfied.
    finished: bool,
    /// `now` for TTL checks, once per page.
    now: u64,
}

impl<'a> Run<'a> {
    fn over_budget(&self) -> bool {
        self.meter.charge() > self.budget.max_request_units
            || self.started.elapsed() > self.budget.max_duration
    }

    fn visit(&mut self, pp: u32) {
        if !self.visited.contains(&pp) {
            self.visited.push(pp);
        }
    }

    /// The index predicate used for candidates, when the policy indexes its path.
    fn access(&self) -> Option<&'a Predicate> {
        if !self.index_ready {
            return None;
        }
        let policy = self.def.policy();
        self.plan
            .predicates
            .iter()
            .find(|p| policy.indexes(p.path()))
    }

    /// The index predicate candidates come from: within known logical partitions, an equality
    /// (or IN) on another indexed path narrows further, and exactly (entries of one value are
    /// ordered by EPK, so each logical partition's are one contiguous range); otherwise the
    /// best indexed predicate.
    fn access_for(&self, routed: bool, pk_path: &[String]) -> Option<&'a Predicate> {
        if routed {
            self.access_besides(pk_path)
                .filter(|p| matches!(p, Predicate::Eq(..) | Predicate::In(..)))
        } else {
            self.access()
        }
    }

    /// The best indexed predicate on a path other than `path` (the partition key, which routing
    /// already used).
    fn access_besides(&self, path: &[String]) -> Option<&'a Predicate> {
        if !self.index_ready {
            return None;
        }
        let policy = self.def.policy();
        self.plan
            .predicates
            .iter()
            .find(|p| p.path() != path && policy.indexes(p.path()))
    }

    fn item(&mut self, v: &[u8]) -> Result<Option<Value>> {
        match self.item_json(v)? {
            Some(json) => Ok(Some(
                serde_json::from_slice(json).map_err(|e| Error::Corrupt(e.to_string()))?,
            )),
            None => Ok(None),
        }
    }

    /// The JSON of a stored item unless its TTL passed; counts it as retrieved.
    fn item_json<'v>(&mut self, v: &'v [u8]) -> Result<Option<&'v [u8]>> {
        let (h, json) =
            DocHeader::decode(v).ok_or_else(|| Error::Corrupt("short item header".into()))?;
        if ttl::is_expired(&h, self.def.default_ttl, self.now) {
            return Ok(None);
        }
        self.meter.scan_item(v.len());
        self.metrics.retrieved_document_count += 1;
        self.metrics.retrieved_document_size += v.len() as u64;
        Ok(Some(json))
    }

    /// Takes one candidate item: its rows (or, exactly selected, the item itself) go to the page.
    /// True when OFFSET/LIMIT/TOP are satisfied.
    fn consume(&mut self, stored: &[u8], token: &mut Token) -> Result<bool> {
        let Some(json) = self.item_json(stored)? else {
            return Ok(false);
        };
        if self.exact {
            self.matched_docs += 1;
            return Ok(self.push(Row::Json(json.to_vec()), token));
        }
        let doc = serde_json::from_slice(json).map_err(|e| Error::Corrupt(e.to_string()))?;
        self.emit(doc, token)
    }

    /// Adds a row unless OFFSET skips it; true when the rows asked for are all there.
    fn push(&mut self, row: Row, token: &mut Token) -> bool {
        let l = self.plan.limits;
        let cap = match (l.top, l.limit) {
            (Some(t), Some(x)) => t.min(x),
            (t, x) => t.or(x).unwrap_or(u64::MAX),
        };
        if token.skipped < l.offset {
            token.skipped += 1;
        } else if token.emitted < cap {
            self.rows.push(row);
            token.emitted += 1;
        }
        token.emitted >= cap
    }

    /// Calls `f` with every candidate item of one target after `after`, in key order: its
    /// logical partitions, the index predicate's matches, or every item of its range. Scans
    /// stream straight from the B-tree; `f` returns false to stop (and so does this).
    fn each_candidate(
        &mut self,
        t: &Target,
        after: Option<&[u8]>,
        mut f: impl FnMut(&mut Self, &[u8], &'a [u8]) -> Result<bool>,
    ) -> Result<bool> {
        let (store, rtxn, rid) = (self.store, self.rtxn, self.def.rid);
        let after_ok = |k: &[u8]| after.is_none_or(|a| k > a);
        let pk_path = self.def.partition_key.segments()?;
        let access = self.access_for(t.epks.is_some(), &pk_path);
        if let (Some(epks), None) = (&t.epks, access) {
            for epk in epks {
                for entry in store
                    .docs
                    .prefix_iter(rtxn, &keys::partition_prefix(rid, epk))?
                {
                    let (k, v) = entry?;
                    if after_ok(k) && !f(self, k, v)? {
                        return Ok(false);
                    }
                }
            }
        } else if let Some(p) = access {
            let prefix = scan::path_prefix(rid, t.pp, p.path());
            let values: &[Value] = match p {
                Predicate::Eq(_, v) => std::slice::from_ref(v),
                Predicate::In(_, vs) => vs,
                _ => &[],
            };
            let ranges: Vec<scan::KeyRange> = match (p, &t.epks) {
                (Predicate::Eq(..) | Predicate::In(..), Some(epks)) => values
                    .iter()
                    .filter_map(|v| scan::equal(&prefix, v))
                    .flat_map(|r| {
                        epks.iter().map(move |e| {
                            let mut from = r.from.clone();
                            from.extend_from_slice(&e.0);
                            scan::KeyRange {
                                to: scan::successor(&from),
                                from,
                            }
                        })
                    })
                    .collect(),
                (Predicate::Eq(..) | Predicate::In(..), None) => values
                    .iter()
                    .filter_map(|v| scan::equal(&prefix, v))
                    .collect(),
                (Predicate::Range(_, lo, hi), _) => scan::range(&prefix, lo.as_ref(), hi.as_ref())
                    .into_iter()
                    .collect(),
                (Predicate::StartsWith(_, s), _) => vec![scan::starts_with(&prefix, s)],
            };
            // Index matches come in value order and may repeat (arrays, IN): sort them by key.
            let mut keys_found = BTreeSet::new();
            for r in ranges {
                let range = (
                    std::ops::Bound::Included(r.from.as_slice()),
                    std::ops::Bound::Excluded(r.to.as_slice()),
                );
                for entry in store.index.range(rtxn, &range)? {
                    let (k, id_key) = entry?;
                    self.meter.index_terms_read += 1;
                    self.metrics.index_lookups += 1;
                    let epk = index::epk_of_entry(k);
                    if t.epks.as_ref().is_some_and(|e| !e.contains(&epk)) {
                        continue;
                    }
                    let mut doc_key = rid.to_be_bytes().to_vec();
                    doc_key.extend_from_slice(&epk.0);
                    doc_key.extend_from_slice(id_key);
                    if after_ok(&doc_key) {
                        keys_found.insert(doc_key);
                    }
                }
            }
            for k in keys_found {
                if let Some(v) = store.docs.get(rtxn, &k)? {
                    if !f(self, &k, v)? {
                        return Ok(false);
                    }
                }
            }
        } else {
            let lo = keys::coordinate_key(rid, t.start);
            let hi = t
                .end
                .map(|e| keys::coordinate_key(rid, e).to_vec())
                .unwrap_or_else(|| (rid + 1).to_be_bytes().to_vec());
            let from = match after {
                Some(a) if a > lo.as_slice() => std::ops::Bound::Excluded(a),
                _ => std::ops::Bound::Included(lo.as_slice()),
            };
            for entry in store
                .docs
                .range(rtxn, &(from, std::ops::Bound::Excluded(hi.as_slice())))?
            {
                let (k, v) = entry?;
                if !f(self, k, v)? {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// Emits the rows of one item, honouring OFFSET/LIMIT/TOP; true when the query is complete.
    fn emit(&mut self, doc: Value, token: &mut Token) -> Result<bool> {
        let rows = exec::item_rows(self.q, self.params, doc)?;
        if !rows.is_empty() {
            self.matched_docs += 1;
        }
        for row in rows {
            if self.push(Row::Value(row), token) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Items in key order, partition after partition. Returns whether the query is complete.
    fn stream(&mut self, targets: &[Target], token: &mut Token) -> Result<bool> {
        let after = token.key.as_deref().map(unhex).transpose()?;
        for t in targets {
            // Partitions wholly before the cursor are done (item keys are ordered by EPK).
            if let (Some(a), Some(end)) = (&after, t.end) {
                if keys::epk_of(a).coordinate() >= end {
                    continue;
                }
            }
            self.visit(t.pp);
            let complete = self.each_candidate(t, after.as_deref(), |run, key, value| {
                if !run.rows.is_empty()
                    && (run.rows.len() >= run.budget.max_items || run.over_budget())
                {
                    return Ok(false);
                }
                run.last_key = Some(key.to_vec());
                if run.consume(value, token)? {
                    run.finished = true;
                    return Ok(false);
                }
                Ok(true)
            })?;
            if self.finished {
                return Ok(true);
            }
            if !complete {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether every item of the targets has a scalar at `path` (so the index holds them all).
    fn all_indexed(&mut self, targets: &[Target], hash: &[u8; 8]) -> Result<bool> {
        for t in targets {
            let prefix = scan::hash_prefix(self.def.rid, t.pp, hash);
            let (entries, items) = match &t.epks {
                // The partition's count of entries for the path: one lookup.
                None => (
                    index::read_count(
                        self.store,
                        self.rtxn,
                        &index::count_key(self.def.rid, t.pp, &prefix[8..]),
                    )?,
                    self.def.partitions.by_id(t.pp).map_or(0, |p| p.items),
                ),
                // Confined to some logical partitions: count their entries and items.
                Some(epks) => {
                    let mut n = 0u64;
                    for entry in self.store.index.prefix_iter(self.rtxn, &prefix)? {
                        let (k, _) = entry?;
                        if !index::is_count_key(k) && epks.contains(&index::epk_of_entry(k)) {
                            n += 1;
                        }
                    }
                    self.meter.index_terms_read += n / 64; // a keys-only count: cheap per entry
                    let items = epks
                        .iter()
                        .map(|e| {
                            self.store
                                .lps
                                .get(self.rtxn, &keys::partition_prefix(self.def.rid, e))
                                .map(|v| {
                                    v.map_or(0, |v| crate::writer::apply::decode_lp_stats(v).1)
                                })
                        })
                        .sum::<heed::Result<u64>>()?;
                    (n, items)
                }
            };
            if entries != items {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The index order of one path, merged across partitions.
    fn ordered(
        &mut self,
        targets: &[Target],
        hash: &[u8; 8],
        descending: bool,
        token: &mut Token,
    ) -> Result<bool> {
        let rid = self.def.rid;
        // Each partition's position: the index key suffix after `rid | partition` last consumed.
        let mut positions: Vec<Option<Vec<u8>>> = targets
            .iter()
            .map(|t| {
                token
                    .ranges
                    .iter()
                    .find(|(s, e, _)| {
                        *s <= t.start && e.is_none_or(|e| t.end.is_some_and(|te| te <= e))
                    })
                    .and_then(|(_, _, k)| k.as_deref().map(unhex))
                    .transpose()
            })
            .collect::<Result<_>>()?;
        let mut iters = Vec::with_capacity(targets.len());
        for (i, t) in targets.iter().enumerate() {
            self.visit(t.pp);
            let prefix = scan::hash_prefix(rid, t.pp, hash);
            let upper = scan::successor(&prefix);
            let resume = positions[i].as_ref().map(|suffix| {
                let mut k = rid.to_be_bytes().to_vec();
                k.extend_from_slice(&t.pp.to_be_bytes());
                k.extend_from_slice(suffix);
                k
            });
            let it: EntryIter = match (descending, &resume) {
                (false, Some(r)) => Box::new(self.store.index.range(
                    self.rtxn,
                    &(
                        std::ops::Bound::Excluded(r.as_slice()),
                        std::ops::Bound::Excluded(upper.as_slice()),
                    ),
                )?),
                (false, None) => Box::new(self.store.index.range(
                    self.rtxn,
                    &(
                        std::ops::Bound::Included(prefix.as_slice()),
                        std::ops::Bound::Excluded(upper.as_slice()),
                    ),
                )?),
                (true, Some(r)) => Box::new(self.store.index.rev_range(
                    self.rtxn,
                    &(
                        std::ops::Bound::Included(prefix.as_slice()),
                        std::ops::Bound::Excluded(r.as_slice()),
                    ),
                )?),
                (true, None) => Box::new(self.store.index.rev_range(
                    self.rtxn,
                    &(
                        std::ops::Bound::Included(prefix.as_slice()),
                        std::ops::Bound::Excluded(upper.as_slice()),
                    ),
                )?),
            };
            iters.push(it.peekable());
        }
        let value_of = |k: &[u8]| k[16..k.len() - 24].to_vec();
        let complete = loop {
            // The next entry in Cosmos order among the partitions' heads.
            let mut best: Option<(usize, Vec<u8>)> = None;
            for (i, it) in iters.iter_mut().enumerate() {
                loop {
                    match it.peek() {
                        Some(Ok((k, _))) if index::is_count_key(k) => {
                            it.next();
                        }
                        Some(Ok((k, _))) => {
                            let epk = index::epk_of_entry(k);
                            if targets[i].epks.as_ref().is_some_and(|e| !e.contains(&epk)) {
                                it.next();
                                continue;
                            }
                            let v = value_of(k);
                            let better = match &best {
                                None => true,
                                Some((_, b)) => {
                                    if descending {
                                        v > *b
                                    } else {
                                        v < *b
                                    }
                                }
                            };
                            if better {
                                best = Some((i, v));
                            }
                            break;
                        }
                        Some(Err(_)) => {
                            if let Some(Err(e)) = it.next() {
                                return Err(e.into());
                            }
                        }
                        None => break,
                    }
                }
            }
            let Some((i, _)) = best else { break true };
            if !self.rows.is_empty()
                && (self.rows.len() >= self.budget.max_items || self.over_budget())
            {
                break false;
            }
            let (k, id_key) = iters[i].next().expect("peeked")?;
            self.meter.index_terms_read += 1;
            self.metrics.index_lookups += 1;
            positions[i] = Some(k[8..].to_vec());
            let mut doc_key = rid.to_be_bytes().to_vec();
            doc_key.extend_from_slice(&index::epk_of_entry(k).0);
            doc_key.extend_from_slice(id_key);
            if let Some(stored) = self.store.docs.get(self.rtxn, &doc_key)? {
                if self.consume(stored, token)? {
                    break true;
                }
            }
        };
        token.ranges = targets
            .iter()
            .zip(positions)
            .map(|(t, p)| (t.start, t.end, p.map(|p| hex(&p))))
            .collect();
        Ok(complete)
    }

    /// Every candidate item through the executor, then a page of the rows by position.
    fn whole(&mut self, targets: &[Target], token: &mut Token) -> Result<bool> {
        let mut docs = Vec::new();
        // A query without FROM reads no items.
        let targets = if self.q.from.is_none() {
            &[][..]
        } else {
            targets
        };
        for t in targets {
            self.visit(t.pp);
            let limit = self.budget.max_duration * 10;
            let complete = self.each_candidate(t, None, |run, _key, value| {
                if run.started.elapsed() > limit {
                    return Ok(false);
                }
                if let Some(doc) = run.item(value)? {
                    docs.push(doc);
                }
                Ok(true)
            })?;
            if !complete {
                return Err(Error::RequestTimeout(format!(
                    "the query needs every matching item at once (aggregates, GROUP BY, DISTINCT or ORDER BY on several or unindexed paths) and ran past {limit:?}; filter on the partition key or an indexed path"
                )));
            }
        }
        let n = docs.len() as u64;
        let all = exec::execute(self.q, self.params, docs)?;
        self.matched_docs = n.min(all.len() as u64);
        let start = token.offset as usize;
        let end = (start + self.budget.max_items).min(all.len());
        let complete = end >= all.len();
        self.rows = all
            .into_iter()
            .skip(start)
            .take(end - start)
            .map(Row::Value)
            .collect();
        token.offset = end as u64;
        Ok(complete)
    }
}
