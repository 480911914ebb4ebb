//! Computed properties: a container's `computedProperties`, each a top-level name and a query
//! `SELECT VALUE <expr> FROM c` whose value is derived from the item when a query reads it,
//! never stored ("Computed properties in Azure Cosmos DB for NoSQL", learn.microsoft.com).
//!
//! A query over the container refers to one as `c.<name>` (or `c["<name>"]`) where `c` is its
//! FROM alias; [`resolve`] replaces each such reference by the property's expression (its alias
//! renamed to the query's) before the query is planned, so the evaluator computes it per item.
//! As the service does, a computed property hides a persisted property of the same name
//! everywhere but in `SELECT *`, which returns the item as stored. Computed properties are not
//! indexed here: a filter on one reads every candidate item of the query's scope.

use std::sync::Arc;

use serde_json::Value;

use super::ast::{Expr, From, Query, Select};
use crate::catalog::{ComputedProperty, ContainerDef};
use crate::error::{Error, Result};

/// The service's limit of computed properties per container.
pub const MAX_COMPUTED_PROPERTIES: usize = 20;

impl ContainerDef {
    /// Its computed properties as the evaluator takes them, compiled once per definition. Here,
    /// not in `catalog`: the catalog, below the query language, keeps them without their type.
    pub(crate) fn computed(&self) -> Result<Arc<Vec<Compiled>>> {
        self.compiled_computed(compile)
    }
}

/// A definition parsed: the expression and the alias it names the item by.
#[derive(Debug, Clone)]
pub struct Compiled {
    name: String,
    alias: String,
    expr: Expr,
}

/// System properties a computed property may not shadow (the docs name `id`, `_rid`, `_ts`).
const RESERVED: &[&str] = &[
    "id",
    "_rid",
    "_ts",
    "_etag",
    "_self",
    "_attachments",
    "_lsn",
];

/// Functions whose value is not a function of the item alone (the docs' "non-deterministic
/// scalar expressions").
const NON_DETERMINISTIC: &[&str] = &[
    "GETCURRENTDATETIME",
    "GETCURRENTTIMESTAMP",
    "GETCURRENTTICKS",
    "GETCURRENTDATETIMESTATIC",
    "GETCURRENTTICKSSTATIC",
    "GETCURRENTTIMESTAMPSTATIC",
    "RAND",
];

fn invalid(message: String) -> Error {
    Error::bad("computedProperties", message)
}

/// Checks a container's definitions against the service's rules and compiles them: unique
/// names, not a system property, not nested; at most 20; each query `SELECT VALUE <expr> FROM
/// <alias>` with none of JOIN, WHERE, GROUP BY, ORDER BY, TOP, DISTINCT, OFFSET LIMIT,
/// subqueries, aggregates, spatial or non-deterministic functions, UDFs, parameters, and no
/// reference to another computed property.
pub fn compile(props: &[ComputedProperty]) -> Result<Vec<Compiled>> {
    if props.len() > MAX_COMPUTED_PROPERTIES {
        return Err(invalid(format!(
            "A container has at most {MAX_COMPUTED_PROPERTIES} computed properties ({} given).",
            props.len()
        )));
    }
    let mut out: Vec<Compiled> = Vec::with_capacity(props.len());
    for p in props {
        let name = p.name.as_str();
        if name.is_empty() || name.contains(['/', '.', '[', ']', '"', '\'']) {
            return Err(invalid(format!(
                "Computed property name '{name}' is invalid: it names a top-level property \
                 (no nested path)."
            )));
        }
        if RESERVED.contains(&name) {
            return Err(invalid(format!(
                "Computed property name '{name}' is a reserved system property name."
            )));
        }
        if out.iter().any(|c| c.name == name) {
            return Err(invalid(format!(
                "Computed property name '{name}' is defined more than once."
            )));
        }
        let (alias, expr) = expression(name, &p.query)?;
        out.push(Compiled {
            name: name.to_owned(),
            alias,
            expr,
        });
    }
    // A computed property cannot rely on another one.
    for c in &out {
        let mut uses = None;
        c.expr.walk(&mut |e| {
            if let Some(n) = referenced_name(e, &c.alias) {
                if out.iter().any(|o| o.name == n) {
                    uses = Some(n.to_owned());
                }
            }
        });
        if let Some(other) = uses {
            return Err(invalid(format!(
                "Computed property '{}' refers to computed property '{other}': a computed \
                 property cannot use another.",
                c.name
            )));
        }
    }
    Ok(out)
}

