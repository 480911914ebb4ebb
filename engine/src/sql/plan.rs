//! The planner: what a query needs from storage.
//!
//! - **Routing**: equality or `IN` on the partition key path (or a partition key given by the
//!   caller) confines the query to those logical partitions and the physical partitions owning
//!   them; anything else fans out to every physical partition.
//! - **Access**: the most selective indexable conjunct of the filter (equality, `IN`, ranges,
//!   `BETWEEN`, `STARTSWITH`, `ARRAY_CONTAINS`; `ST_DISTANCE(path, g) < r`, `ST_WITHIN(path, g)`
//!   and `ST_INTERSECTS` on a spatial index) becomes index key ranges; without one, the
//!   partition is scanned. The index only narrows: the executor re-evaluates the whole query on
//!   every item loaded, so a plan can change what a query costs, never what it answers.
//! - **Mode**: rows stream item by item (no ORDER BY, no aggregate); or stream in the index order
//!   of the single ORDER BY path, merged across partitions and stopped after TOP/OFFSET+LIMIT;
//!   or are computed whole (aggregates, GROUP BY, DISTINCT, other ORDER BYs) and paged by position.

use std::ops::Bound;

use serde_json::Value;

use super::ast::{Expr, Query};
use super::eval::{Bindings, Params};
use super::exec::{self, Limits};

/// A conjunct of the filter the index can answer, on a path of the root item.
#[derive(Debug, Clone, PartialEq)]
pub enum Predicate {
    Eq(Vec<String>, Value),
    In(Vec<String>, Vec<Value>),
    Range(Vec<String>, Bound<Value>, Bound<Value>),
    StartsWith(Vec<String>, String),
    /// Points of a spatial index in these inclusive cell-code ranges, and every other geometry
    /// there (a superset of the answer).
    Spatial(Vec<String>, Vec<(u64, u64)>),
}

impl Predicate {
    pub fn path(&self) -> &[String] {
        match self {
            Predicate::Eq(p, _)
            | Predicate::In(p, _)
            | Predicate::Range(p, ..)
            | Predicate::StartsWith(p, _)
            | Predicate::Spatial(p, _) => p,
        }
    }

    /// Equality first, then short IN lists, prefixes, long IN lists, ranges.
    fn rank(&self) -> u8 {
        match self {
            Predicate::Eq(..) => 0,
            Predicate::In(_, v) if v.len() <= 4 => 1,
            Predicate::StartsWith(..) | Predicate::Spatial(..) => 2,
            Predicate::In(..) => 3,
            Predicate::Range(..) => 4,
        }
    }

