//! Built-in functions. Arguments of the wrong type give `undefined`, as in Cosmos DB; an unknown
//! name or a wrong number of arguments is an error at parse time.

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, TimeZone, Timelike, Utc};
use serde_json::Value;

use super::value::{finite, json_eq, number, Val};

/// (name, min args, max args; `usize::MAX` = variadic)
const SIGNATURES: &[(&str, usize, usize)] = &[
    ("IS_DEFINED", 1, 1),
    ("IS_NULL", 1, 1),
    ("IS_NUMBER", 1, 1),
    ("IS_STRING", 1, 1),
    ("IS_BOOL", 1, 1),
    ("IS_ARRAY", 1, 1),
    ("IS_OBJECT", 1, 1),
    ("IS_PRIMITIVE", 1, 1),
    ("CONCAT", 2, usize::MAX),
    ("CONTAINS", 2, 3),
    ("STARTSWITH", 2, 3),
    ("ENDSWITH", 2, 3),
    ("LOWER", 1, 1),
    ("UPPER", 1, 1),
    ("LENGTH", 1, 1),
    ("SUBSTRING", 3, 3),
    ("LEFT", 2, 2),
    ("RIGHT", 2, 2),
    ("LTRIM", 1, 1),
    ("RTRIM", 1, 1),
    ("TRIM", 1, 1),
    ("REPLACE", 3, 3),
    ("REPLICATE", 2, 2),
    ("REVERSE", 1, 1),
    ("INDEX_OF", 2, 3),
    ("TOSTRING", 1, 1),
    ("STRINGEQUALS", 2, 3),
    ("REGEXMATCH", 2, 3),
    ("ABS", 1, 1),
    ("CEILING", 1, 1),
    ("FLOOR", 1, 1),
    ("ROUND", 1, 1),
    ("TRUNC", 1, 1),
    ("POWER", 2, 2),
    ("SQRT", 1, 1),
    ("LOG", 1, 2),
    ("LOG10", 1, 1),
    ("EXP", 1, 1),
    ("SIGN", 1, 1),
    ("PI", 0, 0),
    ("SIN", 1, 1),
    ("COS", 1, 1),
    ("TAN", 1, 1),
    ("ASIN", 1, 1),
    ("ACOS", 1, 1),
    ("ATAN", 1, 1),
    ("ATN2", 2, 2),
    ("COT", 1, 1),
    ("DEGREES", 1, 1),
    ("RADIANS", 1, 1),
    ("SQUARE", 1, 1),
    ("ARRAY_CONTAINS", 2, 3),
    ("ARRAY_LENGTH", 1, 1),
    ("ARRAY_SLICE", 2, 3),
    ("ARRAY_CONCAT", 2, usize::MAX),
    ("SETINTERSECT", 2, 2),
    ("SETUNION", 2, 2),
    ("GETCURRENTDATETIME", 0, 0),
    ("GETCURRENTTIMESTAMP", 0, 0),
    ("DATETIMEADD", 3, 3),
    ("DATETIMEPART", 2, 2),
    ("DATETIMEDIFF", 3, 3),
    ("COUNT", 1, 1),
    ("SUM", 1, 1),
    ("AVG", 1, 1),
    ("MIN", 1, 1),
    ("MAX", 1, 1),
];

pub fn is_aggregate(name: &str) -> bool {
    matches!(name, "COUNT" | "SUM" | "AVG" | "MIN" | "MAX")
}

/// Validates a call at parse time.
pub fn check_call(name: &str, argc: usize) -> Result<(), String> {
    let (_, min, max) = SIGNATURES
        .iter()
        .find(|s| s.0 == name)
        .ok_or_else(|| format!("unknown function {name}"))?;
    if argc < *min || argc > *max {
        let want = if min == max {
            format!("{min}")
        } else if *max == usize::MAX {
            format!("at least {min}")
        } else {
            format!("{min} to {max}")
        };
        return Err(format!("{name} takes {want} arguments, got {argc}"));
    }
    Ok(())
}

fn s(v: &Val) -> Option<&str> {
    match v {
        Some(Value::String(s)) => Some(s),
        _ => None,
    }
}

fn b(v: &Val) -> Option<bool> {
    match v {
        Some(Value::Bool(b)) => Some(*b),
        _ => None,
    }
}

fn arr(v: &Val) -> Option<&Vec<Value>> {
    match v {
        Some(Value::Array(a)) => Some(a),
        _ => None,
    }
}