/// The alias and expression of `SELECT VALUE <expr> FROM <alias>`, or why the query is refused.
fn expression(name: &str, query: &str) -> Result<(String, Expr)> {
    let refuse = |why: &str| {
        invalid(format!(
            "The query of computed property '{name}' is invalid: {why} (a computed property's \
             query is SELECT VALUE <expression> FROM c)."
        ))
    };
    let q = super::parse(query).map_err(|e| refuse(&e.to_string()))?;
    let expr = match &q.select {
        Select::Value(e) => e.clone(),
        _ => return Err(refuse("it must use SELECT VALUE")),
    };
    let alias = match &q.from {
        Some(From {
            alias,
            source: None,
            ..
        }) => alias.clone(),
        _ => return Err(refuse("its FROM clause must name the item (FROM c)")),
    };
    let clauses = [
        (!q.joins.is_empty(), "JOIN"),
        (q.filter.is_some(), "WHERE"),
        (!q.group_by.is_empty(), "GROUP BY"),
        (!q.order_by.is_empty(), "ORDER BY"),
        (q.top.is_some(), "TOP"),
        (q.distinct, "DISTINCT"),
        (q.offset_limit.is_some(), "OFFSET LIMIT"),
        (!q.params.is_empty(), "parameters"),
    ];
    if let Some((_, clause)) = clauses.iter().find(|(used, _)| *used) {
        return Err(refuse(&format!("it cannot use {clause}")));
    }
    let mut why: Option<String> = None;
    expr.walk(&mut |e| {
        let found = match e {
            Expr::Exists(_) | Expr::ArraySub(_) | Expr::Scalar(_) => {
                Some("it cannot contain a subquery".to_owned())
            }
            Expr::Param(_) => Some("it cannot use parameters".to_owned()),
            Expr::Ident(a) if *a != alias => Some(format!("'{a}' is not its FROM alias")),
            Expr::Call { name: f, .. } => {
                let upper = f.to_ascii_uppercase();
                if super::functions::is_aggregate(f) {
                    Some(format!("it cannot use the aggregate {f}"))
                } else if upper.starts_with("UDF.") {
                    Some("it cannot call a user-defined function".to_owned())
                } else if upper.starts_with("ST_") {
                    Some(format!("it cannot use the spatial function {f}"))
                } else if NON_DETERMINISTIC.contains(&upper.as_str()) {
                    Some(format!("it cannot use the non-deterministic function {f}"))
                } else {
                    None
                }
            }
            _ => None,
        };
        if why.is_none() {
            why = found;
        }
    });
    if let Some(why) = why {
        return Err(refuse(&why));
    }
    Ok((alias, expr))
}

