//! Expression evaluation against the bindings of one row (the FROM and JOIN aliases).

use std::collections::HashMap;
use std::rc::Rc;

use serde_json::{Map, Value};

use super::ast::{Expr, Query};
use super::error::QueryError;
use super::functions;
use super::value::{self, Val};

/// Query parameters by name (`@id` → value).
pub type Params = HashMap<String, Value>;

/// Runs a subquery (`EXISTS(...)`, `ARRAY(...)`, `(SELECT ...)`) correlated to the bindings of
/// the outer row. A subquery is a whole query, run by the executor above this module, which
/// passes its runner in (`exec::eval`): evaluation names nothing above it.
pub type Subquery = fn(&Query, &Bindings, &Params) -> Result<Vec<Value>, QueryError>;

/// What an expression is evaluated with besides its row: the query's parameters and the runner
/// of its subqueries.
#[derive(Clone, Copy)]
pub struct Scope<'a> {
    pub params: &'a Params,
    pub subquery: Subquery,
}

/// The aliases bound in one row, innermost last. Values are shared between the rows a JOIN
/// makes from one item (a row is a few pointers, not a copy of its item).
#[derive(Debug, Clone, Default)]
pub struct Bindings(pub Vec<(String, Rc<Value>)>);

impl Bindings {
    pub fn of(name: &str, v: Value) -> Bindings {
        Bindings(vec![(name.to_owned(), Rc::new(v))])
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_ref())
    }

    pub fn with(&self, name: &str, v: Value) -> Bindings {
        let mut b = self.clone();
        b.0.push((name.to_owned(), Rc::new(v)));
        b
    }

    /// The value bound to `name`, moved out when no other row shares it.
    pub fn take(mut self, name: &str) -> Option<Value> {
        let i = self.0.iter().rposition(|(n, _)| n == name)?;
        let v = self.0.swap_remove(i).1;
        Some(Rc::try_unwrap(v).unwrap_or_else(|v| (*v).clone()))
    }
}

/// A property path (`c.a["b"][0]`) resolved by reference: only the value reached is copied.
/// `None` when `e` is not a path; `Some(None)` when the path leads nowhere (undefined).
fn resolve<'v>(e: &Expr, row: &'v Bindings) -> Option<Option<&'v Value>> {
    match e {
        Expr::Ident(name) => row.get(name).map(Some),
        Expr::Property(base, name) => Some(resolve(base, row)?.and_then(|v| v.get(name))),
        Expr::Index(base, idx) => match idx.as_ref() {
            Expr::Literal(Value::String(k)) => Some(resolve(base, row)?.and_then(|v| v.get(k))),
            Expr::Literal(Value::Number(n)) => {
                let i = n.as_f64().filter(|i| i.fract() == 0.0 && *i >= 0.0)?;
                Some(
                    resolve(base, row)?
                        .and_then(|v| v.as_array())
                        .and_then(|a| a.get(i as usize)),
                )
            }
            _ => None,
        },
        _ => None,
    }
}

pub fn eval(e: &Expr, row: &Bindings, cx: &Scope<'_>) -> Result<Val, QueryError> {
    use super::parser::{RED_ZONE, STACK_GROWTH};
    stacker::maybe_grow(RED_ZONE, STACK_GROWTH, || eval_inner(e, row, cx))
}

