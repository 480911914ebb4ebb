//! The reference executor: a query over a sequence of items, with Cosmos DB's semantics.
//! The storage layer (`run`) feeds it the items a plan selected; it never trusts the plan and
//! re-evaluates everything, so a plan can only change the cost of a query, never its answer.

use std::cmp::Ordering;
use std::collections::HashMap;

use serde_json::{Map, Value};

use super::ast::{Expr, Query, Select};
use super::bounds::{self, Held};
use super::error::QueryError;
use super::eval::{self, Bindings, Params, Scope};
use super::functions::fulltext::{self, Statistics};
use super::functions::is_aggregate;
use super::value::{self, order_cmp, Val};

/// Runs `q` over `items` and returns every result row.
pub fn execute(
    q: &Query,
    params: &Params,
    items: impl IntoIterator<Item = Value>,
) -> Result<Vec<Value>, QueryError> {
    execute_with(q, params, items, None)
}

/// Runs `q` over `items`; an `ORDER BY RANK` of `FULLTEXTSCORE` takes its BM25 statistics from
/// `stats` (the storage layer's, over the whole container) or else from every item given.
pub fn execute_with(
    q: &Query,
    params: &Params,
    items: impl IntoIterator<Item = Value>,
    mut stats: Option<RankStatistics>,
) -> Result<Vec<Value>, QueryError> {
    let mut rows = Vec::new();
    if q.from.is_none() {
        rows.push(Bindings::default());
    } else {
        let mut gather = match stats {
            None => RankStatistics::for_query(q, params)?,
            Some(_) => None,
        };
        // Every item's rows are gathered here: one ceiling for all of them.
        let mut held = Held::default();
        for item in items {
            if let Some(g) = &mut gather {
                g.add(&item, params)?;
            }
            rows.extend(item_bindings(
                q,
                params,
                &Bindings::default(),
                Some(item),
                &mut held,
            )?);
        }
        stats = stats.or(gather);
    }
    finish(q, params, rows, stats)
}

/// The BM25 statistics of the `FULLTEXTSCORE` calls of an `ORDER BY RANK`, in the order they
/// appear, gathered item by item (before any filter: BM25 counts the whole corpus).
#[derive(Debug, Clone)]
pub struct RankStatistics {
    /// The name the FROM clause binds to an item.
    alias: String,
    /// Per call: its path expression, its term tokens, their statistics.
    calls: Vec<(Expr, Vec<String>, Statistics)>,
}

impl RankStatistics {
    /// `None` unless the query ranks by `FULLTEXTSCORE`.
    pub fn for_query(q: &Query, params: &Params) -> Result<Option<Self>, QueryError> {
        if !q.rank {
            return Ok(None);
        }
        let alias = match &q.from {
            Some(f) => match &f.source {
                None => f.alias.clone(),
                Some(s) => s.root_ident().unwrap_or("root").to_owned(),
            },
            None => return Ok(None),
        };
        let mut calls = Vec::new();
        for (path, terms) in score_calls(q) {
            let terms = terms
                .iter()
                .map(|t| eval(t, &Bindings::default(), params))
                .collect::<Result<Vec<_>, _>>()?;
            let terms = fulltext::score_terms(&terms).ok_or_else(|| {
                QueryError::Semantic(
                    "FULLTEXTSCORE takes its terms as strings (or arrays of strings)".into(),
                )
            })?;
            let st = Statistics::new(terms.len());
            calls.push((path.clone(), terms, st));
        }
        Ok((!calls.is_empty()).then_some(RankStatistics { alias, calls }))
    }

    /// Counts one item of the container.
    pub fn add(&mut self, item: &Value, params: &Params) -> Result<(), QueryError> {
        let row = Bindings::of(&self.alias, item.clone());
        for (path, terms, st) in &mut self.calls {
            // A path rooted elsewhere (`FROM t IN c.texts`) counts as no text.
            let text = eval(path, &row, params).unwrap_or(None);
            st.add(&text, terms);
        }
        Ok(())
    }
}

/// The `FULLTEXTSCORE` calls of a query's `ORDER BY RANK`: (path, terms).
pub fn score_calls(q: &Query) -> Vec<(&Expr, &[Expr])> {
    let mut out = Vec::new();
    if q.rank {
        if let Some((e, _)) = q.order_by.first() {
            collect_score_calls(e, &mut out);
        }
    }
    out
}

