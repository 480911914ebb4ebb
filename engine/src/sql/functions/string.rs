//! String functions. Positions and lengths count characters.

use serde_json::Value;

use super::args::{arr, b, boolean, int, s, string};
// The compiled patterns are held for the page, so they live with its bounds.
use crate::sql::bounds::{REGEXES, REGEX_CACHE};
use crate::sql::error::QueryError;
use crate::sql::value::{self, Val};

pub(super) fn call(name: &str, a: &[Val]) -> Val {
    let ignore_case = a.get(2).and_then(b).unwrap_or(false);
    let fold = |x: &str| {
        if ignore_case {
            x.to_lowercase()
        } else {
            x.to_owned()
        }
    };
    match name {
        "CONCAT" => a
            .iter()
            .map(|v| s(v).map(str::to_owned))
            .collect::<Option<String>>()
            .and_then(string),
        "CONTAINS" => boolean(fold(s(&a[0])?).contains(&fold(s(&a[1])?))),
        "STARTSWITH" => boolean(fold(s(&a[0])?).starts_with(&fold(s(&a[1])?))),
        "ENDSWITH" => boolean(fold(s(&a[0])?).ends_with(&fold(s(&a[1])?))),
        "STRINGEQUALS" => boolean(fold(s(&a[0])?) == fold(s(&a[1])?)),
        "LOWER" => string(s(&a[0])?.to_lowercase()),
        "UPPER" => string(s(&a[0])?.to_uppercase()),
        "LENGTH" => Some(Value::from(s(&a[0])?.chars().count())),
        "SUBSTRING" => {
            let chars: Vec<char> = s(&a[0])?.chars().collect();
            let start = int(&a[1])?.clamp(0, chars.len() as i64) as usize;
            let len = int(&a[2])?.max(0) as usize;
            string(
                chars[start..start.saturating_add(len).min(chars.len())]
                    .iter()
                    .collect(),
            )
        }
        "LEFT" => {
            let n = int(&a[1])?;
            (n >= 0)
                .then(|| s(&a[0]).map(|x| x.chars().take(n as usize).collect::<String>()))?
                .and_then(string)
        }
        "RIGHT" => {
            let chars: Vec<char> = s(&a[0])?.chars().collect();
            let n = (int(&a[1])?.max(0) as usize).min(chars.len());
            string(chars[chars.len() - n..].iter().collect())
        }
        // Without a second argument, whitespace; with one, any of its characters.
        "LTRIM" | "RTRIM" | "TRIM" => {
            let x = s(&a[0])?;
            let set: Option<Vec<char>> = match a.get(1) {
                Some(v) => Some(s(v)?.chars().collect()),
                None => None,
            };
            let strip = |c: char| match &set {
                Some(set) => set.contains(&c),
                None => c.is_whitespace(),
            };
            string(
                match name {
                    "LTRIM" => x.trim_start_matches(strip),
                    "RTRIM" => x.trim_end_matches(strip),
                    _ => x.trim_matches(strip),
                }
                .to_owned(),
            )
        }
        "REPLACE" => string(s(&a[0])?.replace(s(&a[1])?, s(&a[2])?)),
        "REPLICATE" => {
            let n = int(&a[1])?;
            let x = s(&a[0])?;
            (n >= 0 && (x.len() as u128) * (n as u128) <= 10_000)
                .then(|| x.repeat(n as usize))
                .and_then(string)
        }
        "REVERSE" => string(s(&a[0])?.chars().rev().collect()),
        "INDEX_OF" => {
            let hay: Vec<char> = s(&a[0])?.chars().collect();
            let needle: Vec<char> = s(&a[1])?.chars().collect();
            let from = a.get(2).map_or(Some(0), int)?.max(0) as usize;
            let found = (from..=hay.len().saturating_sub(needle.len()))
                .find(|&i| i + needle.len() <= hay.len() && hay[i..i + needle.len()] == needle[..]);
            Some(Value::from(found.map_or(-1, |i| i as i64)))
        }
        // The last match lying wholly at or before the optional position (as .NET's LastIndexOf).
        "LASTINDEXOF" => {
            let hay: Vec<char> = s(&a[0])?.chars().collect();
            let needle: Vec<char> = s(&a[1])?.chars().collect();
            let end = match a.get(2) {
                Some(v) => {
                    let p = int(v)?;
                    if p < 0 {
                        return None;
                    }
                    (p as usize).saturating_add(1).min(hay.len())
                }
                None => hay.len(),
            };
            let found = (0..=end.saturating_sub(needle.len()))
                .rev()
                .find(|&i| i + needle.len() <= end && hay[i..i + needle.len()] == needle[..]);
            Some(Value::from(found.map_or(-1, |i| i as i64)))
        }
        // The evaluator calls `regex_match` (its errors are the query's); this is for tests.
        "REGEXMATCH" => regex_match(a).ok()?,
        "STRINGJOIN" => {
            let sep = s(&a[1])?;
            let parts: Option<Vec<&str>> = arr(&a[0])?.iter().map(Value::as_str).collect();
            string(parts?.join(sep))
        }
        // An empty delimiter leaves the string whole.
        "STRINGSPLIT" => {
            let (x, d) = (s(&a[0])?, s(&a[1])?);
            let parts: Vec<Value> = if d.is_empty() {
                vec![Value::String(x.to_owned())]
            } else {
                x.split(d).map(|p| Value::String(p.to_owned())).collect()
            };
            Some(Value::Array(parts))
        }
        // CONTAINS over each needle, joined by AND (ALL) or OR (ANY) with undefined propagating
        // as those operators propagate it.
        "CONTAINS_ALL_CI" | "CONTAINS_ALL_CS" | "CONTAINS_ANY_CI" | "CONTAINS_ANY_CS" => {
            let all = name.starts_with("CONTAINS_ALL");
            let ci = name.ends_with("_CI");
            let fold = |x: &str| if ci { x.to_lowercase() } else { x.to_owned() };
            let hay = a[0].as_ref().and_then(Value::as_str).map(fold);
            let mut acc = boolean(all);
            for needle in &a[1..] {
                let found = match (&hay, s(needle)) {
                    (Some(h), Some(n)) => boolean(h.contains(&fold(n))),
                    _ => None,
                };
                acc = if all {
                    value::and(&acc, &found)
                } else {
                    value::or(&acc, &found)
                };
            }
            acc
        }
        // Around the first or last occurrence of the delimiter; without one, the empty string
        // (as XPath's substring-after and substring-before).
        "SUBSTRINGAFTER" | "SUBSTRINGBEFORE" | "LASTSUBSTRINGAFTER" | "LASTSUBSTRINGBEFORE" => {
            let (x, d) = (s(&a[0])?, s(&a[1])?);
            let at = if name.starts_with("LAST") {
                x.rfind(d)
            } else {
                x.find(d)
            };
            string(match at {
                Some(i) if name.ends_with("AFTER") => x[i + d.len()..].to_owned(),
                Some(i) => x[..i].to_owned(),
                None => String::new(),
            })
        }
        _ => None,
    }
}