fn eval_inner(e: &Expr, row: &Bindings, cx: &Scope<'_>) -> Result<Val, QueryError> {
    if matches!(e, Expr::Property(..) | Expr::Index(..)) {
        if let Some(found) = resolve(e, row) {
            return Ok(found.cloned());
        }
    }
    Ok(match e {
        Expr::Literal(v) => Some(v.clone()),
        Expr::Undefined => None,
        Expr::Param(p) => Some(
            cx.params
                .get(p)
                .cloned()
                .ok_or_else(|| QueryError::Semantic(format!("the parameter {p} has no value")))?,
        ),
        Expr::Ident(name) => Some(row.get(name).cloned().ok_or_else(|| {
            QueryError::Semantic(format!("identifier '{name}' could not be resolved"))
        })?),
        Expr::Property(base, name) => match eval(base, row, cx)? {
            Some(Value::Object(mut m)) => m.shift_remove(name),
            _ => None,
        },
        Expr::Index(base, idx) => match (eval(base, row, cx)?, eval(idx, row, cx)?) {
            (Some(Value::Object(mut m)), Some(Value::String(k))) => m.shift_remove(&k),
            (Some(Value::Array(a)), Some(Value::Number(n))) => n
                .as_f64()
                .filter(|i| i.fract() == 0.0 && *i >= 0.0)
                .and_then(|i| a.get(i as usize).cloned()),
            _ => None,
        },
        Expr::Unary(op, x) => {
            let v = eval(x, row, cx)?;
            if *op == "NOT" {
                value::not(&v)
            } else {
                value::unary(op, &v)
            }
        }
        Expr::Binary(op, a, b) => apply(op, eval(a, row, cx)?, b, row, cx)?,
        Expr::Chain(first, rest) => {
            let mut x = eval(first, row, cx)?;
            for (op, b) in rest {
                x = apply(op, x, b, row, cx)?;
            }
            x
        }
        Expr::Between {
            expr,
            low,
            high,
            negated,
        } => {
            let x = eval(expr, row, cx)?;
            let r = value::and(
                &value::compare(">=", &x, &eval(low, row, cx)?),
                &value::compare("<=", &x, &eval(high, row, cx)?),
            );
            if *negated {
                value::not(&r)
            } else {
                r
            }
        }
        Expr::In {
            expr,
            list,
            negated,
            set,
        } => {
            let x = eval(expr, row, cx)?;
            let Some(v) = &x else {
                return Ok(None);
            };
            if let Some(set) = set {
                return Ok(Some(Value::Bool(set.contains(v) != *negated)));
            }
            let mut found = false;
            for item in list {
                if value::compare("=", &x, &eval(item, row, cx)?) == Some(Value::Bool(true)) {
                    found = true;
                    break;
                }
            }
            Some(Value::Bool(found != *negated))
        }
        Expr::Like {
            expr,
            pattern,
            escape,
            negated,
        } => {
            let (x, p) = (eval(expr, row, cx)?, eval(pattern, row, cx)?);
            let esc = match escape {
                Some(e) => match eval(e, row, cx)? {
                    Some(Value::String(s)) if s.chars().count() == 1 => s.chars().next(),
                    _ => {
                        return Err(QueryError::Semantic(
                            "ESCAPE takes a single character".into(),
                        ))
                    }
                },
                None => None,
            };
            match (x, p) {
                (Some(Value::String(x)), Some(Value::String(p))) => {
                    let m = like_regex(&p, esc).is_some_and(|r| r.is_match(&x));
                    Some(Value::Bool(m != *negated))
                }
                _ => None,
            }
        }
        Expr::Ternary(c, a, b) => {
            if eval(c, row, cx)? == Some(Value::Bool(true)) {
                eval(a, row, cx)?
            } else {
                eval(b, row, cx)?
            }
        }
        Expr::Coalesce(a, b) => match eval(a, row, cx)? {
            Some(v) => Some(v),
            None => eval(b, row, cx)?,
        },
        Expr::Call { name, args } => {
            if functions::is_aggregate(name) {
                return Err(QueryError::Semantic(format!(
                    "{name} is an aggregate and cannot be used here"
                )));
            }
            let vals = args
                .iter()
                .map(|a| eval(a, row, cx))
                .collect::<Result<Vec<_>, _>>()?;
            match name.strip_prefix("udf.") {
                Some(udf) => super::udf::call(udf, &vals)?,
                // Its pattern can be refused: an error, not `undefined`.
                None if name == "REGEXMATCH" => functions::regex_match(&vals)?,
                None => functions::call(name, &vals),
            }
        }
        Expr::Object(fields) => {
            let mut m = Map::new();
            for (k, e) in fields {
                if let Some(v) = value::defined(eval(e, row, cx)?) {
                    m.insert(k.clone(), v);
                }
            }
            Some(Value::Object(m))
        }
        Expr::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for e in items {
                if let Some(v) = value::defined(eval(e, row, cx)?) {
                    out.push(v);
                }
            }
            Some(Value::Array(out))
        }
        Expr::Exists(q) => Some(Value::Bool(!(cx.subquery)(q, row, cx.params)?.is_empty())),
        Expr::ArraySub(q) => Some(Value::Array((cx.subquery)(q, row, cx.params)?)),
        Expr::Scalar(q) => (cx.subquery)(q, row, cx.params)?.into_iter().next(),
    })
}

