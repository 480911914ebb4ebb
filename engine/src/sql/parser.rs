//! Recursive descent for clauses, Pratt parsing for expressions. Errors name the line, column
//! and the token that was not expected; nesting deeper than `MAX_DEPTH` is an error, never a
//! stack overflow.

use serde_json::Value;

use super::ast::{Expr, From, Join, Query, Select};
use super::error::QueryError;
use super::lexer::{tokenize, Tok, Token};
use super::value::num;

pub const MAX_DEPTH: usize = 128;
/// The depth counter at the query's outermost expression (the query, then the expression):
/// nesting is counted from there, so `SELECT VALUE ((1))` nests two levels.
const OUTERMOST: usize = 2;

/// Stack left before recursion grows it, and how much each growth adds.
pub(crate) const RED_ZONE: usize = 128 * 1024;
pub(crate) const STACK_GROWTH: usize = 2 * 1024 * 1024;

pub fn parse(src: &str) -> Result<Query, QueryError> {
    let tokens = tokenize(src)?;
    let mut p = Parser {
        src,
        tokens,
        pos: 0,
        depth: 0,
        now: chrono::Utc::now(),
        in_rank: false,
    };
    let mut q = p.query()?;
    if p.peek() != &Tok::Eof {
        return Err(p.unexpected("end of query"));
    }
    let mut names: Vec<String> = p
        .tokens
        .iter()
        .filter_map(|t| match &t.tok {
            Tok::Param(n) => Some(n.clone()),
            _ => None,
        })
        .collect();
    names.sort();
    names.dedup();
    q.params = names;
    Ok(q)
}

/// `ORDER BY RANK`'s expression: `FULLTEXTSCORE(path, terms...)`, `VECTORDISTANCE(...)`, or
/// `RRF` of two or more of those with an optional last array of weights, one per function.
fn check_rank(e: &Expr) -> Result<(), String> {
    fn nested(args: &[Expr]) -> Result<(), String> {
        let mut bad = None;
        for a in args {
            a.walk(&mut |x| {
                if let Expr::Call { name, .. } = x {
                    if super::functions::is_rank_only(name) {
                        bad = Some(name.clone());
                    }
                }
            });
        }
        match bad {
            Some(n) => Err(format!("{n} cannot be an argument of another function")),
            None => Ok(()),
        }
    }
    fn scoring(e: &Expr) -> Result<(), String> {
        match e {
            Expr::Call { name, args } if name == "FULLTEXTSCORE" => {
                if args[0].root_ident().is_none() || args[0].as_path().is_none() {
                    return Err("FULLTEXTSCORE's first argument must be a property path".into());
                }
                nested(args)
            }
            Expr::Call { name, args } if name == "VECTORDISTANCE" => nested(args),
            _ => Err(
                "ORDER BY RANK takes a scoring function: FULLTEXTSCORE, VECTORDISTANCE or RRF"
                    .into(),
            ),
        }
    }
    match e {
        Expr::Call { name, args } if name == "RRF" => {
            let (functions, weights) = match args.last() {
                Some(Expr::Array(w)) => (&args[..args.len() - 1], Some(w)),
                _ => (&args[..], None),
            };
            if functions.len() < 2 {
                return Err("RRF fuses two or more scoring functions".into());
            }
            for f in functions {
                scoring(f).map_err(|m| format!("RRF: {m}"))?;
            }
            if let Some(w) = weights {
                if w.len() != functions.len()
                    || !w.iter().all(|x| match x {
                        Expr::Literal(Value::Number(_)) => true,
                        Expr::Unary("-", n) => {
                            matches!(n.as_ref(), Expr::Literal(Value::Number(_)))
                        }
                        _ => false,
                    })
                {
                    return Err(format!(
                        "RRF's weights must be an array of {} numbers, one per scoring function",
                        functions.len()
                    ));
                }
            }
            Ok(())
        }
        e => scoring(e),
    }
}

