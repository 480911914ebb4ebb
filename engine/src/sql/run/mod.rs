//! Runs a planned query on storage, one page per call, inside one read transaction.
//!
//! Continuations are positions, not partition ids, so they survive partition splits: the last
//! item key for streamed results (items are keyed by EPK, in partition order), the last index
//! position per EPK range for ORDER BY merges. A result computed whole (aggregates, GROUP BY,
//! DISTINCT with ORDER BY, ORDER BY without its index) gathers page by page in key order too,
//! its partial state carried in the continuation or kept under an id (`partial.rs`).

mod access;
mod audit;
mod count;
mod cursor;
mod mode;
mod ordered;
mod page;
mod partial;
mod stream;
mod token;
mod union;
mod whole;

use std::time::{Duration, Instant};

use heed::RoTxn;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ast::Query;
use super::eval::Params;
use super::exec;
use super::plan::{self, Plan, Predicate};
use crate::catalog::ContainerDef;
use crate::error::{Error, Failed, Result};
use crate::partition::cosmos::EpkRange;
use crate::partition::FeedRange;
use crate::partition::{Epk, KeyScope, PartitionKey};
use crate::ru::Meter;
use crate::storage::keys::DocHeader;
use crate::storage::Store;
use crate::ttl;
use token::{pack, unpack, Resume, Token};

/// Limits of one page.
#[derive(Debug, Clone, Copy)]
pub struct PageBudget {
    pub max_items: usize,
    /// A streamed page stops after this much work and returns a continuation.
    pub max_request_units: f64,
    pub max_duration: Duration,
}

impl PageBudget {
    /// The longest a page may run at all: a page that needs every matching item at once
    /// (aggregates, DISTINCT, unindexed ORDER BY) cannot stop at `max_duration` and continue,
    /// so it gets ten times that before it is a 408; the evaluator (JOIN rows, user-defined
    /// functions) is stopped at the same point.
    pub fn hard_limit(&self) -> Duration {
        self.max_duration * 10
    }
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
    /// Confined to the logical partitions its partition key names (a single-partition query),
    /// rather than fanned out over every physical partition.
    #[serde(default)]
    pub routed: bool,
    /// How the query ran (`stream`, `ordered /path`, `whole`; index or scan; routing).
    pub plan: String,
    pub execution_time_ms: f64,
    /// What each physical partition's share of the page cost: Cosmos DB runs a query on every
    /// partition it visits as a request of its own, so each pays its base and its reads.
    #[serde(default)]
    pub partitions: Vec<PartitionCost>,
}

/// One physical partition's share of a query page.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct PartitionCost {
    pub partition: u32,
    pub items_read: u64,
    pub bytes_read: u64,
    pub index_entries_read: u64,
    pub request_charge: f64,
}

impl PartitionCost {
    fn charge(&mut self) {
        let kb = self.bytes_read as f64 / 1024.0;
        let ru = crate::ru::rate::QUERY
            + self.items_read as f64 * crate::ru::rate::SCAN_ITEM
            + kb * crate::ru::rate::SCAN_PER_KB
            + self.index_entries_read as f64 * crate::ru::rate::INDEX_SCAN;
        self.request_charge = (ru * 100.0).round() / 100.0;
    }
}

/// A result row: a value the executor produced, or, when storage selected exactly the rows of a
/// `SELECT *` (nothing needs evaluating or rebuilding), an item passed through: deserialized
/// into the caller's type straight from the mapped page ([`DecodeRow`]), or its stored JSON
/// copied out when that failed (the caller's own parse then says why: damage or a misfit).
#[derive(Debug)]
pub enum Row {
    Value(Value),
    Json(Vec<u8>),
    /// The caller's row type, as its [`DecodeRow`] built it.
    Typed(Box<dyn std::any::Any + Send>),
}

/// Deserializes a stored item's JSON (valid UTF-8) into the caller's row type, on the storage
/// thread, where the item's bytes are read in place: the caller's async thread then only
/// receives the rows (issue 36: building them is most of a small query's time). `None` when the
/// JSON does not deserialize.
pub type DecodeRow = fn(&str) -> Option<Row>;

pub struct Page {
    pub rows: Vec<Row>,
    pub continuation: Option<String>,
    pub meter: Meter,
    pub metrics: QueryMetrics,
    pub partitions: Vec<u32>,
}

/// An equality conjunct of the filter (`p.type = 'post'`) answered from the index for one
/// candidate item: a lookup of the key its entry would have, instead of loading and evaluating
/// the item. This is how Cosmos DB intersects an index scan with the other conjuncts' postings.
struct IndexCheck {
    /// Which of the plan's predicates it answers.
    predicate: usize,
    /// `path-hash · encoded value`, as the item's entry holds it.
    term: Vec<u8>,
    /// Its lookups' misses so far, told from lost entries (`Run::lost_check_entry`).
    misses: audit::Misses,
}

