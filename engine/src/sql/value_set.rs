//! `x IN (v1, v2, ...)` over a list of constants as one hash lookup, not a walk of the list per
//! candidate: 50 000 strings cost what one costs.

use std::collections::HashSet;

use serde_json::Value;

use super::value::{as_f64, kind};

/// Below this many items a linear walk is as fast and allocates nothing.
pub const MIN_ITEMS: usize = 8;

/// The scalar constants of an `IN` list, keyed so that equal values under `=` share a key
/// (`1` and `1.0`; strings byte for byte; `null`; booleans).
#[derive(Debug, Default, PartialEq)]
pub struct ValueSet(HashSet<Key>);

#[derive(Debug, PartialEq, Eq, Hash)]
enum Key {
    Null,
    Bool(bool),
    Number(u64),
    String(String),
}

fn key(v: &Value) -> Option<Key> {
    Some(match v {
        Value::Null => Key::Null,
        Value::Bool(b) => Key::Bool(*b),
        Value::String(s) => Key::String(s.clone()),
        // Numbers, and the infinities (stored as marked objects): by their double, -0 as 0.
        // NaN equals nothing, itself included: it has no key.
        _ if kind(v) == 3 => {
            let f = as_f64(v)?;
            if f.is_nan() {
                return None;
            }
            Key::Number(if f == 0.0 { 0 } else { f.to_bits() })
        }
        _ => return None,
    })
}

impl ValueSet {
    /// The set of `items`, when every one is a scalar literal and there are enough to be worth it.
    pub fn of(items: &[Value]) -> Option<ValueSet> {
        if items.len() < MIN_ITEMS
            || items
                .iter()
                .any(|v| matches!(kind(v), 5 | 6) || (kind(v) == 3 && as_f64(v).is_none()))
        {
            return None;
        }
        Some(ValueSet(items.iter().filter_map(key).collect()))
    }

    /// Whether `x` equals an item (arrays and objects equal no scalar).
    pub fn contains(&self, x: &Value) -> bool {
        key(x).is_some_and(|k| self.0.contains(&k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_under_equals_means_same_key() {
        let items: Vec<Value> = (0..10)
            .map(|i| json!(i))
            .chain([json!("a"), json!(null)])
            .collect();
        let set = ValueSet::of(&items).unwrap();
        assert!(set.contains(&json!(3.0)));
        assert!(set.contains(&json!("a")));
        assert!(set.contains(&json!(null)));
        assert!(!set.contains(&json!("A")));
        assert!(!set.contains(&json!(false)));
        assert!(!set.contains(&json!([1])));
        assert!(
            ValueSet::of(&items[..3]).is_none(),
            "short lists stay linear"
        );
        let mut with_array = items.clone();
        with_array.push(json!([1]));
        assert!(ValueSet::of(&with_array).is_none());
    }
}