/// `LIKE` pattern → anchored regex: `%` any run, `_` one character, `[...]` a class, `esc` quotes.
fn like_regex(p: &str, esc: Option<char>) -> Option<regex::Regex> {
    let mut re = String::from("(?s)^");
    let mut chars = p.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if Some(c) == esc => {
                if let Some(n) = chars.next() {
                    re.push_str(&regex::escape(&n.to_string()));
                }
            }
            '%' => re.push_str(".*"),
            '_' => re.push('.'),
            '[' => {
                let mut class = String::from("[");
                if chars.peek() == Some(&'^') {
                    class.push('^');
                    chars.next();
                }
                for n in chars.by_ref() {
                    if n == ']' {
                        break;
                    }
                    if n == '\\' || n == '[' {
                        class.push('\\');
                    }
                    class.push(n);
                }
                class.push(']');
                re.push_str(&class);
            }
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    regex::Regex::new(&re).ok()
}

/// `x op b`, evaluating `b` only when the answer is not already known.
fn apply(
    op: &str,
    x: Option<Value>,
    b: &Expr,
    row: &Bindings,
    cx: &Scope<'_>,
) -> Result<Option<Value>, QueryError> {
    Ok(match op {
        "AND" if x == Some(Value::Bool(false)) => x,
        "OR" if x == Some(Value::Bool(true)) => x,
        "AND" => value::and(&x, &eval(b, row, cx)?),
        "OR" => value::or(&x, &eval(b, row, cx)?),
        "=" | "!=" | "<>" | "<" | "<=" | ">" | ">=" => value::compare(op, &x, &eval(b, row, cx)?),
        _ => value::arithmetic(op, &x, &eval(b, row, cx)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::ast::Select;
    use crate::sql::parser::parse;
    use serde_json::json;

    fn v(expr: &str, doc: Value) -> Val {
        let q = parse(&format!("SELECT VALUE {expr} FROM c")).unwrap();
        let Select::Value(e) = q.select else {
            unreachable!()
        };
        let cx = Scope {
            params: &Params::new(),
            subquery: |_, _, _| Err(QueryError::Semantic("no subqueries here".into())),
        };
        eval(&e, &Bindings::of("c", doc), &cx).unwrap()
    }

    #[test]
    fn operators() {
        let d = json!({"a": {"b": 2}, "arr": [10, 20], "s": "abc", "n": null});
        assert_eq!(v("c.a.b + 1", d.clone()), Some(json!(3)));
        assert_eq!(v("c.arr[1]", d.clone()), Some(json!(20)));
        assert_eq!(v("c[\"s\"] || 'd'", d.clone()), Some(json!("abcd")));
        assert_eq!(v("c.missing ?? 5", d.clone()), Some(json!(5)));
        assert_eq!(v("c.n ?? 5", d.clone()), Some(json!(null)));
        assert_eq!(v("c.s LIKE 'a_c'", d.clone()), Some(json!(true)));
        assert_eq!(
            v("c.s LIKE 'a!%' ESCAPE '!'", d.clone()),
            Some(json!(false))
        );
        assert_eq!(
            v("'50%' LIKE '50!%' ESCAPE '!'", d.clone()),
            Some(json!(true))
        );
        assert_eq!(v("c.s LIKE '[a-b]%'", d.clone()), Some(json!(true)));
        assert_eq!(v("c.a.b BETWEEN 1 AND 2", d.clone()), Some(json!(true)));
        assert_eq!(v("c.a.b IN (1, '2')", d.clone()), Some(json!(false)));
        assert_eq!(
            v("c.a.b > 1 ? 'big' : 'small'", d.clone()),
            Some(json!("big"))
        );
        assert_eq!(v("{x: c.missing, y: 1}", d.clone()), Some(json!({"y": 1})));
        assert_eq!(v("NOT (c.missing = 1)", d), None);
    }
}