/// The plan's equality conjuncts on indexed paths with values the index stores whole (strings
/// longer than the index keeps are cut, so those are left to evaluation). The partition key is
/// left out: routing already answered it.
fn index_checks(
    plan: &Plan,
    policy: &crate::index::CompiledPolicy,
    pk_path: &[String],
) -> Vec<IndexCheck> {
    plan.predicates
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match p {
            Predicate::Eq(path, v) if path != pk_path && policy.indexes(path) => {
                if matches!(v, Value::String(s) if s.len() > crate::index::encoding::MAX_STRING_BYTES)
                    || matches!(v, Value::Array(_) | Value::Object(_))
                {
                    return None;
                }
                let mut term = crate::index::path_hash(path).to_vec();
                crate::index::encoding::encode_into(v, &mut term).then_some(IndexCheck {
                    predicate: i,
                    term,
                    misses: Default::default(),
                })
            }
            _ => None,
        })
        .collect()
}

pub fn query_hash(sql: &str, params: &Params) -> u64 {
    /// Feeds serialized JSON to the hasher without building a string.
    struct Feed<'h>(&'h mut xxhash_rust::xxh3::Xxh3);
    impl std::io::Write for Feed<'_> {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.update(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // Parameters combine order-independently (a map has no order).
    params
        .iter()
        .fold(xxhash_rust::xxh3::xxh3_64(sql.as_bytes()), |acc, (k, v)| {
            let mut h = xxhash_rust::xxh3::Xxh3::new();
            h.update(k.as_bytes());
            h.update(&[0]);
            let _ = serde_json::to_writer(Feed(&mut h), v);
            acc ^ h.digest()
        })
}

/// The path whose equality routing answers exactly (so it is neither evaluated nor looked up in
/// the index): a plain key's. A hierarchical key's equalities are all evaluated, since a prefix
/// range is shared with other prefixes; the empty path matches no predicate.
fn routing_path(def: &ContainerDef) -> Result<Vec<String>> {
    if def.partition_key.is_hierarchical() {
        Ok(Vec::new())
    } else {
        def.partition_key.segments()
    }
}

/// One physical partition the query visits, and the logical partitions it is confined to.
struct Target {
    pp: u32,
    start: u64,
    end: Option<u64>,
    epks: Option<Vec<Epk>>,
    /// `start..end` is narrower than the partition's: a hierarchical prefix's share of it.
    narrowed: bool,
}

impl Target {
    /// Whether the item of EPK `epk`, found in this partition's index, is outside the target.
    fn excludes(&self, epk: &Epk) -> bool {
        if let Some(epks) = &self.epks {
            return !epks.contains(epk);
        }
        self.narrowed && {
            let c = epk.coordinate();
            c < self.start || self.end.is_some_and(|e| c >= e)
        }
    }
}

/// Whether the targets are confined to logical partitions (a routed query).
fn is_routed(targets: &[Target]) -> bool {
    targets.iter().any(|t| t.epks.is_some())
}

/// One page of a query: what to run, where it may read, and where the last page stopped.
#[derive(Debug, Clone, Copy)]
pub struct PageRequest<'a> {
    pub q: &'a Query,
    /// [`query_hash`] of the query's text and parameters.
    pub qhash: u64,
    pub params: &'a Params,
    /// Confines the query to this logical partition (or a hierarchical key's prefix).
    pub partition_key: Option<&'a PartitionKey>,
    /// Only items whose Cosmos DB EPK is in this range (see `QueryOptions::epk_range`).
    pub epk_range: Option<&'a EpkRange>,
    pub budget: PageBudget,
    /// The token the previous page handed out; `None` for the first page.
    pub continuation: Option<&'a str>,
    /// Builds the caller's rows of stored items passed through (see [`Row`]).
    pub decode: DecodeRow,
}