struct Parser<'a> {
    src: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    depth: usize,
    /// The time the `*Static` current-time functions give, the same for the whole query.
    now: chrono::DateTime<chrono::Utc>,
    /// Parsing the scoring function of `ORDER BY RANK`, where `FULLTEXTSCORE` and `RRF` belong.
    in_rank: bool,
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => format!("'{s}'"),
        Tok::Keyword(k) => k.to_string(),
        Tok::Param(p) => p.clone(),
        Tok::Str(s) => format!("string \"{s}\""),
        Tok::Num(n) => format!("number {n}"),
        Tok::Sym(s) => format!("'{s}'"),
        Tok::Eof => "end of query".into(),
    }
}

impl<'a> Parser<'a> {
    fn peek(&self) -> &Tok {
        &self.tokens[self.pos].tok
    }

    fn peek_at(&self, n: usize) -> &Tok {
        &self.tokens[(self.pos + n).min(self.tokens.len() - 1)].tok
    }

    fn next(&mut self) -> Tok {
        let t = self.tokens[self.pos].tok.clone();
        if self.pos < self.tokens.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn unexpected(&self, expected: &str) -> QueryError {
        let t = &self.tokens[self.pos];
        QueryError::syntax(
            self.src,
            t.start,
            &format!("unexpected {}, expected {expected}", describe(&t.tok)),
        )
    }

    fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Tok::Keyword(x) if *x == k)
    }

    fn eat_kw(&mut self, k: &str) -> bool {
        if self.is_kw(k) {
            self.next();
            true
        } else {
            false
        }
    }

    fn expect_kw(&mut self, k: &str) -> Result<(), QueryError> {
        if self.eat_kw(k) {
            Ok(())
        } else {
            Err(self.unexpected(k))
        }
    }

    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Sym(x) if *x == s)
    }

    fn eat_sym(&mut self, s: &str) -> bool {
        if self.is_sym(s) {
            self.next();
            true
        } else {
            false
        }
    }

    fn expect_sym(&mut self, s: &str) -> Result<(), QueryError> {
        if self.eat_sym(s) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("'{s}'")))
        }
    }

    fn ident(&mut self) -> Result<String, QueryError> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.next();
                Ok(s)
            }
            _ => Err(self.unexpected("a name")),
        }
    }

    fn enter(&mut self) -> Result<(), QueryError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH + OUTERMOST {
            let at = self.tokens[self.pos].start;
            return Err(QueryError::syntax(
                self.src,
                at,
                &format!("the query nests deeper than {MAX_DEPTH} levels"),
            ));
        }
        Ok(())
    }

    fn query(&mut self) -> Result<Query, QueryError> {
        self.enter()?;
        // A subquery inside ORDER BY RANK's arguments is not itself ranked.
        let outer_rank = std::mem::replace(&mut self.in_rank, false);
        self.expect_kw("SELECT")?;
        let distinct = self.eat_kw("DISTINCT");
        let top = if self.eat_kw("TOP") {
            Some(self.primary()?)
        } else {
            None
        };
        let select = if self.eat_sym("*") {
            Select::Star
        } else if self.eat_kw("VALUE") {
            Select::Value(self.expr()?)
        } else {
            let mut items = Vec::new();
            loop {
                let e = self.expr()?;
                let alias = if self.eat_kw("AS") {
                    Some(self.ident()?)
                } else if let Tok::Ident(s) = self.peek().clone() {
                    self.next();
                    Some(s)
                } else {
                    None
                };
                items.push((e, alias));
                if !self.eat_sym(",") {
                    break;
                }
            }
            Select::Items(items)
        };
        let from = if self.eat_kw("FROM") {
            Some(self.from()?)
        } else {
            None
        };
        let mut joins = Vec::new();
        while self.eat_kw("JOIN") {
            joins.push(self.join()?);
        }
        let filter = if self.eat_kw("WHERE") {
            Some(self.expr()?)
        } else {
            None
        };
        let mut group_by = Vec::new();
        if self.eat_kw("GROUP") {
            self.expect_kw("BY")?;
            loop {
                group_by.push(self.expr()?);
                if !self.eat_sym(",") {
                    break;
                }
            }
        }
        let mut order_by = Vec::new();
        let mut rank = false;
        if self.eat_kw("ORDER") {
            self.expect_kw("BY")?;
            if matches!(self.peek(), Tok::Ident(r) if r.eq_ignore_ascii_case("RANK"))
                && matches!(self.peek_at(1), Tok::Ident(_))
            {
                self.next();
                let at = self.tokens[self.pos].start;
                self.in_rank = true;
                let e = self.expr();
                self.in_rank = false;
                let e = e?;
                check_rank(&e).map_err(|m| QueryError::syntax(self.src, at, &m))?;
                if from.is_none() {
                    return Err(QueryError::syntax(
                        self.src,
                        at,
                        "ORDER BY RANK ranks a container's items: the query needs a FROM clause",
                    ));
                }
                if self.is_sym(",") {
                    let at = self.tokens[self.pos].start;
                    return Err(QueryError::syntax(
                        self.src,
                        at,
                        "ORDER BY RANK cannot be combined with other ORDER BY items",
                    ));
                }
                order_by.push((e, false));
                rank = true;
            }
            if !rank {
                loop {
                    let e = self.expr()?;
                    let desc = if self.eat_kw("DESC") {
                        true
                    } else {
                        self.eat_kw("ASC");
                        false
                    };
                    order_by.push((e, desc));
                    if !self.eat_sym(",") {
                        break;
                    }
                }
            }
        }
        let offset_limit = if self.eat_kw("OFFSET") {
            let o = self.primary()?;
            self.expect_kw("LIMIT")?;
            Some((o, self.primary()?))
        } else {
            None
        };
        self.depth -= 1;
        self.in_rank = outer_rank;
        Ok(Query {
            distinct,
            top,
            select,
            from,
            joins,
            filter,
            group_by,
            order_by,
            rank,
            offset_limit,
            params: Vec::new(),
        })
    }

    fn from(&mut self) -> Result<From, QueryError> {
        if let (Tok::Ident(alias), Tok::Keyword("IN")) =
            (self.peek().clone(), self.peek_at(1).clone())
        {
            self.next();
            self.next();
            return Ok(From {
                alias,
                source: Some(self.postfix_expr()?),
                iterate: true,
            });
        }
        if self.is_sym("(") {
            self.next();
            let q = self.query()?;
            self.expect_sym(")")?;
            self.eat_kw("AS");
            let alias = self.ident()?;
            return Ok(From {
                alias,
                source: Some(Expr::ArraySub(Box::new(q))),
                iterate: true,
            });
        }
        let source = self.postfix_expr()?;
        let alias = if self.eat_kw("AS") {
            Some(self.ident()?)
        } else if let Tok::Ident(s) = self.peek().clone() {
            self.next();
            Some(s)
        } else {
            None
        };
        match (&source, alias) {
            (Expr::Ident(name), None) => Ok(From {
                alias: name.clone(),
                source: None,
                iterate: false,
            }),
            (Expr::Ident(_), Some(alias)) => Ok(From {
                alias,
                source: None,
                iterate: false,
            }),
            (other, alias) => {
                let root = other
                    .root_ident()
                    .ok_or_else(|| self.unexpected("a container name or alias"))?;
                let alias = match (alias, other.as_path()) {
                    (Some(a), _) => a,
                    (None, Some((_, path))) => {
                        path.last().cloned().unwrap_or_else(|| root.to_owned())
                    }
                    (None, None) => root.to_owned(),
                };
                // `FROM c.children[0] x`: x is the value at that path of each item.
                Ok(From {
                    alias,
                    source: Some(other.clone()),
                    iterate: false,
                })
            }
        }
    }

    fn join(&mut self) -> Result<Join, QueryError> {
        if self.is_sym("(") {
            self.next();
            let q = self.query()?;
            self.expect_sym(")")?;
            self.eat_kw("AS");
            let alias = self.ident()?;
            return Ok(Join {
                alias,
                source: Expr::ArraySub(Box::new(q)),
                iterate: true,
            });
        }
        let alias = self.ident()?;
        self.expect_kw("IN")?;
        Ok(Join {
            alias,
            source: self.postfix_expr()?,
            iterate: true,
        })
    }

    /// Every path below reaches `primary` or an operator, which count their own level: an
    /// array's elements or a function's arguments are one level deeper, not two.
    pub fn expr(&mut self) -> Result<Expr, QueryError> {
        self.binary(0)
    }

    /// Pratt loop: binding power of infix operators, lowest first.
    fn binary(&mut self, min_bp: u8) -> Result<Expr, QueryError> {
        let mut lhs = self.prefix()?;
        // Each operator applied deepens the tree: count it, so evaluating or dropping the tree
        // never recurses past the limit either. A run of operators of one precedence
        // (`a OR b OR c ...`, `1 + 2 - 3 ...`) is not nesting: it becomes one flat `Chain`, so
        // 10 000-term chains parse, evaluate and drop without recursion.
        let mut wrapped = 0;
        let mut chain_bp = None;
        loop {
            let (op, bp) = match self.peek() {
                Tok::Sym("?") => ("?", 1),
                Tok::Sym("??") => ("??", 2),
                Tok::Keyword("OR") => ("OR", 3),
                Tok::Keyword("AND") => ("AND", 4),
                Tok::Sym(s @ ("=" | "!=" | "<>" | "<" | "<=" | ">" | ">=")) => (*s, 6),
                Tok::Keyword(k @ ("IN" | "BETWEEN" | "LIKE")) => (*k, 6),
                Tok::Keyword("NOT")
                    if matches!(self.peek_at(1), Tok::Keyword("IN" | "BETWEEN" | "LIKE")) =>
                {
                    ("NOT", 6)
                }
                Tok::Sym("|") => ("|", 7),
                Tok::Sym("^") => ("^", 8),
                Tok::Sym("&") => ("&", 9),
                Tok::Sym(s @ ("<<" | ">>" | ">>>")) => (*s, 10),
                Tok::Sym(s @ ("+" | "-" | "||")) => (*s, 11),
                Tok::Sym(s @ ("*" | "/" | "%")) => (*s, 12),
                _ => break,
            };
            if bp < min_bp {
                break;
            }
            let plain = !matches!(op, "?" | "??" | "NOT" | "IN" | "BETWEEN" | "LIKE");
            if plain && chain_bp == Some(bp) {
                self.next();
                let rhs = self.binary(bp + 1)?;
                lhs = extend_chain(lhs, op, rhs);
                continue;
            }
            chain_bp = plain.then_some(bp);
            self.enter()?;
            wrapped += 1;
            self.next();
            lhs = match op {
                "?" => {
                    let then = self.binary(1)?;
                    self.expect_sym(":")?;
                    let otherwise = self.binary(1)?;
                    Expr::Ternary(Box::new(lhs), Box::new(then), Box::new(otherwise))
                }
                "??" => Expr::Coalesce(Box::new(lhs), Box::new(self.binary(2)?)),
                "NOT" | "IN" | "BETWEEN" | "LIKE" => {
                    let negated = op == "NOT";
                    let kw = if negated {
                        match self.next() {
                            Tok::Keyword(k) => k,
                            _ => unreachable!("peeked IN/BETWEEN/LIKE"),
                        }
                    } else {
                        op
                    };
                    self.membership(lhs, kw, negated)?
                }
                _ => Expr::Binary(op, Box::new(lhs), Box::new(self.binary(bp + 1)?)),
            };
        }
        self.depth -= wrapped;
        Ok(lhs)
    }

    fn membership(&mut self, lhs: Expr, kw: &str, negated: bool) -> Result<Expr, QueryError> {
        let expr = Box::new(lhs);
        Ok(match kw {
            "IN" => {
                self.expect_sym("(")?;
                let mut list = Vec::new();
                if !self.is_sym(")") {
                    loop {
                        list.push(self.expr()?);
                        if !self.eat_sym(",") {
                            break;
                        }
                    }
                }
                self.expect_sym(")")?;
                let literals: Option<Vec<Value>> = list
                    .iter()
                    .map(|e| match e {
                        Expr::Literal(v) => Some(v.clone()),
                        _ => None,
                    })
                    .collect();
                let set = literals
                    .and_then(|l| super::value_set::ValueSet::of(&l))
                    .map(std::sync::Arc::new);
                Expr::In {
                    expr,
                    list,
                    negated,
                    set,
                }
            }
            "BETWEEN" => {
                let low = Box::new(self.binary(7)?);
                self.expect_kw("AND")?;
                let high = Box::new(self.binary(7)?);
                Expr::Between {
                    expr,
                    low,
                    high,
                    negated,
                }
            }
            _ => {
                let pattern = Box::new(self.binary(7)?);
                let escape = if self.eat_kw("ESCAPE") {
                    Some(Box::new(self.binary(7)?))
                } else {
                    None
                };
                Expr::Like {
                    expr,
                    pattern,
                    escape,
                    negated,
                }
            }
        })
    }

    fn prefix(&mut self) -> Result<Expr, QueryError> {
        match self.peek() {
            Tok::Keyword("NOT") => {
                self.next();
                self.enter()?;
                let e = self.binary(5)?;
                self.depth -= 1;
                Ok(Expr::Unary("NOT", Box::new(e)))
            }
            Tok::Sym(s @ ("-" | "+" | "~")) => {
                let s = *s;
                self.next();
                self.enter()?;
                let e = self.binary(13)?;
                self.depth -= 1;
                Ok(match (s, e) {
                    ("-", Expr::Literal(Value::Number(n))) => {
                        Expr::Literal(num(-n.as_f64().unwrap_or(0.0)))
                    }
                    (s, e) => Expr::Unary(s, Box::new(e)),
                })
            }
            _ => self.postfix_expr(),
        }
    }

    fn postfix_expr(&mut self) -> Result<Expr, QueryError> {
        let mut e = self.primary()?;
        let mut wrapped = 0;
        loop {
            if self.is_sym(".") || self.is_sym("[") {
                self.enter()?;
                wrapped += 1;
            }
            if self.eat_sym(".") {
                let name = match self.next() {
                    Tok::Ident(s) => s,
                    Tok::Keyword(k) => k.to_ascii_lowercase(),
                    _ => {
                        self.pos -= 1;
                        return Err(self.unexpected("a property name"));
                    }
                };
                e = Expr::Property(Box::new(e), name);
            } else if self.eat_sym("[") {
                let idx = self.expr()?;
                self.expect_sym("]")?;
                e = Expr::Index(Box::new(e), Box::new(idx));
            } else {
                self.depth -= wrapped;
                return Ok(e);
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, QueryError> {
        self.enter()?;
        // Debug builds spend kilobytes of stack per level: grow it rather than overflow a
        // 2 MiB thread below the nesting limit.
        let e = stacker::maybe_grow(RED_ZONE, STACK_GROWTH, || self.primary_inner());
        self.depth -= 1;
        e
    }

    fn primary_inner(&mut self) -> Result<Expr, QueryError> {
        let t = self.peek().clone();
        Ok(match t {
            Tok::Num(n) => {
                self.next();
                Expr::Literal(num(n))
            }
            Tok::Str(s) => {
                self.next();
                Expr::Literal(Value::String(s))
            }
            Tok::Param(p) => {
                self.next();
                Expr::Param(p)
            }
            Tok::Keyword("TRUE") => {
                self.next();
                Expr::Literal(Value::Bool(true))
            }
            Tok::Keyword("FALSE") => {
                self.next();
                Expr::Literal(Value::Bool(false))
            }
            Tok::Keyword("NULL") => {
                self.next();
                Expr::Literal(Value::Null)
            }
            Tok::Keyword("UNDEFINED") => {
                self.next();
                Expr::Undefined
            }
            Tok::Keyword(k @ ("EXISTS" | "ARRAY"))
                if matches!(self.peek_at(1), Tok::Sym("("))
                    && matches!(self.peek_at(2), Tok::Keyword("SELECT")) =>
            {
                self.next();
                self.next();
                let q = Box::new(self.query()?);
                self.expect_sym(")")?;
                if k == "EXISTS" {
                    Expr::Exists(q)
                } else {
                    Expr::ArraySub(q)
                }
            }
            // `udf.name(args)`: a JavaScript user-defined function registered on the container.
            Tok::Ident(udf)
                if udf.eq_ignore_ascii_case("udf")
                    && matches!(self.peek_at(1), Tok::Sym("."))
                    && matches!(self.peek_at(2), Tok::Ident(_))
                    && matches!(self.peek_at(3), Tok::Sym("(")) =>
            {
                self.next();
                self.next();
                let Tok::Ident(name) = self.next() else {
                    unreachable!("peeked a name")
                };
                self.next();
                let mut args = Vec::new();
                if !self.is_sym(")") {
                    loop {
                        args.push(self.expr()?);
                        if !self.eat_sym(",") {
                            break;
                        }
                    }
                }
                self.expect_sym(")")?;
                Expr::Call {
                    name: format!("udf.{name}"),
                    args,
                }
            }
            Tok::Ident(name) => {
                let at = self.tokens[self.pos].start;
                self.next();
                if self.eat_sym("(") {
                    let upper = name.to_ascii_uppercase();
                    if super::functions::is_rank_only(&upper) && !self.in_rank {
                        return Err(QueryError::syntax(
                            self.src,
                            at,
                            &format!("{upper} can only be used in ORDER BY RANK (or as an argument of RRF there), not in a projection or filter"),
                        ));
                    }
                    let mut args = Vec::new();
                    if !self.is_sym(")") {
                        loop {
                            args.push(self.expr()?);
                            if !self.eat_sym(",") {
                                break;
                            }
                        }
                    }
                    self.expect_sym(")")?;
                    let name = name.to_ascii_uppercase();
                    super::functions::check_call(&name, args.len()).map_err(|m| {
                        QueryError::syntax(self.src, self.tokens[self.pos - 1].start, &m)
                    })?;
                    if name.starts_with("GETCURRENT") && name.ends_with("STATIC") {
                        Expr::Literal(super::functions::current(&name, &self.now))
                    } else {
                        Expr::Call { name, args }
                    }
                } else if name == "NaN" {
                    Expr::Literal(super::value::non_finite(f64::NAN))
                } else if name == "Infinity" {
                    Expr::Literal(super::value::non_finite(f64::INFINITY))
                } else {
                    Expr::Ident(name)
                }
            }
            Tok::Sym("(") => {
                self.next();
                // One level per parenthesis (`primary` counted it), not two.
                let e = if self.is_kw("SELECT") {
                    Expr::Scalar(Box::new(self.query()?))
                } else {
                    self.binary(0)?
                };
                self.expect_sym(")")?;
                e
            }
            Tok::Sym("[") => {
                self.next();
                let mut items = Vec::new();
                if !self.is_sym("]") {
                    loop {
                        items.push(self.expr()?);
                        if !self.eat_sym(",") {
                            break;
                        }
                    }
                }
                self.expect_sym("]")?;
                Expr::Array(items)
            }
            Tok::Sym("{") => {
                self.next();
                let mut fields = Vec::new();
                if !self.is_sym("}") {
                    loop {
                        let key = match self.next() {
                            Tok::Ident(s) | Tok::Str(s) => s,
                            _ => {
                                self.pos -= 1;
                                return Err(self.unexpected("a property name"));
                            }
                        };
                        self.expect_sym(":")?;
                        fields.push((key, self.expr()?));
                        if !self.eat_sym(",") {
                            break;
                        }
                    }
                }
                self.expect_sym("}")?;
                Expr::Object(fields)
            }
            _ => return Err(self.unexpected("an expression")),
        })
    }
}

/// `lhs op rhs` where `lhs` is a `Binary` or `Chain` of `op`'s precedence built just before.
fn extend_chain(lhs: Expr, op: &'static str, rhs: Expr) -> Expr {
    match lhs {
        Expr::Binary(first_op, a, b) => Expr::Chain(a, vec![(first_op, *b), (op, rhs)]),
        Expr::Chain(first, mut rest) => {
            rest.push((op, rhs));
            Expr::Chain(first, rest)
        }
        other => Expr::Binary(op, Box::new(other), Box::new(rhs)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_seed_queries() {
        for q in [
            "SELECT * FROM c WHERE c.categoryId = @id",
            "SELECT * FROM c WHERE c.type = 'customer' ORDER BY c.salesOrderCount DESC",
            "SELECT VALUE COUNT(1) FROM f",
            "SELECT TOP @n * FROM f ORDER BY f.creationDate",
            "SELECT c.id, t AS tag FROM c JOIN t IN c.tags WHERE t IN ('a', 'b') OFFSET 1 LIMIT 2",
            "SELECT c.type, COUNT(1) AS n FROM c GROUP BY c.type",
            "SELECT VALUE {id: c.id, n: ARRAY_LENGTH(c.tags)} FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = 'x')",
            "SELECT * FROM c WHERE c.n BETWEEN 1 AND 5 AND NOT c.flag AND c.s LIKE 'a%' ESCAPE '!'",
            "SELECT c[\"a b\"], c.arr[0] ?? 1, (c.x > 1 ? 'big' : 'small') FROM root c",
        ] {
            parse(q).unwrap_or_else(|e| panic!("{q}: {e}"));
        }
    }

    #[test]
    fn nesting_is_counted_as_it_says() {
        let nested = |open: &str, close: &str, n: usize| {
            parse(&format!(
                "SELECT VALUE {}1{}",
                open.repeat(n),
                close.repeat(n)
            ))
        };
        for (open, close) in [("(", ")"), ("[", "]"), ("{a: ", "}")] {
            nested(open, close, MAX_DEPTH).unwrap_or_else(|e| panic!("{open} x{MAX_DEPTH}: {e}"));
            let e = nested(open, close, MAX_DEPTH + 1).unwrap_err().to_string();
            assert!(e.contains("nests deeper than 128 levels"), "{open}: {e}");
        }
    }

    #[test]
    fn errors_name_the_position_and_token() {
        let e = parse("SELECT *\nFORM c").unwrap_err().to_string();
        assert!(
            e.contains("line 2, column 1") && e.contains("'FORM'"),
            "{e}"
        );
        let e = parse("SELECT * FROM c WHERE").unwrap_err().to_string();
        assert!(
            e.contains("end of query") && e.contains("expected an expression"),
            "{e}"
        );
        let deep = format!(
            "SELECT VALUE {}1{}",
            "(".repeat(100_000),
            ")".repeat(100_000)
        );
        assert!(parse(&deep).unwrap_err().to_string().contains("deeper"));
        let deep = format!("SELECT VALUE {}1", "-".repeat(100_000));
        assert!(parse(&deep).is_err());
        assert!(parse("SELECT NOSUCHFN(1) FROM c")
            .unwrap_err()
            .to_string()
            .contains("NOSUCHFN"));
        assert!(parse("SELECT LOWER(1, 2) FROM c").is_err());
    }
}
