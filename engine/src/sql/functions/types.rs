//! Type checks, conversions and the conditional functions (`IIF`, `CHOOSE`).

use serde_json::{Map, Value};

use super::args::{boolean, int64, s, string};
use crate::sql::value::num;
use crate::sql::value::{as_non_finite, kind, Val};

pub(super) fn call(name: &str, a: &[Val]) -> Val {
    match name {
        "IS_DEFINED" => boolean(a[0].is_some()),
        "IS_NULL" => boolean(matches!(a[0], Some(Value::Null))),
        "IS_NUMBER" => boolean(a[0].as_ref().is_some_and(|v| kind(v) == 3)),
        "IS_FINITE_NUMBER" => boolean(matches!(a[0], Some(Value::Number(_)))),
        "IS_INTEGER" => boolean(int64(&a[0]).is_some()),
        "IS_STRING" => boolean(matches!(a[0], Some(Value::String(_)))),
        "IS_BOOL" => boolean(matches!(a[0], Some(Value::Bool(_)))),
        "IS_ARRAY" => boolean(matches!(a[0], Some(Value::Array(_)))),
        "IS_OBJECT" => boolean(a[0].as_ref().is_some_and(|v| kind(v) == 6)),
        "IS_PRIMITIVE" => boolean(a[0].as_ref().is_some_and(|v| kind(v) <= 4)),

        // Only `true` selects the first branch: other values, undefined included, the second.
        "IIF" => {
            if a[0] == Some(Value::Bool(true)) {
                a[1].clone()
            } else {
                a[2].clone()
            }
        }
        // 1-based; an index out of the list (or not an integer) is undefined.
        "CHOOSE" => {
            let i = int64(&a[0])?;
            (i >= 1).then(|| a.get(i as usize).cloned()).flatten()?
        }

        "DOCUMENTID" => document_id(&a[0]),

        "TOSTRING" => match &a[0] {
            Some(Value::String(x)) => string(x.clone()),
            Some(v) => string(match as_non_finite(v) {
                Some(x) if x.is_nan() => "NaN".into(),
                Some(x) if x > 0.0 => "Infinity".into(),
                Some(_) => "-Infinity".into(),
                None => v.to_string(),
            }),
            None => None,
        },
        // The string is parsed as JSON (surrounding whitespace allowed); a value of another type
        // or text that is not JSON is undefined.
        "STRINGTOARRAY" => parse(&a[0]).filter(Value::is_array),
        "STRINGTOBOOLEAN" => parse(&a[0]).filter(Value::is_boolean),
        "STRINGTONULL" => parse(&a[0]).filter(Value::is_null),
        "STRINGTOOBJECT" => parse(&a[0]).filter(Value::is_object),
        "STRINGTONUMBER" => match parse(&a[0])? {
            Value::Number(n) => n.as_f64().map(num),
            _ => None,
        },
        "OBJECTTOARRAY" => {
            let Some(Value::Object(m)) = &a[0] else {
                return None;
            };
            if as_non_finite(a[0].as_ref()?).is_some() {
                return None;
            }
            let key = a.get(1).map_or(Some("k"), s)?;
            let value = a.get(2).map_or(Some("v"), s)?;
            Some(Value::Array(
                m.iter()
                    .map(|(k, v)| {
                        let mut pair = Map::new();
                        pair.insert(key.to_owned(), Value::String(k.clone()));
                        pair.insert(value.to_owned(), v.clone());
                        Value::Object(pair)
                    })
                    .collect(),
            ))
        }
        _ => None,
    }
}

fn parse(v: &Val) -> Val {
    serde_json::from_str(s(v)?).ok()
}

/// `DOCUMENTID(c)`: the item's integer id, read from its `_rid`. Cosmos DB's `_rid` (base64 of
/// database, collection and document ids) gives its document id, the little-endian 64-bit
/// number of bytes 8 to 16 (`36ZyAPW+uN8NAAAAAAAAAA==` is 13, the reference's example); the
/// engine's ids are in that form (`rid.rs`, `-` for `/`), their number the top 53 bits of the
/// xxh3 hash of the item's key. An item written before them has a hex `_rid` (container id, then
/// that hash), which gives the same number: a stable per-item number, exact as a JSON number.
fn document_id(item: &Val) -> Val {
    let rid = item.as_ref()?.get("_rid")?.as_str()?;
    if rid.len() == 24 && rid.bytes().all(|b| b.is_ascii_hexdigit()) {
        let hash = u64::from_str_radix(&rid[8..], 16).ok()?;
        return Some(Value::from(hash >> 11));
    }
    let bytes = crate::rid::decode(rid)?;
    let doc: [u8; 8] = bytes.get(8..16)?.try_into().ok()?;
    Some(Value::from(u64::from_le_bytes(doc)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::value::number;
    use serde_json::json;

    fn c(name: &str, args: &[Val]) -> Val {
        call(name, args)
    }

    #[test]
    fn conversions_and_conditionals() {
        assert_eq!(
            c("STRINGTONUMBER", &[Some(json!("   60   "))]),
            Some(json!(60))
        );
        assert_eq!(
            c("STRINGTONUMBER", &[Some(json!("1.000000"))]),
            Some(json!(1))
        );
        assert_eq!(c("STRINGTONUMBER", &[Some(json!("0x1F"))]), None);
        assert_eq!(c("STRINGTOBOOLEAN", &[Some(json!("False"))]), None);
        assert_eq!(
            c("STRINGTONULL", &[Some(json!(" null "))]),
            Some(json!(null))
        );
        assert_eq!(c("CHOOSE", &[Some(json!(0)), Some(json!("a"))]), None);
        assert_eq!(
            c(
                "CHOOSE",
                &[Some(json!(2)), Some(json!("a")), Some(json!("b"))]
            ),
            Some(json!("b"))
        );
        assert_eq!(
            c("IIF", &[None, Some(json!(1)), Some(json!(2))]),
            Some(json!(2))
        );
        let nan = Some(crate::sql::value::non_finite(f64::NAN));
        assert_eq!(
            c("TOSTRING", std::slice::from_ref(&nan)),
            Some(json!("NaN"))
        );
        assert_eq!(
            c("IS_NUMBER", std::slice::from_ref(&nan)),
            Some(json!(true))
        );
        assert_eq!(
            c("IS_OBJECT", std::slice::from_ref(&nan)),
            Some(json!(false))
        );
        assert_eq!(
            c("IS_FINITE_NUMBER", std::slice::from_ref(&nan)),
            Some(json!(false))
        );
        assert_eq!(number(&nan).map(f64::is_nan), Some(true));
        assert_eq!(c("IS_INTEGER", &[Some(json!(1.5))]), Some(json!(false)));
        assert_eq!(
            c("IS_INTEGER", &[Some(json!(9_223_372_036_854_775_807i64))]),
            Some(json!(true))
        );
        assert_eq!(c("IS_INTEGER", &[Some(json!(1e19))]), Some(json!(false)));
    }
}