/// Runs one page of `req` on container `def`, resuming where its continuation stopped.
/// A page that fails while executing (its hard time limit, a runtime error, damage) fails with
/// what it read: Cosmos DB charges a failed request for the work it did.
pub fn run_page(
    store: &Store,
    rtxn: &RoTxn,
    def: &ContainerDef,
    req: PageRequest,
) -> Result<Page, Failed> {
    let started = Instant::now();
    let pk_path = routing_path(def)?;
    let plan = plan::plan(req.q, req.params, &def.partition_key.all_segments()?)?;
    let resumed = Token::decode(req.continuation, def.rid, req.qhash)?;
    let targets = targets(def, &plan, req.partition_key, req.epk_range)?;
    let policy = def.policy();
    require_full_text_indexes(req.q, &policy)?;
    // Items are evaluated against the filter with its long OR chains as hash lookups.
    let evaluated = plan::evaluated(req.q, req.params);
    let req = PageRequest {
        q: evaluated.as_ref().unwrap_or(req.q),
        ..req
    };
    let mut run = Run::new(store, rtxn, def, &plan, req, started);
    run.use_index_if_ready(&policy, &pk_path);
    let execution = run.choose_execution(&policy, &targets, resumed.as_ref().map(|t| t.mode))?;
    run.exact = run.selects_exactly(&execution.mode, &targets, &pk_path);
    let mut token = resumed.unwrap_or_else(|| Token::first(def.rid, req.qhash));
    run.audit_in = token.audit.take();
    let deadline = started + req.budget.hard_limit();
    let done = crate::sql::bounds::with_deadline(deadline, || {
        run.execute(&execution, &targets, &mut token)
    });
    let done = match done {
        Ok(done) => done,
        Err(error) => {
            // Every partition visited ran the query as a request of its own (as `into_page`).
            run.meter.queries = run.billed_partitions();
            return Err(Failed::spent(error, run.meter));
        }
    };
    Ok(run.into_page(&execution, &targets, &pk_path, (!done).then_some(token)))
}

/// FULLTEXTSCORE needs a full-text index on its path, as in Cosmos DB.
fn require_full_text_indexes(q: &Query, policy: &crate::index::CompiledPolicy) -> Result<()> {
    for (path, _) in exec::score_calls(q) {
        let segments = path.as_path().map(|(_, p)| p).unwrap_or_default();
        if !policy.full_text.contains(&segments) {
            return Err(Error::bad(
                "query",
                format!(
                    "FULLTEXTSCORE needs a full-text index on /{}: add it to fullTextIndexes in the container's indexing policy",
                    segments.join("/")
                ),
            ));
        }
    }
    Ok(())
}

/// The partitions to visit: those owning the partition key values the query is confined to
/// (named, or fixed by the filter), those a hierarchical prefix's range overlaps, those a range
/// of Cosmos EPKs overlaps (a container placed by Cosmos's hash), or every one.
fn targets(
    def: &ContainerDef,
    plan: &Plan,
    pk: Option<&PartitionKey>,
    epk_range: Option<&EpkRange>,
) -> Result<Vec<Target>> {
    let confined = match (confinement(def, plan, pk)?, epk_range) {
        (Confined::Everywhere, Some(range)) => FeedRange::covering(&def.partition_key, range)
            .map_or(Confined::Everywhere, Confined::Range),
        (confined, _) => confined,
    };
    Ok((0..def.partitions.len())
        .filter_map(|i| {
            let (start, end) = def.partitions.range_of(i);
            let pp = def.partitions.partitions[i].id;
            let whole = |epks| Target {
                pp,
                start,
                end,
                epks,
                narrowed: false,
            };
            match &confined {
                Confined::Everywhere => Some(whole(None)),
                Confined::Logical(epks) => {
                    let mut mine: Vec<Epk> = epks
                        .iter()
                        .filter(|e| def.partitions.index_of(e) == i)
                        .copied()
                        .collect();
                    mine.sort();
                    mine.dedup();
                    (!mine.is_empty()).then(|| whole(Some(mine)))
                }
                // The part of this partition's range the prefix covers, scanned without logical
                // partitions (the filter tells the prefixes sharing it apart).
                Confined::Range(range) => range.intersect(start, end).map(|r| Target {
                    pp,
                    start: r.start,
                    end: r.end,
                    epks: None,
                    narrowed: true,
                }),
            }
        })
        .collect())
}

/// Where a query's items can be.
enum Confined {
    Everywhere,
    /// These logical partitions.
    Logical(Vec<Epk>),
    /// A hierarchical prefix's coordinate range.
    Range(FeedRange),
}

