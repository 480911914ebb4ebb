//! Key ranges of the index that answer a predicate on one path of one physical partition.
//!
//! Cosmos DB compares only values of one type (`c.n > 5` never matches a string), so a range is
//! bounded within its type's tag. The ranges may be a superset of the answer (cut long strings):
//! the executor re-evaluates the whole filter on every item it loads.

use std::ops::Bound;

use serde_json::Value;

use super::encoding;

/// A half-open key range `[from, to)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRange {
    pub from: Vec<u8>,
    pub to: Vec<u8>,
}

/// `rid · partition · path-hash`: the prefix of every entry of one path in one partition.
pub fn path_prefix(rid: u32, partition: u32, path: &[String]) -> Vec<u8> {
    let mut k = Vec::with_capacity(16);
    k.extend_from_slice(&rid.to_be_bytes());
    k.extend_from_slice(&partition.to_be_bytes());
    k.extend_from_slice(&super::path_hash(path));
    k
}

/// `rid · partition · hash`: the prefix of every entry of one index (a path or a composite).
pub fn hash_prefix(rid: u32, partition: u32, hash: &[u8; 8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(16);
    k.extend_from_slice(&rid.to_be_bytes());
    k.extend_from_slice(&partition.to_be_bytes());
    k.extend_from_slice(hash);
    k
}

/// The smallest key greater than every key starting with `prefix`.
pub fn successor(prefix: &[u8]) -> Vec<u8> {
    let mut s = prefix.to_vec();
    while let Some(last) = s.last_mut() {
        if *last < 0xFF {
            *last += 1;
            return s;
        }
        s.pop();
    }
    vec![0xFF; prefix.len() + 1]
}

fn type_tag(v: &Value) -> Option<u8> {
    Some(match v {
        Value::Null => encoding::TAG_NULL,
        Value::Bool(false) => encoding::TAG_FALSE,
        Value::Bool(true) => encoding::TAG_TRUE,
        Value::Number(_) => encoding::TAG_NUMBER,
        Value::String(_) => encoding::TAG_STRING,
        _ => return None,
    })
}

/// Entries whose value equals `v`.
pub fn equal(prefix: &[u8], v: &Value) -> Option<KeyRange> {
    let mut from = prefix.to_vec();
    encoding::encode_into(v, &mut from).then(|| KeyRange {
        to: successor(&from),
        from,
    })
}

/// Entries whose value lies between the bounds, within the bounds' type (both bounds, when
/// given, must be of one type; `None` otherwise: the predicate can match nothing or needs a scan).
pub fn range(prefix: &[u8], lower: Bound<&Value>, upper: Bound<&Value>) -> Option<KeyRange> {
    let tag = match (lower, upper) {
        (Bound::Included(a) | Bound::Excluded(a), Bound::Included(b) | Bound::Excluded(b)) => {
            let (ta, tb) = (type_tag(a)?, type_tag(b)?);
            let boolean = |t| t == encoding::TAG_FALSE || t == encoding::TAG_TRUE;
            (ta == tb || (boolean(ta) && boolean(tb))).then_some(ta)?
        }
        (Bound::Included(a) | Bound::Excluded(a), Bound::Unbounded) => type_tag(a)?,
        (Bound::Unbounded, Bound::Included(b) | Bound::Excluded(b)) => type_tag(b)?,
        (Bound::Unbounded, Bound::Unbounded) => return None,
    };
    let encoded = |v: &Value| {
        let mut k = prefix.to_vec();
        encoding::encode_into(v, &mut k);
        k
    };
    // Booleans are one type under two tags (false < true).
    let (first_tag, last_tag) = if tag == encoding::TAG_TRUE || tag == encoding::TAG_FALSE {
        (encoding::TAG_FALSE, encoding::TAG_TRUE)
    } else {
        (tag, tag)
    };
    let mut type_start = prefix.to_vec();
    type_start.push(first_tag);
    let mut type_last = prefix.to_vec();
    type_last.push(last_tag);
    let from = match lower {
        Bound::Included(a) => encoded(a),
        Bound::Excluded(a) => successor(&encoded(a)),
        Bound::Unbounded => type_start.clone(),
    };
    let to = match upper {
        Bound::Included(b) => successor(&encoded(b)),
        Bound::Excluded(b) => encoded(b),
        Bound::Unbounded => successor(&type_last),
    };
    (from < to).then_some(KeyRange { from, to })
}

/// Entries whose string value starts with `p`.
pub fn starts_with(prefix: &[u8], p: &str) -> KeyRange {
    let mut from = prefix.to_vec();
    from.extend_from_slice(&encoding::string_prefix(p));
    KeyRange {
        to: successor(&from),
        from,
    }
}

/// Every entry of the path, in Cosmos DB's order of values.
#[cfg(test)]
fn all(prefix: &[u8]) -> KeyRange {
    KeyRange {
        from: prefix.to_vec(),
        to: successor(prefix),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(prefix: &[u8], v: &Value) -> Vec<u8> {
        let mut k = prefix.to_vec();
        encoding::encode_into(v, &mut k);
        k.extend_from_slice(&[0x42; 24]); // epk and id hash
        k
    }

    fn hit(r: &KeyRange, k: &[u8]) -> bool {
        r.from.as_slice() <= k && k < r.to.as_slice()
    }

    #[test]
    fn ranges_stay_within_their_type() {
        let p = path_prefix(1, 0, &["n".to_string()]);
        let gt5 = range(&p, Bound::Excluded(&json!(5)), Bound::Unbounded).unwrap();
        assert!(hit(&gt5, &key(&p, &json!(6))));
        assert!(!hit(&gt5, &key(&p, &json!(5))));
        assert!(!hit(&gt5, &key(&p, &json!("6"))), "strings are not > 5");
        let between = range(&p, Bound::Included(&json!(1)), Bound::Included(&json!(3))).unwrap();
        assert!(hit(&between, &key(&p, &json!(3))) && hit(&between, &key(&p, &json!(1))));
        assert!(!hit(&between, &key(&p, &json!(3.5))));
        assert!(range(&p, Bound::Included(&json!(1)), Bound::Included(&json!("a"))).is_none());
        let eq = equal(&p, &json!("ab")).unwrap();
        assert!(hit(&eq, &key(&p, &json!("ab"))) && !hit(&eq, &key(&p, &json!("abc"))));
        let sw = starts_with(&p, "ab");
        assert!(
            hit(&sw, &key(&p, &json!("abc")))
                && hit(&sw, &key(&p, &json!("ab")))
                && !hit(&sw, &key(&p, &json!("b")))
        );
        let lt_true = range(&p, Bound::Unbounded, Bound::Excluded(&json!(true))).unwrap();
        assert!(hit(&lt_true, &key(&p, &json!(false))) && !hit(&lt_true, &key(&p, &json!(true))));
        let other = path_prefix(1, 0, &["m".to_string()]);
        assert!(!hit(&all(&p), &key(&other, &json!(1))));
    }
}