    pub fn describe(&self) -> String {
        let p = format!("/{}", self.path().join("/"));
        match self {
            Predicate::Eq(..) => format!("index {p} ="),
            Predicate::In(_, v) => format!("index {p} IN ({})", v.len()),
            Predicate::Range(..) => format!("index {p} range"),
            Predicate::StartsWith(..) => format!("index {p} prefix"),
            Predicate::Spatial(_, cells) => format!("spatial index {p} ({} cells)", cells.len()),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Mode {
    Stream,
    /// ORDER BY plain paths of the item: (path, descending) in order.
    Ordered {
        keys: Vec<(Vec<String>, bool)>,
    },
    Whole,
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub mode: Mode,
    /// Indexable conjuncts, best first.
    pub predicates: Vec<Predicate>,
    /// Values of the partition key the filter fixes, if it does (for a hierarchical key, the
    /// values of its leading paths, in order).
    pub partition_values: Option<Vec<Value>>,
    pub limits: Limits,
    /// `SELECT * FROM c` with no JOIN and a filter made only of indexable conjuncts: when storage
    /// answers every conjunct exactly (routing and one exact index range), items are the rows.
    pub items_are_rows: bool,
    /// `SELECT VALUE COUNT(1) FROM c` (a literal or the item counted) with no JOIN, GROUP BY,
    /// DISTINCT, ORDER BY, TOP or OFFSET, and a filter made only of indexable conjuncts: when
    /// storage answers every conjunct exactly, the count is of the items storage selects.
    pub counts_items: bool,
    /// That count written as the SDKs' per-range form of it, `SELECT VALUE [{"item": COUNT(1)}]`
    /// (the rewritten query of a cross-partition plan, gateway `query_plan.rs`): answered
    /// `[{"item": n}]`, so a count the SDK fans out costs what the engine's own count costs.
    pub count_as_item: bool,
}

impl Plan {
    /// Whether reading with `access` (and routing) selects exactly the rows, so no item needs
    /// evaluating: every conjunct is the routing predicate or `access`, and no value is cut.
    pub fn exact_with(&self, access: Option<&Predicate>, pk_path: &[String]) -> bool {
        self.items_are_rows && self.filter_exact_with(access, pk_path)
    }

    /// Whether routing and `access` answer every conjunct of the filter exactly (no value cut).
    pub fn filter_exact_with(&self, access: Option<&Predicate>, pk_path: &[String]) -> bool {
        let exact_value = |v: &Value| match v {
            Value::String(s) => s.len() <= crate::index::encoding::MAX_STRING_BYTES,
            _ => true,
        };
        let routing = |p: &Predicate| matches!(p, Predicate::Eq(path, _) | Predicate::In(path, _) if path == pk_path);
        self.predicates.iter().all(|p| {
            let values_exact = match p {
                Predicate::Eq(_, v) => exact_value(v),
                Predicate::In(_, vs) => vs.iter().all(exact_value),
                Predicate::Range(_, lo, hi) => [lo, hi].iter().all(|b| match b {
                    std::ops::Bound::Included(v) | std::ops::Bound::Excluded(v) => exact_value(v),
                    std::ops::Bound::Unbounded => true,
                }),
                Predicate::StartsWith(_, s) => s.len() <= crate::index::encoding::MAX_STRING_BYTES,
                Predicate::Spatial(..) => false,
            };
            values_exact && (routing(p) || Some(p) == access)
        })
    }
}

/// Plans `q` for a container whose partition key paths are `pk_paths` (one, or a hierarchical
/// key's two or three).
pub fn plan(
    q: &Query,
    params: &Params,
    pk_paths: &[Vec<String>],
) -> Result<Plan, super::QueryError> {
    let limits = exec::limits(q, params)?;
    let shape = exec::shape(q);
    // Rows are the container's items only with a plain `FROM c`.
    let root = match &q.from {
        Some(f) if f.source.is_none() => Some(f.alias.as_str()),
        _ => None,
    };
    let mut predicates = Vec::new();
    let mut all_indexable = true;
    if let (Some(root), Some(filter)) = (root, &q.filter) {
        for c in conjuncts(filter) {
            match predicate(c, root, params) {
                Some(p) => predicates.push(p),
                None => all_indexable = false,
            }
        }
    }
    let items_are_rows = root.is_some()
        && q.joins.is_empty()
        && matches!(q.select, super::ast::Select::Star)
        && !shape.distinct
        && (q.filter.is_none() || all_indexable);
    let count_as_item = sdk_count(&q.select).is_some();
    let counts_items = root.is_some_and(|r| match (&q.select, sdk_count(&q.select)) {
        (_, Some(count)) => counts_each_item(count, r),
        (super::ast::Select::Value(e), None) => counts_each_item(e, r),
        _ => false,
    }) && q.joins.is_empty()
        && !shape.grouped
        && !shape.distinct
        && q.order_by.is_empty()
        && q.top.is_none()
        && q.offset_limit.is_none()
        && (q.filter.is_none() || all_indexable);
    predicates.sort_by_key(Predicate::rank);
    let partition_values = match pk_paths {
        [pk_path] => predicates.iter().find_map(|p| match p {
            Predicate::Eq(path, v) if path == pk_path => Some(vec![v.clone()]),
            Predicate::In(path, vs) if path == pk_path => Some(vs.clone()),
            _ => None,
        }),
        // A hierarchical key: the values its leading paths are equal to (a prefix, or all).
        _ => {
            let leading: Vec<Value> = pk_paths
                .iter()
                .map_while(|pk_path| {
                    predicates.iter().find_map(|p| match p {
                        Predicate::Eq(path, v) if path == pk_path => Some(v.clone()),
                        _ => None,
                    })
                })
                .collect();
            (!leading.is_empty()).then_some(leading)
        }
    };
    let order_paths: Option<Vec<(Vec<String>, bool)>> = q
        .order_by
        .iter()
        .map(|(e, desc)| match (root, e.as_path()) {
            (Some(r), Some((alias, path))) if alias == r && !path.is_empty() => Some((path, *desc)),
            _ => None,
        })
        .collect();
    // DISTINCT without ORDER BY streams: the continuation carries the hashes of the rows already
    // returned (as Cosmos DB's unordered DISTINCT does), so paging reads every item once.
    let mode = if q.from.is_none()
        || shape.aggregates
        || shape.grouped
        || (shape.distinct && (shape.ordered || q.rank))
    {
        Mode::Whole
    } else {
        match (q.order_by.len(), order_paths) {
            (0, _) => Mode::Stream,
            // A single path, or several a composite index may serve (decided on storage).
            (_, Some(keys)) => Mode::Ordered { keys },
            _ => Mode::Whole,
        }
    };
    Ok(Plan {
        mode,
        predicates,
        partition_values,
        limits,
        items_are_rows,
        counts_items,
        count_as_item,
    })
}

/// `q` with each top-level conjunct of its filter that is an `OR` of equalities on one path of
/// the root item (`c.n = 1 OR c.n = 2 OR …`) rewritten as the `IN` it means, with its values in a
/// hash set: evaluating a 16 000-term chain per candidate item cost more than finding the items.
/// Only where the filter's truth is all that counts: a conjunct of `WHERE` keeps a row exactly
/// when it is `true`, and an `OR` of equalities is `true` exactly when one of them is, as is the
/// `IN` (elsewhere, `undefined` and `false` differ). `None` when there is nothing to rewrite.
pub fn evaluated(q: &Query, params: &Params) -> Option<Query> {
    let root = match &q.from {
        Some(f) if f.source.is_none() => f.alias.as_str(),
        _ => return None,
    };
    let filter = q.filter.as_ref()?;
    let as_in = |e: &Expr| -> Option<Expr> {
        let Expr::Chain(first, rest) = e else {
            return None;
        };
        if rest.len() < super::value_set::MIN_ITEMS || rest.iter().any(|(op, _)| *op != "OR") {
            return None;
        }
        let Predicate::In(_, values) = or_of_equalities(e, root, params)? else {
            return None;
        };
        // The path the terms compare, as written (either side of the first `=`).
        let path = match first.as_ref() {
            Expr::Binary("=", a, b) => [a, b]
                .into_iter()
                .find(|x| root_path(x, root).is_some())?
                .clone(),
            _ => return None,
        };
        let set = super::value_set::ValueSet::of(&values)?;
        Some(Expr::In {
            expr: path,
            list: values.into_iter().map(Expr::Literal).collect(),
            negated: false,
            set: Some(std::sync::Arc::new(set)),
        })
    };
    let conjuncts = conjuncts(filter);
    let rewritten: Vec<Option<Expr>> = conjuncts.iter().map(|c| as_in(c)).collect();
    if rewritten.iter().all(Option::is_none) {
        return None;
    }
    let mut terms = conjuncts
        .into_iter()
        .zip(rewritten)
        .map(|(c, r)| r.unwrap_or_else(|| c.clone()));
    let first = terms.next()?;
    let rest: Vec<(&'static str, Expr)> = terms.map(|t| ("AND", t)).collect();
    let mut out = q.clone();
    out.filter = Some(if rest.is_empty() {
        first
    } else {
        Expr::Chain(Box::new(first), rest)
    });
    Some(out)
}

/// `VALUE COUNT(1)`, `VALUE COUNT(c)`: one per item, whatever the item holds (a literal, even
/// `null`, is defined for every row).
fn counts_each_item(value: &Expr, root: &str) -> bool {
    match value {
        Expr::Call { name, args } if name == "COUNT" => {
            matches!(args.as_slice(), [Expr::Literal(_)])
                || matches!(args.as_slice(), [Expr::Ident(a)] if a == root)
        }
        _ => false,
    }
}

/// `VALUE [{"item": COUNT(…)}]`, the SDKs' per-range aggregate: the count inside it.
fn sdk_count(select: &super::ast::Select) -> Option<&Expr> {
    let super::ast::Select::Value(Expr::Array(items)) = select else {
        return None;
    };
    let [Expr::Object(fields)] = items.as_slice() else {
        return None;
    };
    match fields.as_slice() {
        [(name, count @ Expr::Call { name: f, .. })] if name == "item" && f == "COUNT" => {
            Some(count)
        }
        _ => None,
    }
}

fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Binary("AND", a, b) => {
            let mut v = conjuncts(a);
            v.extend(conjuncts(b));
            v
        }
        Expr::Chain(first, rest) if rest.iter().all(|(op, _)| *op == "AND") => {
            let mut v = conjuncts(first);
            rest.iter().for_each(|(_, e)| v.extend(conjuncts(e)));
            v
        }
        other => vec![other],
    }
}

/// A constant: a literal or a bound parameter.
fn constant(e: &Expr, params: &Params) -> Option<Value> {
    match e {
        Expr::Literal(_) | Expr::Param(_) => {
            exec::eval(e, &Bindings::default(), params).ok().flatten()
        }
        _ => None,
    }
}

/// A constant value built of literals and parameters: `{"type": "Point", "coordinates": [1, 2]}`.
fn constant_value(e: &Expr, params: &Params) -> Option<Value> {
    fn literal(e: &Expr) -> bool {
        match e {
            Expr::Literal(_) | Expr::Param(_) => true,
            Expr::Unary("-", x) => literal(x),
            Expr::Array(items) => items.iter().all(literal),
            Expr::Object(fields) => fields.iter().all(|(_, v)| literal(v)),
            _ => false,
        }
    }
    literal(e)
        .then(|| exec::eval(e, &Bindings::default(), params).ok().flatten())
        .flatten()
}

fn root_path(e: &Expr, root: &str) -> Option<Vec<String>> {
    match e.as_path() {
        Some((alias, path)) if alias == root && !path.is_empty() => Some(path),
        _ => None,
    }
}

fn scalar(v: &Value) -> bool {
    !matches!(v, Value::Array(_) | Value::Object(_))
}

/// `ST_DISTANCE(path, g) < r` (or `<=`, either side), `ST_WITHIN(path, g)` and
/// `ST_INTERSECTS(path, g)` (either order) with a constant geometry `g`: the region a match must
/// lie in, as cells of the spatial index.
fn spatial_predicate(e: &Expr, root: &str, params: &Params) -> Option<Predicate> {
    use crate::geojson::geometry;
    use crate::index::spatial::{around, bounds, cover};
    let path_and_shape = |args: &[Expr], either: bool| {
        let geo = |x: &Expr| constant_value(x, params).and_then(|v| geometry(&v).ok());
        match (root_path(&args[0], root), geo(&args[1])) {
            (Some(p), Some(g)) => Some((p, g)),
            _ if either => Some((root_path(&args[1], root)?, geo(&args[0])?)),
            _ => None,
        }
    };
    let (path, boxes) = match e {
        Expr::Binary(op @ ("<" | "<=" | ">" | ">="), a, b) => {
            let (call, limit) = if matches!(*op, "<" | "<=") {
                (a, b)
            } else {
                (b, a)
            };
            let Expr::Call { name, args } = call.as_ref() else {
                return None;
            };
            if name != "ST_DISTANCE" {
                return None;
            }
            let r = constant(limit, params)?.as_f64()?;
            let (path, g) = path_and_shape(args, true)?;
            (path, around(&g, r))
        }
        Expr::Call { name, args } if name == "ST_WITHIN" => {
            let (path, g) = path_and_shape(args, false)?;
            (path, bounds(&g))
        }
        Expr::Call { name, args } if name == "ST_INTERSECTS" => {
            let (path, g) = path_and_shape(args, true)?;
            (path, bounds(&g))
        }
        _ => return None,
    };
    Some(Predicate::Spatial(path, cover(&boxes)))
}

/// `c.x = 1 OR c.x = 2 OR …` on one path of the root item: the `IN` it means, answered by one
/// index lookup per value (an index union) instead of a scan evaluating every term per item.
fn or_of_equalities(e: &Expr, root: &str, params: &Params) -> Option<Predicate> {
    fn terms<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) -> bool {
        match e {
            Expr::Binary("OR", a, b) => terms(a, out) && terms(b, out),
            Expr::Chain(first, rest) if rest.iter().all(|(op, _)| *op == "OR") => {
                terms(first, out) && rest.iter().all(|(_, t)| terms(t, out))
            }
            other => {
                out.push(other);
                true
            }
        }
    }
    let mut all = Vec::new();
    if !terms(e, &mut all) || all.len() < 2 {
        return None;
    }
    let mut path = None;
    let mut values = Vec::with_capacity(all.len());
    for t in all {
        match predicate(t, root, params)? {
            Predicate::Eq(p, v) if path.as_ref().is_none_or(|q| *q == p) => {
                path = Some(p);
                values.push(v);
            }
            Predicate::In(p, vs) if path.as_ref().is_none_or(|q| *q == p) => {
                path = Some(p);
                values.extend(vs);
            }
            _ => return None,
        }
    }
    Some(Predicate::In(path?, values))
}

fn predicate(e: &Expr, root: &str, params: &Params) -> Option<Predicate> {
    if let Some(p) = spatial_predicate(e, root, params) {
        return Some(p);
    }
    if let Some(p) = or_of_equalities(e, root, params) {
        return Some(p);
    }
    match e {
        Expr::Binary(op @ ("=" | "<" | "<=" | ">" | ">="), a, b) => {
            let (path, value, flipped) = match (root_path(a, root), constant(b, params)) {
                (Some(p), Some(v)) => (p, v, false),
                _ => (root_path(b, root)?, constant(a, params)?, true),
            };
            if !scalar(&value) {
                return None;
            }
            let op = match (*op, flipped) {
                (o, false) | (o @ "=", true) => o,
                ("<", true) => ">",
                ("<=", true) => ">=",
                (">", true) => "<",
                (_, true) => "<=",
            };
            Some(match op {
                "=" => Predicate::Eq(path, value),
                "<" => Predicate::Range(path, Bound::Unbounded, Bound::Excluded(value)),
                "<=" => Predicate::Range(path, Bound::Unbounded, Bound::Included(value)),
                ">" => Predicate::Range(path, Bound::Excluded(value), Bound::Unbounded),
                _ => Predicate::Range(path, Bound::Included(value), Bound::Unbounded),
            })
        }
        Expr::In {
            expr,
            list,
            negated: false,
            ..
        } => {
            let path = root_path(expr, root)?;
            let values: Option<Vec<Value>> = list
                .iter()
                .map(|x| constant(x, params).filter(scalar))
                .collect();
            Some(Predicate::In(path, values?))
        }
        Expr::Between {
            expr,
            low,
            high,
            negated: false,
        } => {
            let (lo, hi) = (constant(low, params)?, constant(high, params)?);
            (scalar(&lo) && scalar(&hi))
                .then(|| {
                    Predicate::Range(
                        root_path(expr, root).unwrap_or_default(),
                        Bound::Included(lo),
                        Bound::Included(hi),
                    )
                })
                .filter(|p| !p.path().is_empty())
        }
        Expr::Call { name, args } if name == "STARTSWITH" => {
            let case_sensitive = args
                .get(2)
                .map_or(Some(Value::Bool(false)), |a| constant(a, params))
                == Some(Value::Bool(false));
            match (root_path(&args[0], root), constant(&args[1], params)) {
                (Some(p), Some(Value::String(s))) if case_sensitive => {
                    Some(Predicate::StartsWith(p, s))
                }
                _ => None,
            }
        }
        Expr::Call { name, args } if name == "ARRAY_CONTAINS" => {
            let exact = args
                .get(2)
                .map_or(Some(Value::Bool(false)), |a| constant(a, params))
                == Some(Value::Bool(false));
            let mut path = root_path(&args[0], root)?;
            let v = constant(&args[1], params).filter(scalar)?;
            path.push("[]".into());
            exact.then_some(Predicate::Eq(path, v))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::parse;
    use serde_json::json;

    fn p(q: &str) -> Plan {
        let params: Params = [("@id".to_string(), json!("x"))].into_iter().collect();
        plan(&parse(q).unwrap(), &params, &[vec!["pk".to_string()]]).unwrap()
    }

    #[test]
    fn a_hierarchical_key_routes_on_its_leading_paths() {
        let paths = [
            vec!["t".to_string()],
            vec!["u".to_string()],
            vec!["s".to_string()],
        ];
        let p = |q: &str| plan(&parse(q).unwrap(), &Params::default(), &paths).unwrap();
        let values = |q: &str| p(q).partition_values;
        assert_eq!(
            values("SELECT * FROM c WHERE c.u = 'b' AND c.t = 'a'"),
            Some(vec![json!("a"), json!("b")])
        );
        assert_eq!(
            values("SELECT * FROM c WHERE c.t = 'a' AND c.u = 'b' AND c.s = 3"),
            Some(vec![json!("a"), json!("b"), json!(3)])
        );
        // Not a prefix: the first path is not fixed.
        assert_eq!(values("SELECT * FROM c WHERE c.u = 'b'"), None);
        assert_eq!(
            values("SELECT * FROM c WHERE c.t = 'a' AND c.s = 3"),
            Some(vec![json!("a")])
        );
    }

    #[test]
    fn the_sdks_per_range_count_is_a_count_of_items() {
        let q = p(r#"SELECT VALUE [{"item": COUNT(1)}] FROM c WHERE c.pk = 'a'"#);
        assert!(q.counts_items && q.count_as_item);
        let q = p("SELECT VALUE COUNT(1) FROM c");
        assert!(q.counts_items && !q.count_as_item);
        // Another aggregate in the same form is evaluated.
        let q = p(r#"SELECT VALUE [{"item": SUM(c.n)}] FROM c"#);
        assert!(!q.counts_items && !q.count_as_item);
        let q = p(r#"SELECT VALUE [{"item": COUNT(c.n)}] FROM c"#);
        assert!(!q.counts_items);
    }

    #[test]
    fn an_or_of_equalities_on_one_path_is_an_in() {
        let q = p("SELECT * FROM c WHERE c.a = 1 OR c.a = 2 OR c.a IN (3, 4) OR 5 = c.a");
        assert_eq!(
            q.predicates,
            vec![Predicate::In(
                vec!["a".into()],
                vec![json!(1), json!(2), json!(3), json!(4), json!(5)]
            )]
        );
        assert!(q.items_are_rows);
        // The partition key's: routed to those partitions.
        let r = p("SELECT * FROM c WHERE (c.pk = 'a' OR c.pk = 'b') AND c.n = 1");
        assert_eq!(r.partition_values, Some(vec![json!("a"), json!("b")]));
        // Two paths, or anything but equality: not an index lookup.
        assert!(p("SELECT * FROM c WHERE c.a = 1 OR c.b = 2")
            .predicates
            .is_empty());
        assert!(p("SELECT * FROM c WHERE c.a = 1 OR c.a > 2")
            .predicates
            .is_empty());
    }

    #[test]
    fn only_a_top_level_or_chain_is_evaluated_as_an_in() {
        let chain = |n: usize| {
            (0..n)
                .map(|i| format!("c.a = {i}"))
                .collect::<Vec<_>>()
                .join(" OR ")
        };
        let params = Params::default();
        let rewritten = |sql: String| {
            evaluated(&parse(&sql).unwrap(), &params).map(|q| match q.filter {
                Some(Expr::In { set, .. }) => set.is_some(),
                Some(Expr::Chain(first, rest)) => {
                    matches!(*first, Expr::Binary(..))
                        && matches!(&rest[0].1, Expr::In { set: Some(_), .. })
                }
                _ => false,
            })
        };
        assert_eq!(
            rewritten(format!("SELECT * FROM c WHERE {}", chain(20))),
            Some(true)
        );
        assert_eq!(
            rewritten(format!("SELECT * FROM c WHERE c.b > 1 AND ({})", chain(20))),
            Some(true)
        );
        // Under NOT undefined and false differ; short chains, and other paths, stay.
        assert_eq!(
            rewritten(format!("SELECT * FROM c WHERE NOT ({})", chain(20))),
            None
        );
        assert_eq!(
            rewritten(format!("SELECT * FROM c WHERE {}", chain(3))),
            None
        );
        assert_eq!(
            rewritten(format!("SELECT * FROM c WHERE {} OR c.b = 1", chain(20))),
            None
        );
    }

    #[test]
    fn plans() {
        let a = p("SELECT * FROM c WHERE c.pk = @id AND c.n > 3");
        assert_eq!(a.partition_values, Some(vec![json!("x")]));
        assert_eq!(a.mode, Mode::Stream);
        assert_eq!(
            a.predicates[0],
            Predicate::Eq(vec!["pk".into()], json!("x"))
        );
        let b = p("SELECT TOP 10 * FROM c WHERE 3 < c.n ORDER BY c.date DESC");
        assert_eq!(
            b.mode,
            Mode::Ordered {
                keys: vec![(vec!["date".into()], true)]
            }
        );
        assert_eq!(
            b.predicates[0],
            Predicate::Range(
                vec!["n".into()],
                Bound::Excluded(json!(3)),
                Bound::Unbounded
            )
        );
        assert_eq!(b.limits.needed(), Some(10));
        assert_eq!(p("SELECT VALUE COUNT(1) FROM c").mode, Mode::Whole);
        assert_eq!(
            p("SELECT * FROM c ORDER BY c.a, c.b DESC").mode,
            Mode::Ordered {
                keys: vec![(vec!["a".into()], false), (vec!["b".into()], true)]
            }
        );
        assert_eq!(
            p("SELECT * FROM c ORDER BY c.a, LOWER(c.b)").mode,
            Mode::Whole
        );
        assert_eq!(
            p("SELECT * FROM c WHERE ARRAY_CONTAINS(c.tags, 'a')").predicates[0],
            Predicate::Eq(vec!["tags".into(), "[]".into()], json!("a"))
        );
        assert!(p("SELECT * FROM c WHERE c.a = 1 OR c.b = 2")
            .predicates
            .is_empty());
        assert!(p("SELECT * FROM c WHERE STARTSWITH(c.s, 'a', true)")
            .predicates
            .is_empty());
        assert_eq!(
            p("SELECT * FROM t IN c.tags WHERE t = 'a'").mode,
            Mode::Stream
        );
    }
}