/// Bytes a compiled pattern may take (the `regex` crate's `size_limit`, its default, named here
/// because it is the bound): `\w{50}` fits, `((x{100}){100}){100}` does not and is refused after
/// ~90 ms of compiling (debug build), once per page rather than once per item.
const REGEX_SIZE_LIMIT: usize = 10 << 20;

/// `RegexMatch(s, pattern, modifiers)`. Each distinct pattern and modifiers are compiled once per
/// page (not once per item), within [`REGEX_SIZE_LIMIT`]; matching counts toward the query's
/// deadline. A pattern that does not compile (`(`, or lookaround and backreferences, which
/// Cosmos DB's PCRE runs and the `regex` crate does not), is too large, or has a modifier other
/// than `i`, `m`, `s`, `x` is a 400 naming it, never `undefined`. Arguments that are not
/// strings give `undefined`, as every function's do.
pub(crate) fn regex_match(a: &[Val]) -> Result<Val, QueryError> {
    let (Some(x), Some(pattern)) = (s(&a[0]), s(&a[1])) else {
        return Ok(None);
    };
    let modifiers = match a.get(2) {
        None => "",
        Some(m) => match s(m) {
            Some(m) => m,
            None => return Ok(None),
        },
    };
    crate::sql::bounds::tick_with(|| {
        format!(
            "the query ran past its time budget while matching RegexMatch's pattern '{}'; \
             narrow it with a filter on the partition key or an indexed path",
            shown(pattern)
        )
    })?;
    let key = (pattern.to_owned(), modifiers.to_owned());
    let compiled = REGEXES.with(|cache| cache.borrow().get(&key).cloned());
    let re = match compiled {
        Some(c) => c?,
        None => {
            let c = compile(pattern, modifiers);
            REGEXES.with(|cache| {
                let mut cache = cache.borrow_mut();
                if cache.len() >= REGEX_CACHE {
                    cache.clear();
                }
                cache.insert(key, c.clone());
            });
            c?
        }
    };
    Ok(boolean(re.is_match(x)))
}

fn compile(pattern: &str, modifiers: &str) -> Result<regex::Regex, QueryError> {
    if let Some(bad) = modifiers.chars().find(|c| !"imsx".contains(*c)) {
        return Err(QueryError::Semantic(format!(
            "RegexMatch: '{bad}' is not a modifier (i, m, s and x are) for the pattern '{}'",
            shown(pattern)
        )));
    }
    regex::RegexBuilder::new(pattern)
        .case_insensitive(modifiers.contains('i'))
        .multi_line(modifiers.contains('m'))
        .dot_matches_new_line(modifiers.contains('s'))
        .ignore_whitespace(modifiers.contains('x'))
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(2 * REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| {
            let why = match &e {
                regex::Error::CompiledTooBig(limit) => format!(
                    "it compiles to more than {} KiB (the limit); write it with fewer or smaller \
                     repetitions",
                    limit >> 10
                ),
                // The crate's message spans lines (the pattern, a caret); its last says why.
                other => other
                    .to_string()
                    .lines()
                    .rev()
                    .find_map(|l| l.trim().strip_prefix("error: ").map(str::to_owned))
                    .unwrap_or_else(|| other.to_string()),
            };
            QueryError::Semantic(format!(
                "RegexMatch cannot run the pattern '{}': {why}",
                shown(pattern)
            ))
        })
}

/// A pattern for a message, cut after 200 characters.
fn shown(pattern: &str) -> String {
    match pattern.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &pattern[..at]),
        None => pattern.to_owned(),
    }
}