fn collect_score_calls<'e>(e: &'e Expr, out: &mut Vec<(&'e Expr, &'e [Expr])>) {
    if let Expr::Call { name, args } = e {
        match name.as_str() {
            "FULLTEXTSCORE" => out.push((&args[0], &args[1..])),
            "RRF" => args.iter().for_each(|a| collect_score_calls(a, out)),
            _ => {}
        }
    }
}

/// Sorts rows by an `ORDER BY RANK`, best first. One scoring function: by its score
/// (`FULLTEXTSCORE` and the similarities of `VECTORDISTANCE` descending, a euclidean distance
/// ascending; undefined scores last). `RRF`: as Cosmos DB's SDKs fuse, each function's best
/// rows (the rows the query wants, under TOP or OFFSET/LIMIT, else all) are pooled; in the pool
/// each function ranks the rows from 1, equal scores sharing a rank; a row's fused score is
/// the sum of `weight / (60 + rank)`, best first. Ties keep the rows' order.
fn rank_rows(
    q: &Query,
    params: &Params,
    rows: Vec<Bindings>,
    stats: Option<RankStatistics>,
) -> Result<Vec<Bindings>, QueryError> {
    let e = &q.order_by[0].0;
    let stats = match stats {
        Some(s) => Some(s),
        // A subquery ranks over its own rows.
        None => match RankStatistics::for_query(q, params)? {
            Some(mut s) => {
                for r in &rows {
                    if let Some(item) = r.get(&s.alias).cloned() {
                        s.add(&item, params)?;
                    }
                }
                Some(s)
            }
            None => None,
        },
    };
    let (components, weights): (Vec<&Expr>, Vec<f64>) = match e {
        Expr::Call { name, args } if name == "RRF" => {
            let (f, w) = match args.last() {
                Some(w @ Expr::Array(_)) => (&args[..args.len() - 1], Some(w)),
                _ => (&args[..], None),
            };
            let weights = match w {
                Some(w) => match eval(w, &Bindings::default(), params)? {
                    Some(Value::Array(ws)) => {
                        ws.iter().map(|x| x.as_f64().unwrap_or(1.0)).collect()
                    }
                    _ => vec![1.0; f.len()],
                },
                None => vec![1.0; f.len()],
            };
            (f.iter().collect(), weights)
        }
        e => (vec![e], vec![1.0]),
    };
    // Per component: descending (higher is better)?
    let mut descending = Vec::new();
    for c in &components {
        descending.push(match c {
            Expr::Call { name, args } if name == "VECTORDISTANCE" => {
                match args
                    .get(3)
                    .map(|o| eval(o, &Bindings::default(), params))
                    .transpose()?
                {
                    Some(Some(Value::Object(o))) => !o
                        .get("distanceFunction")
                        .and_then(Value::as_str)
                        .is_some_and(|f| f.eq_ignore_ascii_case("euclidean")),
                    _ => true,
                }
            }
            _ => true,
        });
    }
    let calls = stats.as_ref().map(|s| &s.calls[..]).unwrap_or(&[]);
    // scores[row][component]
    let mut scores: Vec<Vec<Option<f64>>> = Vec::with_capacity(rows.len());
    for row in &rows {
        let mut k = 0;
        let mut per = Vec::with_capacity(components.len());
        for c in &components {
            per.push(match c {
                Expr::Call { name, .. } if name == "FULLTEXTSCORE" => {
                    let (path, terms, st) = calls.get(k).ok_or_else(|| {
                        QueryError::Semantic("FULLTEXTSCORE has no corpus statistics".into())
                    })?;
                    k += 1;
                    Some(st.score(&eval(path, row, params)?, terms))
                }
                c => value::number(&eval(c, row, params)?).filter(|x| !x.is_nan()),
            });
        }
        scores.push(per);
    }
    // Better first: `a` before `b` for component `i`.
    let cmp = |i: usize, a: Option<f64>, b: Option<f64>| -> Ordering {
        match (a, b) {
            (Some(x), Some(y)) => {
                let o = x.total_cmp(&y);
                if descending[i] {
                    o.reverse()
                } else {
                    o
                }
            }
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        }
    };
    let mut order: Vec<usize> = (0..rows.len()).collect();
    if components.len() == 1 {
        order.sort_by(|&a, &b| cmp(0, scores[a][0], scores[b][0]));
    } else {
        let wanted = limits(q, params)?.needed().map(|n| n as usize);
        let mut pool = vec![false; rows.len()];
        for (i, _) in components.iter().enumerate() {
            let mut by: Vec<usize> = (0..rows.len())
                .filter(|&r| scores[r][i].is_some())
                .collect();
            by.sort_by(|&a, &b| cmp(i, scores[a][i], scores[b][i]));
            for &r in by.iter().take(wanted.unwrap_or(usize::MAX)) {
                pool[r] = true;
            }
        }
        let members: Vec<usize> = (0..rows.len()).filter(|&r| pool[r]).collect();
        let mut fused = vec![0.0f64; rows.len()];
        for (i, w) in weights.iter().enumerate() {
            let mut by = members.clone();
            by.sort_by(|&a, &b| cmp(i, scores[a][i], scores[b][i]));
            let mut rank = 0u64;
            let mut last: Option<Option<f64>> = None;
            for &r in &by {
                if last != Some(scores[r][i]) {
                    rank += 1;
                    last = Some(scores[r][i]);
                }
                fused[r] += w / (60.0 + rank as f64);
            }
        }
        order = members;
        order.sort_by(|&a, &b| fused[b].total_cmp(&fused[a]));
    }
    let mut rows: Vec<Option<Bindings>> = rows.into_iter().map(Some).collect();
    Ok(order.into_iter().filter_map(|i| rows[i].take()).collect())
}