fn int(v: &Val) -> Option<i64> {
    number(v).filter(|n| n.fract() == 0.0).map(|n| n as i64)
}

fn string(x: String) -> Val {
    Some(Value::String(x))
}

fn boolean(x: bool) -> Val {
    Some(Value::Bool(x))
}

/// Calls a scalar function (aggregates are handled by the executor).
pub fn call(name: &str, a: &[Val]) -> Val {
    let ignore_case = a.get(2).and_then(b).unwrap_or(false);
    let fold = |x: &str| {
        if ignore_case {
            x.to_lowercase()
        } else {
            x.to_owned()
        }
    };
    match name {
        "IS_DEFINED" => boolean(a[0].is_some()),
        "IS_NULL" => boolean(matches!(a[0], Some(Value::Null))),
        "IS_NUMBER" => boolean(matches!(a[0], Some(Value::Number(_)))),
        "IS_STRING" => boolean(matches!(a[0], Some(Value::String(_)))),
        "IS_BOOL" => boolean(matches!(a[0], Some(Value::Bool(_)))),
        "IS_ARRAY" => boolean(matches!(a[0], Some(Value::Array(_)))),
        "IS_OBJECT" => boolean(matches!(a[0], Some(Value::Object(_)))),
        "IS_PRIMITIVE" => boolean(matches!(
            a[0],
            Some(Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_))
        )),

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
                chars[start..(start + len).min(chars.len())]
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
        "LTRIM" => string(s(&a[0])?.trim_start().to_owned()),
        "RTRIM" => string(s(&a[0])?.trim_end().to_owned()),
        "TRIM" => string(s(&a[0])?.trim().to_owned()),
        "REPLACE" => string(s(&a[0])?.replace(s(&a[1])?, s(&a[2])?)),
        "REPLICATE" => {
            let n = int(&a[1])?;
            let x = s(&a[0])?;
            (n >= 0 && x.len() * n as usize <= 10_000)
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
        "TOSTRING" => match &a[0] {
            Some(Value::String(x)) => string(x.clone()),
            Some(v) => string(v.to_string()),
            None => None,
        },
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

        "PI" => finite(std::f64::consts::PI),
        "POWER" => finite(number(&a[0])?.powf(number(&a[1])?)),
        "ATN2" => finite(number(&a[1])?.atan2(number(&a[0])?)),
        "LOG" => {
            let x = number(&a[0])?;
            match a.get(1) {
                Some(base) => finite(x.ln() / number(base)?.ln()),
                None => finite(x.ln()),
            }
        }
        "ABS" | "CEILING" | "FLOOR" | "ROUND" | "TRUNC" | "SQRT" | "LOG10" | "EXP" | "SIGN"
        | "SIN" | "COS" | "TAN" | "ASIN" | "ACOS" | "ATAN" | "COT" | "DEGREES" | "RADIANS"
        | "SQUARE" => {
            let x = number(&a[0])?;
            finite(match name {
                "ABS" => x.abs(),
                "CEILING" => x.ceil(),
                "FLOOR" => x.floor(),
                "ROUND" => x.round(),
                "TRUNC" => x.trunc(),
                "SQRT" => x.sqrt(),
                "LOG10" => x.log10(),
                "EXP" => x.exp(),
                "SIGN" => {
                    if x > 0.0 {
                        1.0
                    } else if x < 0.0 {
                        -1.0
                    } else {
                        0.0
                    }
                }
                "SIN" => x.sin(),
                "COS" => x.cos(),
                "TAN" => x.tan(),
                "ASIN" => x.asin(),
                "ACOS" => x.acos(),
                "ATAN" => x.atan(),
                "COT" => 1.0 / x.tan(),
                "DEGREES" => x.to_degrees(),
                "RADIANS" => x.to_radians(),
                _ => x * x,
            })
        }

        "ARRAY_CONTAINS" => {
            let items = arr(&a[0])?;
            let needle = a[1].as_ref()?;
            let partial = a.get(2).and_then(b).unwrap_or(false);
            boolean(items.iter().any(|x| {
                if partial {
                    contains_partially(x, needle)
                } else {
                    json_eq(x, needle)
                }
            }))
        }
        "ARRAY_LENGTH" => Some(Value::from(arr(&a[0])?.len())),
        "ARRAY_SLICE" => {
            let items = arr(&a[0])?;
            let n = items.len() as i64;
            let mut start = int(&a[1])?;
            if start < 0 {
                start = (n + start).max(0);
            }
            let start = start.min(n) as usize;
            let end = match a.get(2) {
                Some(len) => {
                    let len = int(len)?;
                    if len < 0 {
                        (n + len).max(start as i64) as usize
                    } else {
                        (start + len as usize).min(items.len())
                    }
                }
                None => items.len(),
            };
            Some(Value::Array(items[start..end.max(start)].to_vec()))
        }
        "ARRAY_CONCAT" => {
            let mut out = Vec::new();
            for v in a {
                out.extend(arr(v)?.iter().cloned());
            }
            Some(Value::Array(out))
        }
        "SETINTERSECT" | "SETUNION" => {
            let (x, y) = (arr(&a[0])?, arr(&a[1])?);
            let mut out: Vec<Value> = Vec::new();
            let mut push = |v: &Value| {
                if !out.iter().any(|o| json_eq(o, v)) {
                    out.push(v.clone());
                }
            };
            if name == "SETUNION" {
                x.iter().chain(y).for_each(&mut push);
            } else {
                x.iter()
                    .filter(|v| y.iter().any(|w| json_eq(v, w)))
                    .for_each(&mut push);
            }
            Some(Value::Array(out))
        }

        "GETCURRENTDATETIME" => string(format_datetime(&Utc::now())),
        "GETCURRENTTIMESTAMP" => Some(Value::from(Utc::now().timestamp_millis())),
        "DATETIMEADD" => {
            let n = int(&a[1])?;
            let dt = parse_datetime(s(&a[2])?)?;
            let out = match part(s(&a[0])?)? {
                Part::Year => add_months(dt, n.checked_mul(12)?)?,
                Part::Month => add_months(dt, n)?,
                Part::Day => dt + Duration::try_days(n)?,
                Part::Hour => dt + Duration::try_hours(n)?,
                Part::Minute => dt + Duration::try_minutes(n)?,
                Part::Second => dt + Duration::try_seconds(n)?,
                Part::Millisecond => dt + Duration::try_milliseconds(n)?,
                Part::Microsecond => dt + Duration::microseconds(n),
                Part::Nanosecond => dt + Duration::nanoseconds(n),
            };
            string(format_datetime(&out))
        }
        "DATETIMEPART" => {
            let dt = parse_datetime(s(&a[1])?)?;
            Some(Value::from(match part(s(&a[0])?)? {
                Part::Year => dt.year() as i64,
                Part::Month => dt.month() as i64,
                Part::Day => dt.day() as i64,
                Part::Hour => dt.hour() as i64,
                Part::Minute => dt.minute() as i64,
                Part::Second => dt.second() as i64,
                Part::Millisecond => (dt.nanosecond() / 1_000_000) as i64,
                Part::Microsecond => (dt.nanosecond() / 1_000) as i64,
                Part::Nanosecond => dt.nanosecond() as i64,
            }))
        }
        "DATETIMEDIFF" => {
            let (x, y) = (parse_datetime(s(&a[1])?)?, parse_datetime(s(&a[2])?)?);
            // Boundaries crossed, as SQL's DATEDIFF counts them.
            Some(Value::from(match part(s(&a[0])?)? {
                Part::Year => (y.year() - x.year()) as i64,
                Part::Month => {
                    (y.year() - x.year()) as i64 * 12 + y.month() as i64 - x.month() as i64
                }
                Part::Day => (y.date_naive() - x.date_naive()).num_days(),
                Part::Hour => y.timestamp() / 3600 - x.timestamp() / 3600,
                Part::Minute => y.timestamp() / 60 - x.timestamp() / 60,
                Part::Second => y.timestamp() - x.timestamp(),
                Part::Millisecond => y.timestamp_millis() - x.timestamp_millis(),
                Part::Microsecond => y.timestamp_micros() - x.timestamp_micros(),
                Part::Nanosecond => y.timestamp_nanos_opt()? - x.timestamp_nanos_opt()?,
            }))
        }
        _ => None,
    }
}

