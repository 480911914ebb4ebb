//! A script's plain data read straight out of its realm: what `JSON.parse(JSON.stringify(v))`
//! would give, without writing and parsing the text. The operations a script queues (their
//! documents included) crossed as JSON text, and `JSON.stringify` was the largest piece of a
//! call's JavaScript overhead on the writer (BENCHMARKS.md, issue 32).
//!
//! Only what `JSON.stringify` treats as plain data is read here: objects and arrays of the
//! realm's own plain classes without a `toJSON` method, strings, numbers, booleans, null, and
//! the `undefined`, functions and symbols it leaves out (or writes as `null` in an array).
//! Anything else — a `Date`, a boxed primitive, a `Proxy`, a BigInt, a string with a lone
//! surrogate, nesting deeper than [`MAX_DEPTH`] (a cycle) — answers `None`, and the caller
//! stringifies the value as before, so what the engine reads never differs.

use rquickjs::{qjs, Array, Atom, Ctx, Object, Type};
use serde_json::{Map, Number, Value};

/// Deeper than this, the value is left to `JSON.stringify` (which reports a cycle).
const MAX_DEPTH: usize = 64;

/// The class ids of this realm's plain objects and arrays.
pub(super) struct Plain<'js> {
    object: qjs::JSClassID,
    array: qjs::JSClassID,
    to_json: Atom<'js>,
}

/// One value read: a JSON value, nothing (left out of an object), or not plain data.
enum Read {
    Json(Value),
    Absent,
    NotPlain,
}

impl<'js> Plain<'js> {
    pub fn of(js: &Ctx<'js>) -> rquickjs::Result<Plain<'js>> {
        let object = Object::new(js.clone())?;
        let array = Array::new(js.clone())?;
        // SAFETY: both values are live objects of this realm.
        unsafe {
            Ok(Plain {
                object: qjs::JS_GetClassID(object.as_raw()),
                array: qjs::JS_GetClassID(array.as_raw()),
                to_json: Atom::from_str(js.clone(), "toJSON")?,
            })
        }
    }

    /// `v` as `JSON.parse(JSON.stringify(v))` gives it, or `None` when it is not plain data
    /// (see the module's header). A getter on the way runs, as it would for `JSON.stringify`.
    pub fn read(&self, v: &rquickjs::Value<'js>) -> rquickjs::Result<Option<Value>> {
        Ok(match self.value(v, 0)? {
            Read::Json(j) => Some(j),
            Read::Absent | Read::NotPlain => None,
        })
    }

    fn value(&self, v: &rquickjs::Value<'js>, depth: usize) -> rquickjs::Result<Read> {
        Ok(match v.type_of() {
            Type::Undefined | Type::Symbol => Read::Absent,
            // Left out, unless a `toJSON` (its own or a polluted prototype's) makes it data.
            Type::Function | Type::Constructor => match v.as_object() {
                Some(o) if !self.has_to_json(o)? => Read::Absent,
                _ => Read::NotPlain,
            },
            Type::Null => Read::Json(Value::Null),
            Type::Bool => Read::Json(Value::Bool(v.as_bool().unwrap_or(false))),
            Type::Int => Read::Json(Value::from(v.as_int().unwrap_or(0))),
            Type::Float => Read::Json(number(v.as_float().unwrap_or(f64::NAN))),
            Type::String => match v.as_string().map(|s| s.to_string()) {
                Some(Ok(s)) => Read::Json(Value::String(s)),
                // Lone surrogates: JSON.stringify escapes them, and the engine refuses them.
                _ => Read::NotPlain,
            },
            Type::Object | Type::Array if depth < MAX_DEPTH => match v.as_object() {
                Some(o) => self.object(o, depth)?,
                None => Read::NotPlain,
            },
            _ => Read::NotPlain,
        })
    }

    fn has_to_json(&self, o: &Object<'js>) -> rquickjs::Result<bool> {
        let to_json: rquickjs::Value = o.get(self.to_json.clone())?;
        Ok(to_json.is_function())
    }

    fn object(&self, o: &Object<'js>, depth: usize) -> rquickjs::Result<Read> {
        if self.has_to_json(o)? {
            return Ok(Read::NotPlain);
        }
        // SAFETY: `o` is a live object.
        let class = unsafe { qjs::JS_GetClassID(o.as_raw()) };
        if class == self.array {
            let Some(items) = o.as_array() else {
                return Ok(Read::NotPlain);
            };
            let mut out = Vec::with_capacity(items.len());
            for i in 0..items.len() {
                let item: rquickjs::Value = items.get(i)?;
                match self.value(&item, depth + 1)? {
                    Read::Json(j) => out.push(j),
                    Read::Absent => out.push(Value::Null),
                    Read::NotPlain => return Ok(Read::NotPlain),
                }
            }
            return Ok(Read::Json(Value::Array(out)));
        }
        if class != self.object {
            return Ok(Read::NotPlain);
        }
        let mut out = Map::new();
        for key in o.keys::<Atom>() {
            let key = key?;
            let item: rquickjs::Value = o.get(key.clone())?;
            match self.value(&item, depth + 1)? {
                Read::Json(j) => {
                    out.insert(key.to_string()?, j);
                }
                Read::Absent => {}
                Read::NotPlain => return Ok(Read::NotPlain),
            }
        }
        Ok(Read::Json(Value::Object(out)))
    }
}

/// A JavaScript number as serde_json reads `JSON.stringify`'s text of it: not finite is `null`;
/// an integral value below 1e21 is written as digits (the shortest that read back to it, then
/// zeros), which serde_json reads as an integer when it fits.
fn number(f: f64) -> Value {
    if !f.is_finite() {
        return Value::Null;
    }
    if f.fract() == 0.0 {
        if f.abs() < 9_007_199_254_740_992.0 {
            // Exact below 2^53.
            return Value::from(f as i64);
        }
        if f.abs() < 1e21 {
            // Rust writes the same shortest digits as JavaScript here.
            if let Ok(v) = serde_json::from_str(&format!("{f}")) {
                return v;
            }
        }
    }
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_serde_reads_their_text() {
        for f in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            1.5,
            1e20,
            1e21,
            1.8e19,
            -9.3e18,
            0.1,
            123456789.125,
            18446744073709550000.0,
            9007199254740993.0,
        ] {
            let text = if f == 0.0 { "0".to_owned() } else { js_text(f) };
            let parsed: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(number(f), parsed, "{f} written {text}");
        }
        assert_eq!(number(f64::NAN), Value::Null);
        assert_eq!(number(f64::INFINITY), Value::Null);
    }

    /// How JavaScript writes these numbers (shortest round trip, as Rust's `{}` below 1e21;
    /// exponent from 1e21).
    fn js_text(f: f64) -> String {
        if f.abs() >= 1e21 {
            format!("{f:e}").replace('e', "e+")
        } else {
            format!("{f}")
        }
    }
}