/// Evaluates `e` against one row, this executor running its subqueries: what every caller above
/// `eval` uses.
pub fn eval(e: &Expr, row: &Bindings, params: &Params) -> Result<Val, QueryError> {
    eval::eval(e, row, &Scope { params, subquery })
}

/// A subquery, correlated to the bindings of the outer row.
pub fn subquery(q: &Query, outer: &Bindings, params: &Params) -> Result<Vec<Value>, QueryError> {
    let rows = item_bindings(q, params, outer, None, &mut Held::default())?;
    finish(q, params, rows, None)
}

/// The rows one item contributes (FROM, JOIN and WHERE applied), projected. Used by plans that
/// stream items when the query has no ORDER BY, aggregate, GROUP BY or DISTINCT.
pub fn item_rows(q: &Query, params: &Params, item: Value) -> Result<Vec<Value>, QueryError> {
    let mut out = Vec::new();
    let mut held = Held::default();
    for b in item_bindings(q, params, &Bindings::default(), Some(item), &mut held)? {
        if let Some(v) = project(q, params, b)? {
            out.push(v);
        }
    }
    Ok(out)
}

/// What a query needs beyond per-item rows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    pub aggregates: bool,
    pub grouped: bool,
    pub distinct: bool,
    pub ordered: bool,
}

pub fn shape(q: &Query) -> Shape {
    let aggregates = match &q.select {
        Select::Value(e) => e.has_aggregate(),
        Select::Items(items) => items.iter().any(|(e, _)| e.has_aggregate()),
        Select::Star => false,
    };
    Shape {
        aggregates,
        grouped: !q.group_by.is_empty(),
        distinct: q.distinct,
        ordered: !q.order_by.is_empty(),
    }
}

/// TOP, OFFSET and LIMIT as numbers.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Limits {
    pub top: Option<u64>,
    pub offset: u64,
    pub limit: Option<u64>,
}

impl Limits {
    /// Rows needed from an ordered merge to answer the query (`None` = all).
    pub fn needed(&self) -> Option<u64> {
        match (self.top, self.limit) {
            (Some(t), Some(l)) => Some(t.min(self.offset + l)),
            (Some(t), None) => Some(t),
            (None, Some(l)) => Some(self.offset + l),
            (None, None) => None,
        }
    }
}

pub fn limits(q: &Query, params: &Params) -> Result<Limits, QueryError> {
    let n = |e: &Expr, what: &str| -> Result<u64, QueryError> {
        match eval(e, &Bindings::default(), params)? {
            Some(Value::Number(n)) if n.as_f64().is_some_and(|f| f >= 0.0 && f.fract() == 0.0) => {
                Ok(n.as_f64().unwrap_or(0.0) as u64)
            }
            _ => Err(QueryError::Semantic(format!(
                "{what} takes a non-negative integer"
            ))),
        }
    };
    Ok(Limits {
        top: q.top.as_ref().map(|e| n(e, "TOP")).transpose()?,
        offset: q
            .offset_limit
            .as_ref()
            .map(|(o, _)| n(o, "OFFSET"))
            .transpose()?
            .unwrap_or(0),
        limit: q
            .offset_limit
            .as_ref()
            .map(|(_, l)| n(l, "LIMIT"))
            .transpose()?,
    })
}

