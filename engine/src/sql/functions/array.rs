//! Array functions. Values are compared as `=` compares them (numbers as doubles, arrays and
//! objects deeply).

use serde_json::Value;

use super::{arr, b, boolean, int};
use crate::sql::value::{json_eq, Val};

pub(super) fn call(name: &str, a: &[Val]) -> Val {
    match name {
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
        // The needles are tried in order: the first that decides the answer gives it, and an
        // undefined needle reached before that makes the answer undefined.
        "ARRAY_CONTAINS_ANY" | "ARRAY_CONTAINS_ALL" => {
            let items = arr(&a[0])?;
            let any = name == "ARRAY_CONTAINS_ANY";
            for needle in &a[1..] {
                let needle = needle.as_ref()?;
                if items.iter().any(|x| json_eq(x, needle)) == any {
                    return boolean(any);
                }
            }
            boolean(!any)
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
                        start.saturating_add(len as usize).min(items.len())
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
