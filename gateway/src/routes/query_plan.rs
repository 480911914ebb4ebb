//! The query plan Azure Cosmos DB's gateway gives an SDK for a cross-partition query
//! (`x-ms-cosmos-is-query-plan-request: True`): what the client must do over the ranges' answers
//! (`queryInfo`: TOP, OFFSET/LIMIT, ORDER BY, aggregates, DISTINCT) and the query it sends to each
//! partition key range instead of the user's (`rewrittenQuery`), in the service's shapes: an
//! aggregate as `SELECT VALUE [{"item": COUNT(1)}]` (AVG as `{"item": {"sum": …, "count": …}}`),
//! an ORDER BY as `SELECT c._rid, [{"item": e}] AS orderByItems, <select> AS payload … WHERE
//! ({documentdb-formattableorderbyquery-filter})`, the placeholder the SDKs replace with `true`
//! (azure-cosmos `_execution_context/query_execution_info.py`, `get_rewritten_query`), OFFSET n
//! LIMIT m as `OFFSET 0 LIMIT n+m`. The engine evaluates those texts as written, one range at a
//! time (`queries.rs`), so the SDK merges the ranges' pages itself, as on Azure.
//!
//! The query is read here by its clauses, at the top level of its text only (strings, brackets
//! and subqueries skipped): a shape this reading does not cover (GROUP BY, a subquery in the
//! SELECT list, ORDER BY RANK, an aggregate inside an expression with VALUE, parameters it cannot
//! resolve) is [`Shape::Whole`], planned as the gateway's whole answer (`queries.rs`).

use serde_json::{json, Value};

/// What the SDK must do over the ranges' pages, and the text it sends to each range.
#[derive(Debug, PartialEq)]
pub struct Plan {
    pub distinct: Distinct,
    pub top: Option<u64>,
    pub offset: Option<u64>,
    pub limit: Option<u64>,
    /// `(expression text, ascending)` per ORDER BY item.
    pub order_by: Vec<(String, bool)>,
    /// The service's names: `Count`, `Sum`, `Min`, `Max`, `Average`.
    pub aggregates: Vec<&'static str>,
    pub select_value: bool,
    pub rewritten: String,
}

#[derive(Debug, PartialEq, Clone, Copy)]
pub enum Distinct {
    None,
    Ordered,
    Unordered,
}

#[derive(Debug, PartialEq)]
pub enum Shape {
    /// Nothing to merge but the ranges' rows: the gateway serves it range by range itself.
    Simple,
    /// The SDK merges: TOP, ORDER BY, OFFSET/LIMIT, aggregates or DISTINCT.
    Merged(Plan),
    /// Beyond what this reading plans: answered whole by the gateway.
    Whole,
}

impl Plan {
    /// `queryInfo` and `queryRanges` as the gateway answers a plan request (version 2).
    pub fn to_json(&self) -> Value {
        let distinct = match self.distinct {
            Distinct::None => "None",
            Distinct::Ordered => "Ordered",
            Distinct::Unordered => "Unordered",
        };
        let order: Vec<&str> = self
            .order_by
            .iter()
            .map(|(_, asc)| if *asc { "Ascending" } else { "Descending" })
            .collect();
        let exprs: Vec<&str> = self.order_by.iter().map(|(e, _)| e.as_str()).collect();
        info(json!({
            "distinctType": distinct,
            "top": self.top,
            "offset": self.offset,
            "limit": self.limit,
            "orderBy": order,
            "orderByExpressions": exprs,
            "groupByExpressions": [],
            "groupByAliases": [],
            "aggregates": self.aggregates,
            "groupByAliasToAggregateType": {},
            "rewrittenQuery": self.rewritten,
            "hasSelectValue": self.select_value,
            "dCountInfo": null,
            "hasNonStreamingOrderBy": false,
        }))
    }
}

/// A plan of nothing to merge: the query as written, sent to every range.
pub fn passthrough(rewritten: &str) -> Value {
    info(json!({
        "distinctType": "None",
        "top": null,
        "offset": null,
        "limit": null,
        "orderBy": [],
        "orderByExpressions": [],
        "groupByExpressions": [],
        "groupByAliases": [],
        "aggregates": [],
        "groupByAliasToAggregateType": {},
        "rewrittenQuery": rewritten,
        "hasSelectValue": false,
        "dCountInfo": null,
        "hasNonStreamingOrderBy": false,
    }))
}

