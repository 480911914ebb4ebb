//! The value model of the query language: a value is `undefined` (`None`) or JSON, with
//! Cosmos DB's rules for comparing, ordering and combining values of mixed types.

use std::cmp::Ordering;

use serde_json::Value;

/// `None` is `undefined`.
pub type Val = Option<Value>;

/// Rank of a type in ORDER BY: undefined < null < booleans < numbers < strings < arrays < objects.
fn rank(v: &Val) -> u8 {
    match v {
        None => 0,
        Some(Value::Null) => 1,
        Some(Value::Bool(_)) => 2,
        Some(Value::Number(_)) => 3,
        Some(Value::String(_)) => 4,
        Some(Value::Array(_)) => 5,
        Some(Value::Object(_)) => 6,
    }
}

/// Cosmos DB compares strings by UTF-16 code units.
pub fn cmp_str(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

fn f(n: &serde_json::Number) -> f64 {
    n.as_f64().unwrap_or(f64::NAN)
}

/// The total order ORDER BY and DISTINCT use. Arrays and objects (which Cosmos DB orders by an
/// internal hash) are ordered here by their JSON text, a stable total order.
pub fn order_cmp(a: &Val, b: &Val) -> Ordering {
    match (a, b) {
        (Some(Value::Bool(x)), Some(Value::Bool(y))) => x.cmp(y),
        (Some(Value::Number(x)), Some(Value::Number(y))) => f(x).total_cmp(&f(y)),
        (Some(Value::String(x)), Some(Value::String(y))) => cmp_str(x, y),
        (Some(x @ (Value::Array(_) | Value::Object(_))), Some(y)) if rank(a) == rank(b) => {
            x.to_string().cmp(&y.to_string())
        }
        _ => rank(a).cmp(&rank(b)),
    }
}

/// Deep equality with numbers compared as doubles (`1 = 1.0`).
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => f(x) == f(y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// `a op b` for the comparison operators. Values of different types compare as undefined;
/// arrays and objects support only `=` and `!=`.
pub fn compare(op: &str, a: &Val, b: &Val) -> Val {
    let (Some(a), Some(b)) = (a, b) else {
        return None;
    };
    if rank(&Some(a.clone())) != rank(&Some(b.clone())) {
        return None;
    }
    let ord = match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (Value::Number(x), Value::Number(y)) => f(x).partial_cmp(&f(y))?,
        (Value::String(x), Value::String(y)) => cmp_str(x, y),
        _ => {
            let eq = json_eq(a, b);
            return match op {
                "=" => Some(Value::Bool(eq)),
                "!=" | "<>" => Some(Value::Bool(!eq)),
                _ => None,
            };
        }
    };
    Some(Value::Bool(match op {
        "=" => ord == Ordering::Equal,
        "!=" | "<>" => ord != Ordering::Equal,
        "<" => ord == Ordering::Less,
        "<=" => ord != Ordering::Greater,
        ">" => ord == Ordering::Greater,
        _ => ord != Ordering::Less,
    }))
}

pub fn and(a: &Val, b: &Val) -> Val {
    match (a, b) {
        (Some(Value::Bool(false)), _) | (_, Some(Value::Bool(false))) => Some(Value::Bool(false)),
        (Some(Value::Bool(true)), Some(Value::Bool(true))) => Some(Value::Bool(true)),
        _ => None,
    }
}

pub fn or(a: &Val, b: &Val) -> Val {
    match (a, b) {
        (Some(Value::Bool(true)), _) | (_, Some(Value::Bool(true))) => Some(Value::Bool(true)),
        (Some(Value::Bool(false)), Some(Value::Bool(false))) => Some(Value::Bool(false)),
        _ => None,
    }
}

pub fn not(a: &Val) -> Val {
    match a {
        Some(Value::Bool(b)) => Some(Value::Bool(!b)),
        _ => None,
    }
}

pub fn number(v: &Val) -> Option<f64> {
    match v {
        Some(Value::Number(n)) => Some(f(n)),
        _ => None,
    }
}

/// JavaScript's ToInt32, which Cosmos DB's bitwise operators use.
fn int32(x: f64) -> i32 {
    if !x.is_finite() {
        return 0;
    }
    (x.trunc() as i64 as u64 & 0xFFFF_FFFF) as u32 as i32
}

pub fn arithmetic(op: &str, a: &Val, b: &Val) -> Val {
    if op == "||" {
        return match (a, b) {
            (Some(Value::String(x)), Some(Value::String(y))) => {
                Some(Value::String(format!("{x}{y}")))
            }
            _ => None,
        };
    }
    let (x, y) = (number(a)?, number(b)?);
    let r = match op {
        "+" => x + y,
        "-" => x - y,
        "*" => x * y,
        "/" => x / y,
        "%" => x % y,
        "&" => (int32(x) & int32(y)) as f64,
        "|" => (int32(x) | int32(y)) as f64,
        "^" => (int32(x) ^ int32(y)) as f64,
        "<<" => int32(x).wrapping_shl(int32(y) as u32 & 31) as f64,
        ">>" => int32(x).wrapping_shr(int32(y) as u32 & 31) as f64,
        _ => ((int32(x) as u32) >> (int32(y) as u32 & 31)) as f64,
    };
    finite(r)
}

pub fn unary(op: &str, a: &Val) -> Val {
    let x = number(a)?;
    match op {
        "-" => finite(-x),
        "+" => finite(x),
        _ => finite(!int32(x) as f64),
    }
}

/// A number result; infinities and NaN (e.g. division by zero) are undefined.
pub fn finite(x: f64) -> Val {
    x.is_finite().then(|| super::parser::num(x))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn mixed_types_are_undefined() {
        assert_eq!(compare("=", &Some(json!(1)), &Some(json!("1"))), None);
        assert_eq!(
            compare("<", &Some(json!(1)), &Some(json!(2.5))),
            Some(json!(true))
        );
        assert_eq!(
            compare("=", &Some(json!(1)), &Some(json!(1.0))),
            Some(json!(true))
        );
        assert_eq!(
            compare(
                "=",
                &Some(json!([1, {"a": 2}])),
                &Some(json!([1, {"a": 2}]))
            ),
            Some(json!(true))
        );
        assert_eq!(compare("<", &Some(json!([1])), &Some(json!([2]))), None);
        assert_eq!(compare("=", &None, &None), None);
        assert_eq!(and(&Some(json!(false)), &None), Some(json!(false)));
        assert_eq!(or(&Some(json!(false)), &None), None);
        assert_eq!(arithmetic("/", &Some(json!(1)), &Some(json!(0))), None);
        assert_eq!(arithmetic("||", &Some(json!("a")), &Some(json!(1))), None);
        assert_eq!(
            arithmetic(">>>", &Some(json!(-1)), &Some(json!(28))),
            Some(json!(15))
        );
    }

    #[test]
    fn order_across_types() {
        let vals = [
            None,
            Some(json!(null)),
            Some(json!(false)),
            Some(json!(true)),
            Some(json!(-1)),
            Some(json!(2)),
            Some(json!("")),
            Some(json!("a")),
            Some(json!([])),
            Some(json!({})),
        ];
        for w in vals.windows(2) {
            assert_eq!(
                order_cmp(&w[0], &w[1]),
                Ordering::Less,
                "{:?} < {:?}",
                w[0],
                w[1]
            );
        }
        assert_eq!(cmp_str("\u{FFFD}", "😀"), Ordering::Greater, "UTF-16 order");
    }
}