/// FROM, JOIN and WHERE for one item (`None` in a subquery: the outer row is the source),
/// gathered; `held` counts the memory of the rows JOINs make, across the calls that share it.
fn item_bindings(
    q: &Query,
    params: &Params,
    outer: &Bindings,
    item: Option<Value>,
    held: &mut Held,
) -> Result<Vec<Bindings>, QueryError> {
    let mut rows = Vec::new();
    each_binding(q, params, outer, item, &mut |row| {
        if !q.joins.is_empty() {
            held.add(row_size(&row), "the JOINs")?;
        }
        rows.push(row);
        Ok(())
    })?;
    Ok(rows)
}

/// Roughly the memory of a row a JOIN made: its bindings, and the innermost value (the values
/// before it are shared with the row's siblings).
fn row_size(row: &Bindings) -> usize {
    let pointers: usize = row.0.iter().map(|(n, _)| 48 + n.len()).sum();
    pointers + row.0.last().map_or(0, |(_, v)| bounds::approx_size(v))
}

/// FROM, JOIN and WHERE for one item, each row handed to `sink` as it is made: the JOINs'
/// cross product is walked depth first and filtered at its leaves, so rows the filter drops
/// never pile up, and the walk stops at the query's deadline (`bounds.rs`).
fn each_binding(
    q: &Query,
    params: &Params,
    outer: &Bindings,
    item: Option<Value>,
    sink: &mut dyn FnMut(Bindings) -> Result<(), QueryError>,
) -> Result<(), QueryError> {
    let Some(from) = &q.from else {
        return sink(outer.clone());
    };
    let mut rows = Vec::new();
    match (&from.source, item) {
        (None, Some(item)) => rows.push(outer.with(&from.alias, item)),
        (None, None) => {
            let v = outer.get(&from.alias).cloned().ok_or_else(|| {
                QueryError::Semantic(format!("identifier '{}' could not be resolved", from.alias))
            })?;
            rows.push(outer.with(&from.alias, v));
        }
        (Some(source), item) => {
            // `FROM t IN c.tags`: the path's root names the container's item.
            let scope = match (item, source.root_ident()) {
                (Some(item), Some(root)) => outer.with(root, item),
                (Some(item), None) => outer.with("root", item),
                (None, _) => outer.clone(),
            };
            match (eval(source, &scope, params)?, from.iterate) {
                (Some(Value::Array(a)), true) => {
                    rows.extend(a.into_iter().map(|v| outer.with(&from.alias, v)))
                }
                (Some(v), false) => rows.push(outer.with(&from.alias, v)),
                _ => {}
            }
        }
    }
    for row in rows {
        join_and_filter(q, params, row, 0, sink)?;
    }
    Ok(())
}

fn join_and_filter(
    q: &Query,
    params: &Params,
    row: Bindings,
    depth: usize,
    sink: &mut dyn FnMut(Bindings) -> Result<(), QueryError>,
) -> Result<(), QueryError> {
    if let Some(join) = q.joins.get(depth) {
        if let Some(Value::Array(a)) = eval(&join.source, &row, params)? {
            for v in a {
                bounds::tick("the JOINs")?;
                join_and_filter(q, params, row.with(&join.alias, v), depth + 1, sink)?;
            }
        }
        return Ok(());
    }
    if let Some(filter) = &q.filter {
        if eval(filter, &row, params)? != Some(Value::Bool(true)) {
            return Ok(());
        }
    }
    sink(row)
}

/// ORDER BY, grouping and aggregates, projection, DISTINCT, OFFSET/LIMIT, TOP.
fn finish(
    q: &Query,
    params: &Params,
    mut rows: Vec<Bindings>,
    stats: Option<RankStatistics>,
) -> Result<Vec<Value>, QueryError> {
    let s = shape(q);
    let out = if s.aggregates || s.grouped {
        grouped(q, params, rows)?
    } else {
        if q.rank {
            rows = rank_rows(q, params, rows, stats)?;
        } else if s.ordered {
            let mut keyed = Vec::with_capacity(rows.len());
            for row in rows {
                let keys = q
                    .order_by
                    .iter()
                    .map(|(e, _)| eval(e, &row, params))
                    .collect::<Result<Vec<_>, _>>()?;
                keyed.push((keys, row));
            }
            keyed.sort_by(|a, b| compare_keys(&a.0, &b.0, &q.order_by));
            rows = keyed.into_iter().map(|(_, r)| r).collect();
        }
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            if let Some(v) = project(q, params, row)? {
                out.push(v);
            }
        }
        out
    };
    tail(q, params, out)
}