fn info(query_info: Value) -> Value {
    json!({
        "partitionedQueryExecutionInfoVersion": 2,
        "queryInfo": query_info,
        "queryRanges": [{"min": "", "max": "FF", "isMinInclusive": true, "isMaxInclusive": false}],
    })
}

/// One top-level word of the query, with its byte span.
struct Word<'a> {
    text: &'a str,
    start: usize,
    end: usize,
}

/// The words outside strings, brackets and comments, and whether the text is balanced.
fn top_words(sql: &str) -> Option<Vec<Word<'_>>> {
    let b = sql.as_bytes();
    let mut words = Vec::new();
    let mut depth = 0i32;
    let mut i = 0;
    while i < b.len() {
        let ch = b[i];
        match ch {
            b'\'' | b'"' => {
                i += 1;
                while i < b.len() && b[i] != ch {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if i >= b.len() {
                    return None;
                }
                i += 1;
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth < 0 {
                    return None;
                }
                i += 1;
            }
            c if c.is_ascii_alphanumeric() || c == b'_' || c == b'@' || c == b'$' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'@')
                {
                    i += 1;
                }
                // A word after `.` is a property name, not a keyword (`c.value`, `c.top`).
                let after_dot = sql[..start].trim_end().ends_with('.');
                if depth == 0 && !after_dot {
                    words.push(Word {
                        text: &sql[start..i],
                        start,
                        end: i,
                    });
                }
                i = i.max(start + 1);
            }
            _ => i += 1,
        }
    }
    (depth == 0).then_some(words)
}

/// Splits at top-level commas.
fn split_commas(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let (mut out, mut depth, mut from, mut i) = (Vec::new(), 0i32, 0, 0);
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => {
                out.push(text[from..i].trim());
                from = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(text[from..].trim());
    out
}

fn is(w: &Word, kw: &str) -> bool {
    w.text.eq_ignore_ascii_case(kw)
}

/// A count: an integer literal, or a parameter holding one.
fn count(text: &str, params: &[(String, Value)]) -> Option<u64> {
    let t = text.trim();
    if let Some(name) = t.strip_prefix('@') {
        return params
            .iter()
            .find(|(n, _)| n.trim_start_matches('@') == name)
            .and_then(|(_, v)| v.as_u64());
    }
    t.parse().ok()
}

/// `COUNT(x)` → `("Count", "COUNT(x)")` when the whole text is one aggregate call.
fn bare_aggregate(text: &str) -> Option<(&'static str, &str)> {
    let t = text.trim();
    let open = t.find('(')?;
    let name = match t[..open].trim().to_ascii_uppercase().as_str() {
        "COUNT" => "Count",
        "SUM" => "Sum",
        "MIN" => "Min",
        "MAX" => "Max",
        "AVG" => "Average",
        _ => return None,
    };
    // The call's own parenthesis must close at the end (not `COUNT(1) + COUNT(2)`).
    let inner = &t[open..];
    let mut depth = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            return (i == inner.len() - 1).then_some((name, &inner[1..i]));
        }
    }
    None
}

/// Whether the text calls an aggregate anywhere (outside strings).
fn calls_aggregate(text: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    let upper = text.to_ascii_uppercase();
    for (word, name) in [
        ("COUNT", "Count"),
        ("SUM", "Sum"),
        ("MIN", "Min"),
        ("MAX", "Max"),
        ("AVG", "Average"),
    ] {
        let mut from = 0;
        while let Some(p) = upper[from..].find(word) {
            let at = from + p;
            let before = upper[..at].chars().last();
            let rest = upper[at + word.len()..].trim_start();
            if !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
                && rest.starts_with('(')
            {
                out.push(name);
            }
            from = at + word.len();
        }
    }
    out
}

/// The property name Cosmos DB gives an unaliased SELECT item (`c.a.b` → `b`), or `$n`.
fn item_name(expr: &str, n: &mut usize) -> String {
    let t = expr.trim();
    // `c["value"]` / `c['value']` is named by its string.
    for q in ['"', '\''] {
        if let Some(inner) = t.strip_suffix(&format!("{q}]")[..]) {
            if let Some(open) = inner.rfind(&format!("[{q}")[..]) {
                let name = &inner[open + 2..];
                if !name.contains(q) {
                    return name.to_owned();
                }
            }
        }
    }
    let last = t.rsplit('.').next().unwrap_or(t);
    if t.contains('.')
        && !last.is_empty()
        && last.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return last.to_owned();
    }
    *n += 1;
    format!("${n}")
}

