//! The syntax tree of a query.

use serde_json::Value;

#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    pub(crate) distinct: bool,
    pub(crate) top: Option<Expr>,
    pub(crate) select: Select,
    pub(crate) from: Option<From>,
    pub(crate) joins: Vec<Join>,
    pub(crate) filter: Option<Expr>,
    pub(crate) group_by: Vec<Expr>,
    pub(crate) order_by: Vec<(Expr, bool)>,
    /// `ORDER BY RANK <scoring function>`: `order_by` holds that one function (`FULLTEXTSCORE`,
    /// `VECTORDISTANCE` or `RRF` of them), and rows are sorted best first.
    pub(crate) rank: bool,
    pub(crate) offset_limit: Option<(Expr, Expr)>,
    /// Every `@parameter` the query text uses (filled on the outermost query).
    pub(crate) params: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Select {
    /// `SELECT *`
    Star,
    /// `SELECT VALUE expr`
    Value(Expr),
    /// `SELECT a, b AS x`
    Items(Vec<(Expr, Option<String>)>),
}

/// `FROM c`, `FROM root r`, `FROM c IN c.tags`, `FROM (SELECT ...) s`.
#[derive(Debug, Clone, PartialEq)]
pub struct From {
    pub alias: String,
    /// `None` = the container's items.
    pub source: Option<Expr>,
    /// `FROM x IN expr`: iterate the array `source`.
    pub iterate: bool,
}

/// `JOIN t IN c.tags` or `JOIN (SELECT ...) AS t`.
#[derive(Debug, Clone, PartialEq)]
pub struct Join {
    pub alias: String,
    pub source: Expr,
    pub iterate: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Literal(Value),
    Undefined,
    Param(String),
    /// An alias of the FROM/JOIN clauses (or the container name).
    Ident(String),
    Property(Box<Expr>, String),
    Index(Box<Expr>, Box<Expr>),
    Unary(&'static str, Box<Expr>),
    Binary(&'static str, Box<Expr>, Box<Expr>),
    /// Three or more operands joined by operators of one precedence, applied left to right:
    /// `a OR b OR c` is `Chain(a, [("OR", b), ("OR", c)])`. Flat, so long chains never recurse.
    Chain(Box<Expr>, Vec<(&'static str, Expr)>),
    Between {
        expr: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
    },
    In {
        expr: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
        /// The list as a hash set when every item is a scalar literal (built once at parse).
        set: Option<std::sync::Arc<super::value_set::ValueSet>>,
    },
    Like {
        expr: Box<Expr>,
        pattern: Box<Expr>,
        escape: Option<Box<Expr>>,
        negated: bool,
    },
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    Coalesce(Box<Expr>, Box<Expr>),
    Call {
        name: String,
        args: Vec<Expr>,
    },
    Object(Vec<(String, Expr)>),
    Array(Vec<Expr>),
    Exists(Box<Query>),
    ArraySub(Box<Query>),
    Scalar(Box<Query>),
}

impl Expr {
    /// `c.a.b` as `("c", ["a", "b"])` when the expression is a plain property path.
    pub fn as_path(&self) -> Option<(&str, Vec<String>)> {
        match self {
            Expr::Ident(a) => Some((a, Vec::new())),
            Expr::Property(base, name) => {
                let (root, mut p) = base.as_path()?;
                p.push(name.clone());
                Some((root, p))
            }
            Expr::Index(base, idx) => match idx.as_ref() {
                Expr::Literal(Value::String(name)) => {
                    let (root, mut p) = base.as_path()?;
                    p.push(name.clone());
                    Some((root, p))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The alias at the root of a property/index chain (`c` of `c.children[0].name`).
    pub fn root_ident(&self) -> Option<&str> {
        match self {
            Expr::Ident(a) => Some(a),
            Expr::Property(base, _) | Expr::Index(base, _) => base.root_ident(),
            _ => None,
        }
    }

    /// Whether the expression contains an aggregate call (outside subqueries).
    pub fn has_aggregate(&self) -> bool {
        let mut found = false;
        self.walk(&mut |e| {
            if let Expr::Call { name, .. } = e {
                found |= super::functions::is_aggregate(name);
            }
        });
        found
    }

    /// Visits this expression and its sub-expressions (not subqueries).
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Property(e, _) | Expr::Unary(_, e) => e.walk(f),
            Expr::Index(a, b) | Expr::Binary(_, a, b) | Expr::Coalesce(a, b) => {
                a.walk(f);
                b.walk(f);
            }
            Expr::Chain(first, rest) => {
                first.walk(f);
                rest.iter().for_each(|(_, e)| e.walk(f));
            }
            Expr::Between {
                expr, low, high, ..
            } => {
                expr.walk(f);
                low.walk(f);
                high.walk(f);
            }
            Expr::In { expr, list, .. } => {
                expr.walk(f);
                list.iter().for_each(|e| e.walk(f));
            }
            Expr::Like {
                expr,
                pattern,
                escape,
                ..
            } => {
                expr.walk(f);
                pattern.walk(f);
                if let Some(e) = escape {
                    e.walk(f);
                }
            }
            Expr::Ternary(a, b, c) => {
                a.walk(f);
                b.walk(f);
                c.walk(f);
            }
            Expr::Call { args, .. } | Expr::Array(args) => args.iter().for_each(|e| e.walk(f)),
            Expr::Object(fields) => fields.iter().for_each(|(_, e)| e.walk(f)),
            _ => {}
        }
    }
}