/// `name` when `e` is `<alias>.name` or `<alias>["name"]`.
fn referenced_name<'e>(e: &'e Expr, alias: &str) -> Option<&'e str> {
    match e {
        Expr::Property(base, name) if matches!(base.as_ref(), Expr::Ident(a) if a == alias) => {
            Some(name)
        }
        Expr::Index(base, idx) if matches!(base.as_ref(), Expr::Ident(a) if a == alias) => {
            match idx.as_ref() {
                Expr::Literal(Value::String(name)) => Some(name),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `q` with every reference to a computed property of `props` replaced by its expression; `None`
/// when it refers to none (the query runs as it is).
pub fn resolve(props: &[Compiled], q: &Query) -> Option<Query> {
    if props.is_empty() {
        return None;
    }
    let root = match &q.from {
        Some(From {
            alias,
            source: None,
            ..
        }) => alias.clone(),
        // `FROM x IN c.tags`, `FROM (subquery)`, no FROM: the alias is not the item.
        _ => return None,
    };
    let mut out = q.clone();
    let mut changed = false;
    let r = Rewriter { props, root: &root };
    // A select item that is a computed property keeps its name (`SELECT c.cp_lower` answers
    // `{"cp_lower": ...}`), as a persisted property's path would.
    if let Select::Items(items) = &mut out.select {
        for (e, alias) in items.iter_mut() {
            if alias.is_none() {
                if let Some(p) = r.property(e) {
                    *alias = Some(p.name.clone());
                }
            }
        }
    }
    r.query_top(&mut out, &mut changed);
    changed.then_some(out)
}

struct Rewriter<'a> {
    props: &'a [Compiled],
    root: &'a str,
}

impl Rewriter<'_> {
    fn property(&self, e: &Expr) -> Option<&Compiled> {
        let name = referenced_name(e, self.root)?;
        self.props.iter().find(|p| p.name == name)
    }

    /// The outermost query: its FROM alias is `root`, except where a JOIN rebinds it.
    fn query_top(&self, q: &mut Query, changed: &mut bool) {
        let rebound = q.joins.iter().any(|j| j.alias == self.root);
        for j in &mut q.joins {
            self.expr(&mut j.source, changed);
        }
        if rebound {
            return;
        }
        self.clauses(q, changed);
    }

    fn clauses(&self, q: &mut Query, changed: &mut bool) {
        match &mut q.select {
            Select::Star => {}
            Select::Value(e) => self.expr(e, changed),
            Select::Items(items) => items.iter_mut().for_each(|(e, _)| self.expr(e, changed)),
        }
        if let Some(t) = &mut q.top {
            self.expr(t, changed);
        }
        if let Some(f) = &mut q.filter {
            self.expr(f, changed);
        }
        q.group_by.iter_mut().for_each(|e| self.expr(e, changed));
        q.order_by
            .iter_mut()
            .for_each(|(e, _)| self.expr(e, changed));
        if let Some((a, b)) = &mut q.offset_limit {
            self.expr(a, changed);
            self.expr(b, changed);
        }
    }

    /// A subquery sees the outer item under `root` unless it binds that name itself.
    fn subquery(&self, q: &mut Query, changed: &mut bool) {
        if let Some(from) = &mut q.from {
            if let Some(src) = &mut from.source {
                self.expr(src, changed);
            }
            if from.alias == self.root {
                return;
            }
        }
        for j in &mut q.joins {
            self.expr(&mut j.source, changed);
        }
        if q.joins.iter().any(|j| j.alias == self.root) {
            return;
        }
        self.clauses(q, changed);
    }

    fn expr(&self, e: &mut Expr, changed: &mut bool) {
        if let Some(p) = self.property(e) {
            let mut replacement = p.expr.clone();
            rename(&mut replacement, &p.alias, self.root);
            *e = replacement;
            *changed = true;
            return;
        }
        match e {
            Expr::Property(a, _) | Expr::Unary(_, a) => self.expr(a, changed),
            Expr::Index(a, b) | Expr::Binary(_, a, b) | Expr::Coalesce(a, b) => {
                self.expr(a, changed);
                self.expr(b, changed);
            }
            Expr::Chain(first, rest) => {
                self.expr(first, changed);
                rest.iter_mut().for_each(|(_, e)| self.expr(e, changed));
            }
            Expr::Between {
                expr, low, high, ..
            } => {
                self.expr(expr, changed);
                self.expr(low, changed);
                self.expr(high, changed);
            }
            Expr::In { expr, list, .. } => {
                self.expr(expr, changed);
                list.iter_mut().for_each(|e| self.expr(e, changed));
            }
            Expr::Like {
                expr,
                pattern,
                escape,
                ..
            } => {
                self.expr(expr, changed);
                self.expr(pattern, changed);
                if let Some(x) = escape {
                    self.expr(x, changed);
                }
            }
            Expr::Ternary(a, b, c) => {
                self.expr(a, changed);
                self.expr(b, changed);
                self.expr(c, changed);
            }
            Expr::Call { args, .. } | Expr::Array(args) => {
                args.iter_mut().for_each(|e| self.expr(e, changed))
            }
            Expr::Object(fields) => fields.iter_mut().for_each(|(_, e)| self.expr(e, changed)),
            Expr::Exists(q) | Expr::ArraySub(q) | Expr::Scalar(q) => self.subquery(q, changed),
            Expr::Literal(_) | Expr::Undefined | Expr::Param(_) | Expr::Ident(_) => {}
        }
    }
}

/// Renames the alias `from` to `to` in a computed property's expression (which has no
/// subqueries, so no alias of its own can shadow it).
fn rename(e: &mut Expr, from: &str, to: &str) {
    if from == to {
        return;
    }
    match e {
        Expr::Ident(a) if a == from => *a = to.to_owned(),
        Expr::Property(a, _) | Expr::Unary(_, a) => rename(a, from, to),
        Expr::Index(a, b) | Expr::Binary(_, a, b) | Expr::Coalesce(a, b) => {
            rename(a, from, to);
            rename(b, from, to);
        }
        Expr::Chain(first, rest) => {
            rename(first, from, to);
            rest.iter_mut().for_each(|(_, e)| rename(e, from, to));
        }
        Expr::Between {
            expr, low, high, ..
        } => {
            rename(expr, from, to);
            rename(low, from, to);
            rename(high, from, to);
        }
        Expr::In { expr, list, .. } => {
            rename(expr, from, to);
            list.iter_mut().for_each(|e| rename(e, from, to));
        }
        Expr::Like {
            expr,
            pattern,
            escape,
            ..
        } => {
            rename(expr, from, to);
            rename(pattern, from, to);
            if let Some(x) = escape {
                rename(x, from, to);
            }
        }
        Expr::Ternary(a, b, c) => {
            rename(a, from, to);
            rename(b, from, to);
            rename(c, from, to);
        }
        Expr::Call { args, .. } | Expr::Array(args) => {
            args.iter_mut().for_each(|e| rename(e, from, to))
        }
        Expr::Object(fields) => fields.iter_mut().for_each(|(_, e)| rename(e, from, to)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::{execute, parse, Params};
    use serde_json::json;

    fn props() -> Vec<Compiled> {
        compile(&[
            ComputedProperty::new("cp_lower", "SELECT VALUE LOWER(c.group) FROM c"),
            ComputedProperty::new("cp_sq", "SELECT VALUE POWER(r.val, 2) FROM root r"),
        ])
        .unwrap()
    }

    fn run(sql: &str) -> Vec<Value> {
        let q = parse(sql).unwrap();
        let q = resolve(&props(), &q).unwrap_or(q);
        let items = vec![
            json!({"id": "1", "group": "GrOuP1", "val": 3, "cp_sq": "stored"}),
            json!({"id": "2", "group": "group2", "val": 5}),
        ];
        execute(&q, &Params::default(), items).unwrap()
    }

    #[test]
    fn a_query_filters_orders_and_projects_by_computed_properties() {
        assert_eq!(
            run("SELECT VALUE x.id FROM x WHERE x.cp_lower = 'group1'"),
            vec![json!("1")]
        );
        assert_eq!(
            run("SELECT c.id, c.cp_sq FROM c ORDER BY c.cp_sq DESC"),
            vec![
                json!({"id": "2", "cp_sq": 25}),
                json!({"id": "1", "cp_sq": 9})
            ]
        );
        assert_eq!(
            run("SELECT VALUE c['cp_lower'] FROM c WHERE c.id = '2'"),
            vec![json!("group2")]
        );
        // Inside a subquery the outer alias still names the item.
        assert_eq!(
            run("SELECT VALUE c.id FROM c WHERE EXISTS(SELECT VALUE 1 FROM t IN [1] WHERE c.cp_sq > 10)"),
            vec![json!("2")]
        );
    }

    #[test]
    fn select_star_returns_the_item_as_stored() {
        // The persisted `cp_sq` is returned by `*`, and hidden by the computed one elsewhere.
        let rows = run("SELECT * FROM c WHERE c.id = '1'");
        assert_eq!(rows[0]["cp_sq"], json!("stored"));
        assert!(rows[0].get("cp_lower").is_none());
        assert_eq!(
            run("SELECT VALUE c.cp_sq FROM c WHERE c.id = '1'"),
            vec![json!(9)]
        );
    }

    #[test]
    fn a_query_naming_none_is_left_as_it_is() {
        let q = parse("SELECT * FROM c WHERE c.group = 'x'").unwrap();
        assert!(resolve(&props(), &q).is_none());
    }

    #[test]
    fn definitions_are_checked_as_the_service_checks_them() {
        let refused = |name: &str, query: &str| {
            compile(&[ComputedProperty::new(name, query)])
                .unwrap_err()
                .to_string()
        };
        assert!(refused("id", "SELECT VALUE 1 FROM c").contains("reserved"));
        assert!(refused("a.b", "SELECT VALUE 1 FROM c").contains("nested"));
        assert!(refused("cp", "SELECT LOWER(c.a) FROM c").contains("SELECT VALUE"));
        assert!(refused("cp", "SELECT VALUE c.a FROM c WHERE c.b = 1").contains("WHERE"));
        assert!(refused("cp", "SELECT VALUE t FROM c JOIN t IN c.tags").contains("JOIN"));
        assert!(refused("cp", "SELECT VALUE COUNT(1) FROM c").contains("aggregate"));
        assert!(refused("cp", "SELECT VALUE RAND() FROM c").contains("non-deterministic"));
        assert!(refused("cp", "SELECT VALUE udf.f(c) FROM c").contains("user-defined"));
        assert!(refused(
            "cp",
            "SELECT VALUE ARRAY(SELECT VALUE t FROM t IN c.tags) FROM c"
        )
        .contains("subquery"));
        assert!(refused("cp", "SELECT VALUE c.a FROM c IN c.tags").contains("FROM c"));
        assert!(refused("cp", "SELEC VALUE 1").contains("invalid"));
        let twice = [
            ComputedProperty::new("cp", "SELECT VALUE 1 FROM c"),
            ComputedProperty::new("cp", "SELECT VALUE 2 FROM c"),
        ];
        assert!(compile(&twice)
            .unwrap_err()
            .to_string()
            .contains("more than once"));
        let chained = [
            ComputedProperty::new("cp_a", "SELECT VALUE 1 FROM c"),
            ComputedProperty::new("cp_b", "SELECT VALUE c.cp_a + 1 FROM c"),
        ];
        assert!(compile(&chained)
            .unwrap_err()
            .to_string()
            .contains("cannot use another"));
        let many: Vec<_> = (0..=MAX_COMPUTED_PROPERTIES)
            .map(|i| ComputedProperty::new(&format!("cp{i}"), "SELECT VALUE 1 FROM c"))
            .collect();
        assert!(compile(&many)
            .unwrap_err()
            .to_string()
            .contains("at most 20"));
        assert!(compile(&many[..MAX_COMPUTED_PROPERTIES]).is_ok());
    }
}