/// Reads `sql` (with its parameters, for TOP/OFFSET/LIMIT given as `@p`) into its plan.
pub fn shape(sql: &str, params: &[(String, Value)]) -> Shape {
    read(sql, params).unwrap_or(Shape::Whole)
}

fn read(sql: &str, params: &[(String, Value)]) -> Option<Shape> {
    let words = top_words(sql)?;
    let first = words.first()?;
    if !is(first, "SELECT") || words.iter().skip(1).any(|w| is(w, "SELECT")) {
        return None;
    }
    let find = |kw: &str| words.iter().position(|w| is(w, kw));
    let mut k = 1;
    let distinct = words.get(k).is_some_and(|w| is(w, "DISTINCT"));
    if distinct {
        k += 1;
    }
    let mut top = None;
    if words.get(k).is_some_and(|w| is(w, "TOP")) {
        top = Some(count(words.get(k + 1)?.text, params)?);
        k += 2;
    }
    let value = words.get(k).is_some_and(|w| is(w, "VALUE"));
    let list_start = if value {
        words[k].end
    } else {
        words.get(k.checked_sub(1)?)?.end
    };
    let from = find("FROM")?;
    if find("GROUP").is_some() || find("RANK").is_some() {
        return None;
    }
    let list = sql[list_start..words[from].start].trim();
    if list.to_ascii_uppercase().contains("SELECT") {
        return None; // a subquery in the SELECT list
    }
    let order = find("ORDER");
    let offset_at = find("OFFSET");
    let body_end = order
        .or(offset_at)
        .map(|i| words[i].start)
        .unwrap_or(sql.len());
    let body = sql[words[from].start..body_end].trim_end(); // FROM … [WHERE …]
    let (offset, limit) = match offset_at {
        Some(o) => {
            let l = find("LIMIT")?;
            let off = count(&sql[words[o].end..words[l].start], params)?;
            let lim = count(&sql[words[l].end..], params)?;
            (Some(off), Some(lim))
        }
        None => (None, None),
    };
    let order_by: Vec<(String, bool)> = match order {
        Some(o) => {
            if !words.get(o + 1).is_some_and(|w| is(w, "BY")) {
                return None;
            }
            let end = offset_at.map(|i| words[i].start).unwrap_or(sql.len());
            split_commas(&sql[words[o + 1].end..end])
                .into_iter()
                .map(|item| {
                    let lower = item.to_ascii_lowercase();
                    if lower.ends_with(" desc") {
                        (item[..item.len() - 5].trim().to_owned(), false)
                    } else if lower.ends_with(" asc") {
                        (item[..item.len() - 4].trim().to_owned(), true)
                    } else {
                        (item.to_owned(), true)
                    }
                })
                .collect()
        }
        None => Vec::new(),
    };
    let items = split_commas(list);
    let aggregates: Vec<&'static str> = items.iter().flat_map(|i| calls_aggregate(i)).collect();
    let top_text = top.map(|n| format!("TOP {n} ")).unwrap_or_default();
    let window = |o: u64, l: u64| format!(" OFFSET 0 LIMIT {}", o + l);

    if !aggregates.is_empty() {
        if offset.is_some() || distinct {
            return None;
        }
        // An aggregate without GROUP BY is one row: its ORDER BY orders nothing, and the
        // per-range query goes without it (`body` ends before it).
        let order_by = Vec::new();
        if !value {
            // `SELECT COUNT(1) FROM c`: the SDKs that do not declare `NonValueAggregate` refuse
            // it themselves on seeing aggregates without `hasSelectValue` (azure-cosmos
            // `execution_dispatcher.py`), as the service refuses it cross-partition.
            return Some(Shape::Merged(Plan {
                distinct: Distinct::None,
                top,
                offset: None,
                limit: None,
                order_by,
                aggregates,
                select_value: false,
                rewritten: sql.to_owned(),
            }));
        }
        let (name, arg) = bare_aggregate(list)?;
        let item = match name {
            "Average" => format!(r#"{{"sum": SUM({arg}), "count": COUNT({arg})}}"#),
            _ => list.to_owned(),
        };
        return Some(Shape::Merged(Plan {
            distinct: Distinct::None,
            top,
            offset: None,
            limit: None,
            order_by,
            aggregates: vec![name],
            select_value: true,
            rewritten: format!(r#"SELECT {top_text}VALUE [{{"item": {item}}}] {body}"#),
        }));
    }

    let distinct_type = match (distinct, order_by.as_slice()) {
        (false, _) => Distinct::None,
        // Equal values come one after another only when the rows are ordered by what is selected.
        (true, [(e, _)]) if value && squash(e) == squash(list) => Distinct::Ordered,
        (true, _) => Distinct::Unordered,
    };
    if order_by.is_empty() {
        if !distinct && top.is_none() && offset.is_none() {
            return Some(Shape::Simple);
        }
        let head = offset_at.map(|i| &sql[..words[i].start]).unwrap_or(sql);
        let rewritten = match (offset, limit) {
            (Some(o), Some(l)) => format!("{}{}", head.trim_end(), window(o, l)),
            _ => sql.to_owned(),
        };
        return Some(Shape::Merged(Plan {
            distinct: distinct_type,
            top,
            offset,
            limit,
            order_by,
            aggregates,
            select_value: value,
            rewritten,
        }));
    }

    // ORDER BY: each row carries its sort keys and the row the user asked for.
    let alias = from_alias(&sql[words[from].end..body_end]);
    let payload = if value {
        list.to_owned()
    } else if list == "*" {
        alias.clone()?
    } else {
        let mut n = 0;
        let fields: Vec<String> = items
            .iter()
            .map(|item| {
                let lower = item.to_ascii_lowercase();
                match lower.rfind(" as ") {
                    Some(p) => format!("\"{}\": {}", item[p + 4..].trim(), item[..p].trim()),
                    None => format!("\"{}\": {}", item_name(item, &mut n), item),
                }
            })
            .collect();
        format!("{{{}}}", fields.join(", "))
    };
    let keys: Vec<String> = order_by
        .iter()
        .map(|(e, _)| format!(r#"{{"item": {e}}}"#))
        .collect();
    let sort: Vec<String> = order_by
        .iter()
        .map(|(e, asc)| format!("{e} {}", if *asc { "ASC" } else { "DESC" }))
        .collect();
    let filter = "{documentdb-formattableorderbyquery-filter}";
    let body = match body_where(body) {
        Some((from_part, cond)) => format!("{from_part} WHERE (({cond}) AND ({filter}))"),
        None => format!("{body} WHERE ({filter})"),
    };
    let rid = match (&alias, distinct) {
        (Some(a), false) => format!("{a}._rid, "),
        _ => String::new(),
    };
    let distinct_kw = if distinct { "DISTINCT " } else { "" };
    // Rows of one range are distinct by their sort keys too: a TOP or LIMIT there would count
    // rows the client's DISTINCT (by payload) folds into one, so the range gives them all.
    let top_text = if distinct { String::new() } else { top_text };
    let rewritten = format!(
        "SELECT {distinct_kw}{top_text}{rid}[{}] AS orderByItems, {payload} AS payload {body} ORDER BY {}{}",
        keys.join(", "),
        sort.join(", "),
        match (offset, limit) {
            (Some(o), Some(l)) if !distinct => window(o, l),
            _ => String::new(),
        }
    );
    Some(Shape::Merged(Plan {
        distinct: distinct_type,
        top,
        offset,
        limit,
        order_by,
        aggregates,
        select_value: value,
        rewritten,
    }))
}

fn squash(s: &str) -> String {
    s.split_whitespace()
        .collect::<String>()
        .to_ascii_lowercase()
}

/// The alias rows go by: `FROM c`, `FROM root r`, `FROM root AS r` (not `FROM x IN …` or a JOIN).
fn from_alias(from_rest: &str) -> Option<String> {
    let words = top_words(from_rest)?;
    let stop = words
        .iter()
        .position(|w| is(w, "WHERE"))
        .unwrap_or(words.len());
    let names: Vec<&str> = words[..stop].iter().map(|w| w.text).collect();
    let plain = |s: &str| s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    match names.as_slice() {
        [a] if plain(a) => Some((*a).to_owned()),
        [_, a] if plain(a) => Some((*a).to_owned()),
        [_, r#as, a] if r#as.eq_ignore_ascii_case("AS") && plain(a) => Some((*a).to_owned()),
        _ => None,
    }
}

/// `FROM … WHERE cond` split at its top-level WHERE.
fn body_where(body: &str) -> Option<(&str, &str)> {
    let words = top_words(body)?;
    let w = words.iter().find(|w| is(w, "WHERE"))?;
    Some((body[..w.start].trim_end(), body[w.end..].trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(sql: &str) -> Plan {
        match shape(sql, &[]) {
            Shape::Merged(p) => p,
            other => panic!("{sql}: {other:?}"),
        }
    }

    #[test]
    fn aggregates_are_rewritten_to_items() {
        let p = plan("Select top 10 value count(c.id) from c");
        assert_eq!(
            (p.top, p.aggregates.clone(), p.select_value),
            (Some(10), vec!["Count"], true)
        );
        assert_eq!(
            p.rewritten,
            r#"SELECT TOP 10 VALUE [{"item": count(c.id)}] from c"#
        );
        let p = plan("SELECT VALUE AVG(c.n) FROM c WHERE c.x = 'a, b'");
        assert_eq!(
            p.rewritten,
            r#"SELECT VALUE [{"item": {"sum": SUM(c.n), "count": COUNT(c.n)}}] FROM c WHERE c.x = 'a, b'"#
        );
        let p = plan("SELECT COUNT(1) + 5 FROM c");
        assert!(!p.select_value && p.aggregates == vec!["Count"]);
        assert_eq!(shape("SELECT VALUE COUNT(1) + 5 FROM c", &[]), Shape::Whole);
        let p = plan("SELECT VALUE AVG(r.key) FROM r WHERE true ORDER BY r.key");
        assert!(p.order_by.is_empty());
        assert_eq!(
            p.rewritten,
            r#"SELECT VALUE [{"item": {"sum": SUM(r.key), "count": COUNT(r.key)}}] FROM r WHERE true"#
        );
    }

    #[test]
    fn order_by_carries_items_and_payload() {
        let p = plan("Select * from c order by c._ts offset 5 limit 10");
        assert_eq!((p.offset, p.limit), (Some(5), Some(10)));
        assert_eq!(
            p.rewritten,
            r#"SELECT c._rid, [{"item": c._ts}] AS orderByItems, c AS payload from c WHERE ({documentdb-formattableorderbyquery-filter}) ORDER BY c._ts ASC OFFSET 0 LIMIT 15"#
        );
        let p = plan("SELECT c.id, c.n AS m FROM root r WHERE r.n > 1 ORDER BY c.n DESC");
        assert_eq!(p.order_by, vec![("c.n".to_owned(), false)]);
        assert_eq!(
            p.rewritten,
            r#"SELECT r._rid, [{"item": c.n}] AS orderByItems, {"id": c.id, "m": c.n} AS payload FROM root r WHERE ((r.n > 1) AND ({documentdb-formattableorderbyquery-filter})) ORDER BY c.n DESC"#
        );
        let p = plan(r#"SELECT DISTINCT c["value"] from c ORDER BY c.pk OFFSET 0 LIMIT 2"#);
        assert!(
            p.rewritten.contains(r#"{"value": c["value"]} AS payload"#),
            "{}",
            p.rewritten
        );
        let p = plan("Select distinct value c.id from c order by c.id");
        assert_eq!(p.distinct, Distinct::Ordered);
    }

    #[test]
    fn simple_and_whole_shapes() {
        assert_eq!(
            shape("SELECT * FROM c WHERE c.value > 1", &[]),
            Shape::Simple
        );
        assert_eq!(
            shape("SELECT c.cat, COUNT(1) FROM c GROUP BY c.cat", &[]),
            Shape::Whole
        );
        let p = plan("SELECT DISTINCT VALUE c.cat FROM c");
        assert_eq!(p.distinct, Distinct::Unordered);
        let p = match shape(
            "SELECT TOP @n * FROM c",
            &[("@n".to_owned(), serde_json::json!(3))],
        ) {
            Shape::Merged(p) => p,
            s => panic!("{s:?}"),
        };
        assert_eq!(p.top, Some(3));
    }
}