/// DISTINCT, OFFSET/LIMIT and TOP.
fn tail(q: &Query, params: &Params, mut out: Vec<Value>) -> Result<Vec<Value>, QueryError> {
    if q.distinct {
        let mut seen = std::collections::HashSet::new();
        out.retain(|v| seen.insert(canonical(v)));
    }
    let l = limits(q, params)?;
    let mut out: Vec<Value> = out.into_iter().skip(l.offset as usize).collect();
    if let Some(limit) = l.limit {
        out.truncate(limit as usize);
    }
    if let Some(top) = l.top {
        out.truncate(top as usize);
    }
    Ok(out)
}

/// Compares ORDER BY keys (`order` gives the directions).
pub fn compare_keys(a: &[Val], b: &[Val], order: &[(Expr, bool)]) -> Ordering {
    for ((x, y), (_, desc)) in a.iter().zip(b).zip(order) {
        let o = order_cmp(x, y);
        if o != Ordering::Equal {
            return if *desc { o.reverse() } else { o };
        }
    }
    Ordering::Equal
}

/// A text form equal for equal values (numbers as doubles), for DISTINCT and GROUP BY.
pub fn canonical(v: &Value) -> String {
    match v {
        Value::Number(n) => format!("n{}", n.as_f64().unwrap_or(f64::NAN)),
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        Value::Object(m) => {
            let mut kv: Vec<_> = m
                .iter()
                .map(|(k, v)| format!("{k:?}:{}", canonical(v)))
                .collect();
            kv.sort();
            format!("{{{}}}", kv.join(","))
        }
        other => other.to_string(),
    }
}

fn project(q: &Query, params: &Params, row: Bindings) -> Result<Option<Value>, QueryError> {
    match &q.select {
        Select::Star => {
            if !q.joins.is_empty() {
                return Err(QueryError::Semantic(
                    "'SELECT *' is only valid with a single input set".into(),
                ));
            }
            let alias = q.from.as_ref().map(|f| f.alias.as_str()).unwrap_or("");
            // The row owns its item: move it out rather than copy it.
            Ok(row.take(alias))
        }
        // NaN and the infinities have no JSON form: in results they are undefined.
        Select::Value(e) => Ok(value::defined(eval(e, &row, params)?)),
        Select::Items(items) => {
            let mut m = Map::new();
            let mut unnamed = 0;
            for (e, alias) in items {
                let name = item_name(e, alias, &mut unnamed);
                if let Some(v) = value::defined(eval(e, &row, params)?) {
                    m.insert(name, v);
                }
            }
            Ok(Some(Value::Object(m)))
        }
    }
}

/// The property name of a select item: its alias, its path's last name, or `$1`, `$2`, ...
fn item_name(e: &Expr, alias: &Option<String>, unnamed: &mut usize) -> String {
    if let Some(a) = alias {
        return a.clone();
    }
    match e.as_path() {
        Some((root, path)) => path.last().cloned().unwrap_or_else(|| root.to_owned()),
        None => {
            *unnamed += 1;
            format!("${unnamed}")
        }
    }
}

/// GROUP BY and aggregates over rows already in memory.
fn grouped(q: &Query, params: &Params, rows: Vec<Bindings>) -> Result<Vec<Value>, QueryError> {
    let mut f = Folder::new(q, params);
    for row in rows {
        f.add_row(row)?;
    }
    f.values()
}

/// GROUP BY and aggregates folded one item at a time: what is kept is one row and the running
/// aggregates per group, never the items, so `SELECT VALUE COUNT(1) FROM c` takes the same
/// memory over a million items as over ten.
pub struct Folder<'q> {
    q: &'q Query,
    params: &'q Params,
    /// The aggregate calls of the SELECT clause, in the order `fill` meets them.
    calls: Vec<(&'q str, &'q Expr)>,
    /// Group key → index in `groups`.
    index: HashMap<String, usize>,
    /// Per group: its first row (the non-aggregate parts of SELECT read it) and its aggregates.
    groups: Vec<(Option<Bindings>, Vec<Aggregate>)>,
}

impl<'q> Folder<'q> {
    pub fn new(q: &'q Query, params: &'q Params) -> Self {
        let mut calls = Vec::new();
        match &q.select {
            Select::Value(e) => aggregate_calls(e, &mut calls),
            Select::Items(items) => items
                .iter()
                .for_each(|(e, _)| aggregate_calls(e, &mut calls)),
            Select::Star => {}
        }
        let mut f = Folder {
            q,
            params,
            calls,
            index: HashMap::new(),
            groups: Vec::new(),
        };
        // Without GROUP BY there is one group, even over no rows (`COUNT(1)` of nothing is 0).
        if q.group_by.is_empty() {
            f.groups.push((None, f.fresh()));
        }
        f
    }