/// The key named, or the partition key values the filter fixes (for a hierarchical key, the
/// values of its leading paths).
fn confinement(def: &ContainerDef, plan: &Plan, pk: Option<&PartitionKey>) -> Result<Confined> {
    let pkd = &def.partition_key;
    let scope = match (pk, &plan.partition_values) {
        (Some(pk), _) => pkd.scope(pk)?,
        (None, Some(values)) if pkd.is_hierarchical() => {
            match PartitionKey::from_json_values(values, "pk").and_then(|k| pkd.scope(&k)) {
                Ok(scope) => scope,
                Err(_) => return Ok(Confined::Everywhere),
            }
        }
        (None, Some(values)) => {
            return Ok(Confined::Logical(
                values
                    .iter()
                    .filter_map(|v| PartitionKey::from_json(v, "pk").ok())
                    .map(|p| pkd.epk(&p))
                    .collect(),
            ))
        }
        (None, None) => return Ok(Confined::Everywhere),
    };
    Ok(match scope {
        KeyScope::Full(epk) => Confined::Logical(vec![epk]),
        KeyScope::Prefix { lo, hi, .. } => Confined::Range(FeedRange {
            start: lo,
            end: hi.checked_add(1),
        }),
    })
}

struct Run<'a> {
    store: &'a Store,
    rtxn: &'a RoTxn<'a>,
    def: &'a ContainerDef,
    /// The filter's equality conjuncts the index can answer for one item (see [`index_checks`]).
    index_checks: Vec<IndexCheck>,
    /// Only items whose Cosmos DB EPK is in this range (see `QueryOptions::epk_range`).
    epk_range: Option<&'a EpkRange>,
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
    /// Builds the caller's rows of exactly selected items (`PageRequest::decode`).
    decode: DecodeRow,
    /// A count answered by counting the items storage selects (`count.rs`).
    counting: bool,
    /// An ORDER BY run as "sort the few candidates" instead of a merge (priced as the merge).
    sorting_few: bool,
    visited: Vec<u32>,
    /// Per visited partition (same order as `visited`): its share of the work.
    costs: Vec<PartitionCost>,
    /// Index into `visited` of the partition being read.
    current: usize,
    index_ready: bool,
    matched_docs: u64,
    /// Streamed: the last item key processed.
    last_key: Option<Vec<u8>>,
    /// OFFSET/LIMIT/TOP are satisfied.
    finished: bool,
    /// `now` for TTL checks, once per page.
    now: u64,
    /// DISTINCT streamed: hashes of the rows returned by this and earlier pages.
    seen: Option<std::collections::HashSet<u64>>,
    /// The count of the scan the previous page cut short (`audit.rs`).
    audit_in: Option<audit::Audit>,
    /// The count of the scan this page cut short, for the continuation.
    audit_out: Option<audit::Audit>,
    /// Hash of the query and its parameters (states kept between pages are keyed by it).
    qhash: u64,
    /// The access predicate's values as an index union reads them, once per page (`union.rs`).
    union_terms: Option<std::sync::Arc<union::Terms>>,
}

impl<'a> Run<'a> {
    /// A run of `plan` that has read nothing yet, with the index unused until
    /// [`Run::use_index_if_ready`].
    fn new(
        store: &'a Store,
        rtxn: &'a RoTxn<'a>,
        def: &'a ContainerDef,
        plan: &'a Plan,
        req: PageRequest<'a>,
        started: Instant,
    ) -> Self {
        Run {
            store,
            rtxn,
            def,
            index_checks: Vec::new(),
            epk_range: req.epk_range,
            q: req.q,
            params: req.params,
            plan,
            budget: req.budget,
            started,
            meter: Meter {
                queries: 1,
                ..Default::default()
            },
            metrics: QueryMetrics::default(),
            rows: Vec::new(),
            visited: Vec::new(),
            costs: Vec::new(),
            current: 0,
            index_ready: false,
            matched_docs: 0,
            exact: false,
            decode: req.decode,
            counting: false,
            sorting_few: false,
            last_key: None,
            finished: false,
            now: ttl::now(),
            seen: None,
            audit_in: None,
            audit_out: None,
            qhash: req.qhash,
            union_terms: None,
        }
    }

    fn over_budget(&self) -> bool {
        // Each partition visited so far pays its own query base (counted at the page's end).
        let bases = self.visited.len().saturating_sub(1) as f64 * crate::ru::rate::QUERY;
        self.meter.charge() + bases > self.budget.max_request_units
            || self.started.elapsed() > self.budget.max_duration
    }

    /// Work from now on is `pp`'s (a visit of a new partition is a request of its own).
    fn visit(&mut self, pp: u32) {
        if !self.visited.contains(&pp) {
            self.visited.push(pp);
            self.costs.push(PartitionCost {
                partition: pp,
                ..Default::default()
            });
        }
        self.current = self.visited.iter().position(|p| *p == pp).unwrap_or(0);
    }

