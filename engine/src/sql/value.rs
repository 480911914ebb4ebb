//! The value model of the query language: a value is `undefined` (`None`) or JSON, with
//! Cosmos DB's rules for comparing, ordering and combining values of mixed types.

use std::cmp::Ordering;

use serde_json::{Map, Value};

/// `None` is `undefined`.
pub type Val = Option<Value>;

/// NaN and the infinities are numbers of the language (`NaN`, `Infinity`, `8.9 / 0.0`,
/// `SQRT(-1)`) but not of JSON. Inside a query one travels as an object with this single
/// property; results never carry it: a projected NaN or infinity is undefined (`defined`).
const NON_FINITE: &str = "\u{0}non-finite";

/// The in-query value of a NaN or an infinity.
pub fn non_finite(x: f64) -> Value {
    let name = if x.is_nan() {
        "NaN"
    } else if x > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    };
    let mut m = Map::new();
    m.insert(NON_FINITE.into(), Value::String(name.into()));
    Value::Object(m)
}

/// The NaN or infinity `v` stands for.
pub fn as_non_finite(v: &Value) -> Option<f64> {
    match v {
        Value::Object(m) if m.len() == 1 => match m.get(NON_FINITE)?.as_str()? {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

/// A value as it may appear in a result: NaN and the infinities become undefined.
pub fn defined(v: Val) -> Val {
    v.filter(|v| as_non_finite(v).is_none())
}

/// Rank of a type in ORDER BY: undefined < null < booleans < numbers < strings < arrays < objects.
pub fn rank(v: &Val) -> u8 {
    v.as_ref().map_or(0, kind)
}

/// The rank of a defined value (1 = null ... 6 = object; NaN and the infinities are numbers).
pub fn kind(v: &Value) -> u8 {
    match v {
        Value::Null => 1,
        Value::Bool(_) => 2,
        Value::Number(_) => 3,
        Value::String(_) => 4,
        Value::Array(_) => 5,
        Value::Object(_) if as_non_finite(v).is_some() => 3,
        Value::Object(_) => 6,
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
        (Some(x), Some(y)) if rank(a) == 3 && rank(b) == 3 => {
            let (x, y) = (as_f64(x).unwrap_or(f64::NAN), as_f64(y).unwrap_or(f64::NAN));
            x.total_cmp(&y)
        }
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
    if kind(a) != kind(b) {
        return None;
    }
    let ord = match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (x, y) if as_f64(x).is_some() => match as_f64(x)?.partial_cmp(&as_f64(y)?) {
            Some(o) => o,
            // NaN is unordered and unequal to everything, itself included.
            None => return Some(Value::Bool(op == "!=" || op == "<>")),
        },
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
    as_f64(v.as_ref()?)
}

/// A number of the language (a JSON number, NaN or an infinity) as a double.
pub fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => Some(f(n)),
        Value::Object(_) => as_non_finite(v),
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
    numeric(r)
}

pub fn unary(op: &str, a: &Val) -> Val {
    let x = number(a)?;
    match op {
        "-" => numeric(-x),
        "+" => numeric(x),
        _ => numeric(!int32(x) as f64),
    }
}

/// A number result; NaN and the infinities (`1 / 0`) stay numbers inside the query.
pub fn numeric(x: f64) -> Val {
    Some(if x.is_finite() { num(x) } else { non_finite(x) })
}

/// A number result where NaN and the infinities are undefined (aggregates).
pub fn finite(x: f64) -> Val {
    x.is_finite().then(|| num(x))
}

/// Integral numbers stay integers in results (`1`, not `1.0`).
pub fn num(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.007_199_254_740_992e15 {
        Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n)
            .map(Value::Number)
            .unwrap_or(Value::Null)
    }
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
        let inf = arithmetic("/", &Some(json!(1)), &Some(json!(0)));
        assert_eq!(number(&inf), Some(f64::INFINITY));
        assert_eq!(defined(inf.clone()), None);
        let nan = Some(non_finite(f64::NAN));
        assert_eq!(compare("=", &nan, &nan), Some(json!(false)));
        assert_eq!(compare("<", &Some(json!(1)), &inf), Some(json!(true)));
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