/// `ARRAY_CONTAINS(..., true)`: an object matches when it has every property of the needle.
fn contains_partially(item: &Value, needle: &Value) -> bool {
    match (item, needle) {
        (Value::Object(i), Value::Object(n)) => n
            .iter()
            .all(|(k, v)| i.get(k).is_some_and(|w| contains_partially(w, v))),
        _ => json_eq(item, needle),
    }
}

enum Part {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Millisecond,
    Microsecond,
    Nanosecond,
}

fn part(p: &str) -> Option<Part> {
    Some(match p.to_ascii_lowercase().as_str() {
        "year" | "yyyy" | "yy" => Part::Year,
        "month" | "mm" | "m" => Part::Month,
        "day" | "dd" | "d" => Part::Day,
        "hour" | "hh" => Part::Hour,
        "minute" | "mi" | "n" => Part::Minute,
        "second" | "ss" | "s" => Part::Second,
        "millisecond" | "ms" => Part::Millisecond,
        "microsecond" | "mcs" => Part::Microsecond,
        "nanosecond" | "ns" => Part::Nanosecond,
        _ => return None,
    })
}

/// Cosmos DB's date-time strings: `YYYY-MM-DDThh:mm:ss.fffffffZ` (date-only accepted).
fn parse_datetime(x: &str) -> Option<DateTime<Utc>> {
    if let Ok(dt) = DateTime::parse_from_rfc3339(x) {
        return Some(dt.with_timezone(&Utc));
    }
    if let Ok(n) = NaiveDateTime::parse_from_str(x.trim_end_matches('Z'), "%Y-%m-%dT%H:%M:%S%.f") {
        return Some(Utc.from_utc_datetime(&n));
    }
    let d = NaiveDate::parse_from_str(x, "%Y-%m-%d").ok()?;
    Some(Utc.from_utc_datetime(&d.and_hms_opt(0, 0, 0)?))
}