    fn fresh(&self) -> Vec<Aggregate> {
        self.calls.iter().map(|(n, _)| Aggregate::new(n)).collect()
    }

    /// Folds in the rows of one item (FROM, JOIN, WHERE applied); returns how many matched.
    pub fn add_item(&mut self, item: Value) -> Result<usize, QueryError> {
        // Folded as they are made: an aggregate over a large cross product holds no rows.
        let (q, params) = (self.q, self.params);
        let mut n = 0;
        each_binding(q, params, &Bindings::default(), Some(item), &mut |row| {
            n += 1;
            self.add_row(row)
        })?;
        Ok(n)
    }

    fn add_row(&mut self, row: Bindings) -> Result<(), QueryError> {
        let g = if self.q.group_by.is_empty() {
            0
        } else {
            let mut key = String::new();
            for e in &self.q.group_by {
                let v = eval(e, &row, self.params)?;
                key.push_str(&v.as_ref().map_or("undefined".into(), canonical));
                key.push('|');
            }
            match self.index.get(&key) {
                Some(&i) => i,
                None => {
                    self.groups.push((None, self.fresh()));
                    self.index.insert(key, self.groups.len() - 1);
                    self.groups.len() - 1
                }
            }
        };
        let (first, accs) = &mut self.groups[g];
        for ((_, arg), acc) in self.calls.iter().zip(accs.iter_mut()) {
            acc.add(&eval(arg, &row, self.params)?);
        }
        if first.is_none() {
            *first = Some(row);
        }
        Ok(())
    }

    /// One value per group, before DISTINCT, OFFSET/LIMIT and TOP.
    fn values(self) -> Result<Vec<Value>, QueryError> {
        let (q, params) = (self.q, self.params);
        let mut out = Vec::with_capacity(self.groups.len());
        for (first, accs) in self.groups {
            let first = first.unwrap_or_default();
            let mut done = accs.iter().map(Aggregate::finish);
            let value = match &q.select {
                Select::Star => {
                    return Err(QueryError::Semantic(
                        "'SELECT *' cannot be used with GROUP BY or aggregates".into(),
                    ))
                }
                Select::Value(e) => eval(&fill(e, &mut done), &first, params)?,
                Select::Items(items) => {
                    let mut m = Map::new();
                    let mut unnamed = 0;
                    for (e, alias) in items {
                        let name = item_name(e, alias, &mut unnamed);
                        if let Some(v) = eval(&fill(e, &mut done), &first, params)? {
                            m.insert(name, v);
                        }
                    }
                    Some(Value::Object(m))
                }
            };
            if let Some(v) = value {
                out.push(v);
            }
        }
        Ok(out)
    }

    /// Every result row: the groups' values with DISTINCT, OFFSET/LIMIT and TOP applied.
    pub fn finish(self) -> Result<Vec<Value>, QueryError> {
        let (q, params) = (self.q, self.params);
        tail(q, params, self.values()?)
    }

    /// How many groups are held so far.
    pub fn groups(&self) -> usize {
        self.groups.len()
    }

    /// What the fold holds so far, for a later page to go on from (`Folder::resume`). A
    /// group's first row is kept only when the SELECT clause reads the row outside its
    /// aggregates (GROUP BY projections): `SELECT VALUE COUNT(1)` carries a few numbers, not
    /// the first item it met.
    pub fn save(&self) -> FolderState {
        let rows = match &self.q.select {
            Select::Value(e) => reads_row(e),
            Select::Items(items) => items.iter().any(|(e, _)| reads_row(e)),
            Select::Star => true,
        };
        FolderState {
            keys: self.index.iter().map(|(k, i)| (k.clone(), *i)).collect(),
            groups: self
                .groups
                .iter()
                .map(|(first, accs)| GroupState {
                    first: first.as_ref().filter(|_| rows).map(|b| {
                        b.0.iter()
                            .map(|(n, v)| (n.clone(), v.as_ref().clone()))
                            .collect()
                    }),
                    aggs: accs.iter().map(Aggregate::save).collect(),
                })
                .collect(),
        }
    }

