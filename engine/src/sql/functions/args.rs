//! The functions' shared reading of their arguments (a string, a bool, an integer...) and
//! making of results, used by every family's file; `mod.rs` only dispatches to the families.

use serde_json::Value;

use crate::sql::value::Val;

pub(super) fn s(v: &Val) -> Option<&str> {
    match v {
        Some(Value::String(s)) => Some(s),
        _ => None,
    }
}

pub(super) fn b(v: &Val) -> Option<bool> {
    match v {
        Some(Value::Bool(b)) => Some(*b),
        _ => None,
    }
}

pub(super) fn arr(v: &Val) -> Option<&Vec<Value>> {
    match v {
        Some(Value::Array(a)) => Some(a),
        _ => None,
    }
}

/// An integral number (NaN and the infinities are not).
pub(super) fn int(v: &Val) -> Option<i64> {
    crate::sql::value::number(v)
        .filter(|n| n.is_finite() && n.fract() == 0.0)
        .map(|n| n as i64)
}

/// 2^63, the first double past the 64-bit integers.
const TWO_63: f64 = 9_223_372_036_854_775_808.0;

/// A number that is a 64-bit signed integer, exactly.
pub(super) fn int64(v: &Val) -> Option<i64> {
    match v {
        Some(Value::Number(n)) => n.as_i64().or_else(|| {
            let x = n.as_f64()?;
            // 2^63 included: the largest 64-bit integer (9223372036854775807) is 2^63 as a
            // double, and Cosmos DB calls it an integer (IS_INTEGER is true).
            (x.fract() == 0.0 && (-TWO_63..=TWO_63).contains(&x)).then_some(x as i64)
        }),
        _ => None,
    }
}

pub(super) fn string(x: String) -> Val {
    Some(Value::String(x))
}

pub(super) fn boolean(x: bool) -> Val {
    Some(Value::Bool(x))
}
