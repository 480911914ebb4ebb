//! String functions. Positions and lengths count characters.

use serde_json::Value;

use super::{arr, b, boolean, int, s, string};
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
        "REGEXMATCH" => {
            let modifiers = a.get(2).map_or(Some(""), |m| s(m))?;
            let mut builder = regex::RegexBuilder::new(s(&a[1])?);
            builder
                .case_insensitive(modifiers.contains('i'))
                .multi_line(modifiers.contains('m'))
                .dot_matches_new_line(modifiers.contains('s'))
                .ignore_whitespace(modifiers.contains('x'));
            boolean(builder.build().ok()?.is_match(s(&a[0])?))
        }
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