    /// A fold of `q` that goes on from `state` (made by `save` for the same query).
    pub fn resume(
        q: &'q Query,
        params: &'q Params,
        state: FolderState,
    ) -> Result<Self, QueryError> {
        let mut f = Folder::new(q, params);
        f.groups.clear();
        let bad = || {
            QueryError::Semantic("the continuation's aggregate state does not fit the query".into())
        };
        for g in state.groups {
            if g.aggs.len() != f.calls.len() {
                return Err(bad());
            }
            let accs = f
                .calls
                .iter()
                .zip(g.aggs)
                .map(|((n, _), s)| Aggregate::new(n).restored(s))
                .collect();
            let first = g.first.map(|row| {
                Bindings(
                    row.into_iter()
                        .map(|(n, v)| (n, std::rc::Rc::new(v)))
                        .collect(),
                )
            });
            f.groups.push((first, accs));
        }
        if state.keys.iter().any(|(_, i)| *i >= f.groups.len())
            || (q.group_by.is_empty() && f.groups.len() != 1)
        {
            return Err(bad());
        }
        f.index = state.keys.into_iter().collect();
        Ok(f)
    }
}

/// A fold's state between pages (see `Folder::save`).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct FolderState {
    #[serde(rename = "k")]
    keys: Vec<(String, usize)>,
    #[serde(rename = "g")]
    groups: Vec<GroupState>,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct GroupState {
    #[serde(rename = "f", default, skip_serializing_if = "Option::is_none")]
    first: Option<Vec<(String, Value)>>,
    #[serde(rename = "a")]
    aggs: Vec<AggregateState>,
}

/// A running aggregate's numbers; the sum as its bits (JSON has no infinity).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct AggregateState {
    n: u64,
    #[serde(default, skip_serializing_if = "is_zero_bits")]
    s: u64,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    p: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    b: Option<Value>,
}

impl FolderState {
    /// About how long the state is as JSON, given a sampling estimate of a list's length.
    pub fn estimate(&self, sampled: fn(&[GroupState]) -> usize) -> usize {
        sampled(&self.groups) + self.keys.iter().map(|(k, _)| k.len() + 24).sum::<usize>()
    }
}

fn is_zero_bits(b: &u64) -> bool {
    *b == 0
}

/// Whether `e` reads the row anywhere outside an aggregate's argument.
fn reads_row(e: &Expr) -> bool {
    match e {
        Expr::Call { name, args } if is_aggregate(name) && !args.is_empty() => false,
        Expr::Literal(_) | Expr::Param(_) | Expr::Undefined => false,
        Expr::Property(b, _) | Expr::Unary(_, b) => reads_row(b),
        Expr::Index(a, b) | Expr::Binary(_, a, b) | Expr::Coalesce(a, b) => {
            reads_row(a) || reads_row(b)
        }
        Expr::Chain(first, rest) => reads_row(first) || rest.iter().any(|(_, x)| reads_row(x)),
        Expr::Ternary(a, b, c) => reads_row(a) || reads_row(b) || reads_row(c),
        Expr::Call { args, .. } | Expr::Array(args) => args.iter().any(reads_row),
        Expr::Object(f) => f.iter().any(|(_, v)| reads_row(v)),
        // Identifiers, subqueries and anything else: assume it reads the row.
        _ => true,
    }
}

/// The aggregate calls of `e` (`name`, argument), in the order `fill` replaces them.
fn aggregate_calls<'q>(e: &'q Expr, out: &mut Vec<(&'q str, &'q Expr)>) {
    if let Expr::Call { name, args } = e {
        if is_aggregate(name) {
            if let Some(arg) = args.first() {
                out.push((name, arg));
            }
            return;
        }
    }
    match e {
        Expr::Property(b, _) | Expr::Unary(_, b) => aggregate_calls(b, out),
        Expr::Index(a, b) | Expr::Binary(_, a, b) | Expr::Coalesce(a, b) => {
            aggregate_calls(a, out);
            aggregate_calls(b, out);
        }
        Expr::Chain(first, rest) => {
            aggregate_calls(first, out);
            rest.iter().for_each(|(_, x)| aggregate_calls(x, out));
        }
        Expr::Ternary(a, b, c) => {
            aggregate_calls(a, out);
            aggregate_calls(b, out);
            aggregate_calls(c, out);
        }
        Expr::Call { args, .. } | Expr::Array(args) => {
            args.iter().for_each(|a| aggregate_calls(a, out))
        }
        Expr::Object(f) => f.iter().for_each(|(_, v)| aggregate_calls(v, out)),
        _ => {}
    }
}