fn format_datetime(dt: &DateTime<Utc>) -> String {
    format!(
        "{}.{:07}Z",
        dt.format("%Y-%m-%dT%H:%M:%S"),
        dt.nanosecond() / 100
    )
}

fn add_months(dt: DateTime<Utc>, months: i64) -> Option<DateTime<Utc>> {
    let total = dt.year() as i64 * 12 + dt.month0() as i64 + months;
    let (year, month0) = (total.div_euclid(12) as i32, total.rem_euclid(12) as u32);
    let last_day = (28..=31)
        .rev()
        .find(|d| NaiveDate::from_ymd_opt(year, month0 + 1, *d).is_some())?;
    let date = NaiveDate::from_ymd_opt(year, month0 + 1, dt.day().min(last_day))?;
    Some(Utc.from_utc_datetime(&date.and_time(dt.time())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn c(name: &str, args: &[Value]) -> Val {
        call(name, &args.iter().cloned().map(Some).collect::<Vec<_>>())
    }

    #[test]
    fn a_few_functions() {
        assert_eq!(
            c("STARTSWITH", &[json!("Abc"), json!("ab"), json!(true)]),
            Some(json!(true))
        );
        assert_eq!(c("STARTSWITH", &[json!(1), json!("ab")]), None);
        assert_eq!(
            c("SUBSTRING", &[json!("abc"), json!(1), json!(1)]),
            Some(json!("b"))
        );
        assert_eq!(c("ROUND", &[json!(-2.5)]), Some(json!(-3)));
        assert_eq!(
            c(
                "ARRAY_CONTAINS",
                &[json!([{"a": 1, "b": 2}]), json!({"a": 1}), json!(true)]
            ),
            Some(json!(true))
        );
        assert_eq!(
            c(
                "ARRAY_CONTAINS",
                &[json!([{"a": 1, "b": 2}]), json!({"a": 1})]
            ),
            Some(json!(false))
        );
        assert_eq!(
            c("ARRAY_SLICE", &[json!([1, 2, 3, 4]), json!(-2), json!(1)]),
            Some(json!([3]))
        );
        assert_eq!(
            c(
                "DATETIMEADD",
                &[json!("mm"), json!(1), json!("2020-01-31T00:00:00.0000000Z")]
            ),
            Some(json!("2020-02-29T00:00:00.0000000Z"))
        );
        assert_eq!(
            c(
                "DATETIMEPART",
                &[json!("yyyy"), json!("2016-05-29T08:30:00.1301617Z")]
            ),
            Some(json!(2016))
        );
        assert_eq!(
            c(
                "DATETIMEDIFF",
                &[
                    json!("day"),
                    json!("2020-01-01T23:00:00Z"),
                    json!("2020-01-02T01:00:00Z")
                ]
            ),
            Some(json!(1))
        );
        assert_eq!(
            c("REGEXMATCH", &[json!("Hello"), json!("^h"), json!("i")]),
            Some(json!(true))
        );
        assert!(check_call("LOWER", 2).is_err());
        assert!(check_call("NOPE", 1).is_err());
    }
}