    /// Whether the item of index entry `k` (of any path: `rid · partition · term · epk · id-hash`)
    /// satisfies every index-answerable equality conjunct but `skip` (the one that found it).
    /// Items failing one are not loaded, and not charged: the index filtered them out.
    fn passes_index_checks(&mut self, k: &[u8], skip: Option<&Predicate>) -> Result<bool> {
        if self.index_checks.is_empty() {
            return Ok(true);
        }
        if k.len() < 32 {
            return Err(Error::Corrupt(format!(
                "an index entry of container '{}' is cut short; run `engine check`",
                self.def.full_id()
            )));
        }
        let (head, tail) = (&k[..8], &k[k.len() - 24..]);
        for i in 0..self.index_checks.len() {
            let check = &self.index_checks[i];
            if skip.is_some_and(|s| *s == self.plan.predicates[check.predicate]) {
                continue;
            }
            let mut key = Vec::with_capacity(8 + check.term.len() + 24);
            key.extend_from_slice(head);
            key.extend_from_slice(&check.term);
            key.extend_from_slice(tail);
            self.metrics.index_lookups += 1;
            if self.store.index.get(self.rtxn, &key)?.is_none() {
                // No entry: the item fails the condition, unless its entry was lost.
                self.lost_check_entry(k, i)?;
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Rows this page can return: the page size, or fewer under TOP/LIMIT (with OFFSET).
    fn rows_wanted(&self) -> usize {
        let l = self.plan.limits;
        let cap = match (l.top, l.limit) {
            (Some(t), Some(x)) => t.min(x),
            (t, x) => t.or(x).unwrap_or(u64::MAX),
        };
        (self.budget.max_items as u64).min(l.offset.saturating_add(cap)) as usize
    }

    /// Index entries read for the current partition.
    fn index_read(&mut self, n: u64) {
        self.meter.index_terms_read += n;
        if let Some(c) = self.costs.get_mut(self.current) {
            c.index_entries_read += n;
        }
    }

    fn item(&mut self, key: &[u8], v: &[u8]) -> Result<Option<Value>> {
        match self.item_json(key, v)? {
            Some(json) => Ok(Some(crate::item::parse_stored(json)?)),
            None => Ok(None),
        }
    }

    /// The JSON of a stored item unless its TTL passed; counts it as retrieved.
    /// A damaged item is corrupt data naming the item (from its `key`) and the container.
    fn item_json<'v>(&mut self, key: &[u8], v: &'v [u8]) -> Result<Option<&'v [u8]>> {
        let (h, json) = DocHeader::verify(v).map_err(|d| {
            crate::storage::keys::corrupt_item(key, &self.def.full_id(), d.describe())
        })?;
        if ttl::is_expired(&h, self.def.default_ttl, self.now) {
            return Ok(None);
        }
        if let Some(range) = self.epk_range {
            let pkd = &self.def.partition_key;
            let epk = match pkd.cosmos_epk_of(&crate::storage::keys::epk_of(key)) {
                Some(epk) => epk,
                None => pkd.cosmos_epk(&pkd.extract(&crate::item::parse_stored::<Value>(json)?)?),
            };
            if !range.contains(&epk) {
                return Ok(None);
            }
        }
        self.meter.scan_item(v.len());
        if let Some(c) = self.costs.get_mut(self.current) {
            c.items_read += 1;
            c.bytes_read += v.len() as u64;
        }
        self.metrics.retrieved_document_count += 1;
        self.metrics.retrieved_document_size += v.len() as u64;
        Ok(Some(json))
    }

    /// Takes one candidate item: its rows (or, exactly selected, the item itself) go to the page.
    /// True when OFFSET/LIMIT/TOP are satisfied.
    fn consume(&mut self, key: &[u8], stored: &[u8], token: &mut Token) -> Result<bool> {
        let Some(json) = self.item_json(key, stored)? else {
            return Ok(false);
        };
        if self.exact {
            self.matched_docs += 1;
            // Straight from the mapped page, no copy per row. An item that does not decode goes
            // to the caller as stored, whose parse reports the damage or the misfit.
            let row = std::str::from_utf8(json)
                .ok()
                .and_then(self.decode)
                .unwrap_or_else(|| Row::Json(json.to_vec()));
            return Ok(self.push(row, token));
        }
        let doc = crate::item::parse_stored(json)?;
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

    /// Emits the rows of one item, honouring OFFSET/LIMIT/TOP; true when the query is complete.
    fn emit(&mut self, doc: Value, token: &mut Token) -> Result<bool> {
        let rows = exec::item_rows(self.q, self.params, doc)?;
        if !rows.is_empty() {
            self.matched_docs += 1;
        }
        for row in rows {
            if let Some(seen) = &mut self.seen {
                let h = xxhash_rust::xxh3::xxh3_64(exec::canonical(&row).as_bytes());
                if !seen.insert(h) {
                    continue;
                }
            }
            if self.push(Row::Value(row), token) {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