/// `e` with each aggregate call replaced by the next of `values` (see `aggregate_calls`).
fn fill(e: &Expr, values: &mut dyn Iterator<Item = Val>) -> Expr {
    if let Expr::Call { name, args } = e {
        if is_aggregate(name) && !args.is_empty() {
            return values
                .next()
                .flatten()
                .map_or(Expr::Undefined, Expr::Literal);
        }
    }
    let mut sub = |x: &Expr| Box::new(fill(x, values));
    match e {
        Expr::Property(b, n) => Expr::Property(sub(b), n.clone()),
        Expr::Index(a, b) => {
            let a = sub(a);
            Expr::Index(a, sub(b))
        }
        Expr::Unary(op, a) => Expr::Unary(op, sub(a)),
        Expr::Binary(op, a, b) => {
            let a = sub(a);
            Expr::Binary(op, a, sub(b))
        }
        Expr::Chain(first, rest) => {
            let first = sub(first);
            Expr::Chain(
                first,
                rest.iter().map(|(op, x)| (*op, fill(x, values))).collect(),
            )
        }
        Expr::Coalesce(a, b) => {
            let a = sub(a);
            Expr::Coalesce(a, sub(b))
        }
        Expr::Ternary(a, b, c) => {
            let (a, b) = (sub(a), sub(b));
            Expr::Ternary(a, b, sub(c))
        }
        Expr::Call { name, args } => Expr::Call {
            name: name.clone(),
            args: args.iter().map(|a| fill(a, values)).collect(),
        },
        Expr::Object(f) => Expr::Object(
            f.iter()
                .map(|(k, v)| (k.clone(), fill(v, values)))
                .collect(),
        ),
        Expr::Array(items) => Expr::Array(items.iter().map(|a| fill(a, values)).collect()),
        other => other.clone(),
    }
}

/// A running aggregate. Partial aggregates merge (`merge`), so a fan-out can combine partitions.
#[derive(Debug, Clone)]
pub struct Aggregate {
    kind: &'static str,
    count: u64,
    sum: f64,
    /// A non-number was summed or averaged: the result is undefined.
    poisoned: bool,
    best: Val,
}

impl Aggregate {
    pub fn new(name: &str) -> Self {
        let kind = match name {
            "COUNT" => "COUNT",
            "SUM" => "SUM",
            "AVG" => "AVG",
            "MIN" => "MIN",
            _ => "MAX",
        };
        Aggregate {
            kind,
            count: 0,
            sum: 0.0,
            poisoned: false,
            best: None,
        }
    }

    pub fn add(&mut self, v: &Val) {
        let Some(x) = v else { return };
        self.count += 1;
        match self.kind {
            "SUM" | "AVG" => match value::number(v) {
                Some(n) => self.sum += n,
                None => self.poisoned = true,
            },
            "MIN" | "MAX" => {
                let better = self.best.is_none() || {
                    let o = order_cmp(v, &self.best);
                    if self.kind == "MIN" {
                        o == Ordering::Less
                    } else {
                        o == Ordering::Greater
                    }
                };
                if better {
                    self.best = Some(x.clone());
                }
            }
            _ => {}
        }
    }

    fn save(&self) -> AggregateState {
        AggregateState {
            n: self.count,
            s: self.sum.to_bits(),
            p: self.poisoned,
            b: self.best.clone(),
        }
    }

    fn restored(mut self, s: AggregateState) -> Self {
        self.count = s.n;
        self.sum = f64::from_bits(s.s);
        self.poisoned = s.p;
        self.best = s.b;
        self
    }

    pub fn finish(&self) -> Val {
        match self.kind {
            "COUNT" => Some(Value::from(self.count)),
            "SUM" if !self.poisoned => value::finite(self.sum),
            "AVG" if !self.poisoned && self.count > 0 => {
                value::finite(self.sum / self.count as f64)
            }
            "MIN" | "MAX" => self.best.clone(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::parser::parse;
    use serde_json::json;

    fn v(expr: &str, doc: Value) -> Val {
        let q = parse(&format!("SELECT VALUE {expr} FROM c")).unwrap();
        let Select::Value(e) = q.select else {
            unreachable!()
        };
        eval(&e, &Bindings::of("c", doc), &Params::new()).unwrap()
    }

    #[test]
    fn subqueries_see_the_outer_row() {
        let d = json!({"arr": [10, 20]});
        assert_eq!(
            v("ARRAY(SELECT VALUE x * 2 FROM x IN c.arr)", d.clone()),
            Some(json!([20, 40]))
        );
        assert_eq!(
            v(
                "EXISTS(SELECT VALUE x FROM x IN c.arr WHERE x > 15)",
                d.clone()
            ),
            Some(json!(true))
        );
        assert_eq!(
            v("(SELECT VALUE MAX(x) FROM x IN c.arr)", d),
            Some(json!(20))
        );
    }
}
