//! Array functions. Values are compared as `=` compares them (numbers as doubles, arrays and
//! objects deeply).

use serde_json::Value;

use super::args::{arr, b, boolean, int};
use crate::sql::value::{as_f64, json_eq, kind, numeric, order_cmp, Val};

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
        // The distinct elements of the first array missing from the second.
        "SETDIFFERENCE" => {
            let (x, y) = (arr(&a[0])?, arr(&a[1])?);
            let mut out: Vec<Value> = Vec::new();
            for v in x {
                if !y.iter().any(|w| json_eq(v, w)) && !out.iter().any(|o| json_eq(o, v)) {
                    out.push(v.clone());
                }
            }
            Some(Value::Array(out))
        }
        // The same elements, ignoring order and repetition.
        "SETEQUAL" => {
            let (x, y) = (arr(&a[0])?, arr(&a[1])?);
            let within =
                |p: &[Value], q: &[Value]| p.iter().all(|v| q.iter().any(|w| json_eq(v, w)));
            boolean(within(x, y) && within(y, x))
        }
        // Numbers only: any other element makes the answer undefined.
        "ARRAY_SUM" | "ARRAY_AVG" | "ARRAY_MEDIAN" => {
            let mut xs = arr(&a[0])?
                .iter()
                .map(as_f64)
                .collect::<Option<Vec<f64>>>()?;
            match name {
                "ARRAY_SUM" => numeric(xs.iter().sum()),
                _ if xs.is_empty() => None,
                "ARRAY_AVG" => numeric(xs.iter().sum::<f64>() / xs.len() as f64),
                _ => {
                    xs.sort_by(f64::total_cmp);
                    let m = xs.len() / 2;
                    numeric(if xs.len() % 2 == 1 {
                        xs[m]
                    } else {
                        (xs[m - 1] + xs[m]) / 2.0
                    })
                }
            }
        }
        // Numbers, strings, booleans and null, ordered null < booleans < numbers < strings.
        "ARRAY_MIN" | "ARRAY_MAX" => {
            let items = arr(&a[0])?;
            if items.iter().any(|v| kind(v) > 4) {
                return None;
            }
            let pick = items.iter().map(|v| Some(v.clone()));
            if name == "ARRAY_MIN" {
                pick.min_by(order_cmp)?
            } else {
                pick.max_by(order_cmp)?
            }
        }
        // Brute force over two vectors of numbers of the same length: cosine similarity (the
        // default), dot product or euclidean distance.
        "VECTORDISTANCE" => {
            let v = |x: &Val| arr(x)?.iter().map(as_f64).collect::<Option<Vec<f64>>>();
            let (x, y) = (v(&a[0])?, v(&a[1])?);
            if x.len() != y.len() || x.is_empty() {
                return None;
            }
            if let Some(brute) = a.get(2) {
                b(brute)?;
            }
            let function = match a.get(3) {
                Some(Some(Value::Object(o))) => match o.get("distanceFunction") {
                    Some(Value::String(f)) => f.to_ascii_lowercase(),
                    None => "cosine".into(),
                    _ => return None,
                },
                Some(_) => return None,
                None => "cosine".into(),
            };
            let dot: f64 = x.iter().zip(&y).map(|(p, q)| p * q).sum();
            numeric(match function.as_str() {
                "cosine" => {
                    let norm = |v: &[f64]| v.iter().map(|p| p * p).sum::<f64>().sqrt();
                    dot / (norm(&x) * norm(&y))
                }
                "dotproduct" => dot,
                "euclidean" => x
                    .iter()
                    .zip(&y)
                    .map(|(p, q)| (p - q) * (p - q))
                    .sum::<f64>()
                    .sqrt(),
                _ => return None,
            })
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
