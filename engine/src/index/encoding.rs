//! Index values as bytes whose order is Cosmos DB's order of values:
//! `null < false < true < numbers < strings` (undefined is never indexed; arrays and objects are
//! indexed through their leaves).
//!
//! - Numbers: a tag, then the IEEE-754 bits made order-preserving (flip all bits of negatives,
//!   the sign bit of positives); `-0.0` is folded into `0.0`. Every JSON number is a double here,
//!   as in Cosmos DB, so integers beyond 2^53 compare as their nearest doubles.
//! - Strings: a tag, the UTF-8 bytes with `0x00` escaped as `00 FF`, then the terminator `00 01`,
//!   so a string sorts before every longer string it prefixes. Cosmos DB compares strings by
//!   UTF-16 code units, which differs from UTF-8 byte order only between U+E000–U+FFFF and the
//!   supplementary planes: the lead bytes `EE`/`EF` are mapped to `F5`/`F6` (never valid UTF-8) so
//!   the byte order *is* the UTF-16 order.
//! - Long strings are cut at `MAX_STRING_BYTES` and marked (terminator `00 02`), so LMDB's
//!   511-byte keys always fit; a match on a cut value is re-checked against the document.

use serde_json::Value;

pub const TAG_NULL: u8 = 0x01;
pub const TAG_FALSE: u8 = 0x02;
pub const TAG_TRUE: u8 = 0x03;
pub const TAG_NUMBER: u8 = 0x04;
pub const TAG_STRING: u8 = 0x05;

/// Longest string prefix kept in an index key.
pub const MAX_STRING_BYTES: usize = 200;

/// The order-preserving encoding of a scalar; `None` for arrays and objects.
#[cfg(test)]
pub fn encode(v: &Value) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    encode_into(v, &mut out).then_some(out)
}

pub fn encode_into(v: &Value, out: &mut Vec<u8>) -> bool {
    match v {
        Value::Null => out.push(TAG_NULL),
        Value::Bool(false) => out.push(TAG_FALSE),
        Value::Bool(true) => out.push(TAG_TRUE),
        Value::Number(n) => {
            out.push(TAG_NUMBER);
            out.extend_from_slice(&number_bytes(n.as_f64().unwrap_or(f64::NAN)));
        }
        Value::String(s) => {
            out.push(TAG_STRING);
            string_bytes(s, out);
        }
        Value::Array(_) | Value::Object(_) => return false,
    }
    true
}

pub fn number_bytes(f: f64) -> [u8; 8] {
    let f = if f == 0.0 { 0.0 } else { f };
    let bits = f.to_bits();
    let ordered = if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    };
    ordered.to_be_bytes()
}

fn string_bytes(s: &str, out: &mut Vec<u8>) {
    let bytes = s.as_bytes();
    let cut = bytes.len() > MAX_STRING_BYTES;
    for &b in &bytes[..bytes.len().min(MAX_STRING_BYTES)] {
        match b {
            0x00 => out.extend_from_slice(&[0x00, 0xFF]),
            0xEE => out.push(0xF5),
            0xEF => out.push(0xF6),
            b => out.push(b),
        }
    }
    out.extend_from_slice(if cut { &[0x00, 0x02] } else { &[0x00, 0x01] });
}

/// Whether an encoded value was cut (its document must be re-checked on a match).
#[cfg(test)]
pub fn is_cut(encoded: &[u8]) -> bool {
    encoded.first() == Some(&TAG_STRING) && encoded.ends_with(&[0x00, 0x02])
}

/// Encoded bytes of a string prefix, without terminator: keys starting with them are exactly the
/// strings starting with `prefix` (for `STARTSWITH`).
pub fn string_prefix(prefix: &str) -> Vec<u8> {
    let mut out = vec![TAG_STRING];
    string_bytes(prefix, &mut out);
    out.truncate(out.len() - 2);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn utf16_cmp(a: &str, b: &str) -> std::cmp::Ordering {
        a.encode_utf16().cmp(b.encode_utf16())
    }

    #[test]
    fn byte_order_is_cosmos_order() {
        let ordered = [
            json!(null),
            json!(false),
            json!(true),
            json!(f64::MIN),
            json!(-1e300),
            json!(-2),
            json!(-0.5),
            json!(0),
            json!(1e-300),
            json!(0.5),
            json!(1),
            json!(9_007_199_254_740_993u64),
            json!(1e300),
            json!(""),
            json!("\u{0}"),
            json!("a"),
            json!("a\u{0}"),
            json!("ab"),
            json!("b"),
        ];
        for w in ordered.windows(2) {
            assert!(
                encode(&w[0]).unwrap() < encode(&w[1]).unwrap(),
                "{} < {}",
                w[0],
                w[1]
            );
        }
        assert_eq!(encode(&json!(-0.0)), encode(&json!(0)));
        assert_eq!(encode(&json!(1)), encode(&json!(1.0)));
        assert!(encode(&json!([1])).is_none());
    }

    #[test]
    fn strings_sort_by_utf16_code_units() {
        let samples = [
            "a",
            "z",
            "é",
            "中",
            "\u{E000}",
            "\u{FFFD}",
            "😀",
            "𝄞",
            "\u{D7FF}",
            "ab😀",
            "ab\u{FFFF}",
        ];
        for a in samples {
            for b in samples {
                let (ea, eb) = (encode(&json!(a)).unwrap(), encode(&json!(b)).unwrap());
                assert_eq!(ea.cmp(&eb), utf16_cmp(a, b), "{a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn prefixes_and_cut_strings() {
        let p = string_prefix("ab");
        assert!(encode(&json!("abc")).unwrap().starts_with(&p));
        assert!(encode(&json!("ab")).unwrap().starts_with(&p));
        assert!(!encode(&json!("a")).unwrap().starts_with(&p));
        let long = "x".repeat(500);
        let e = encode(&json!(long)).unwrap();
        assert!(is_cut(&e) && e.len() < 210);
        assert!(!is_cut(&encode(&json!("short")).unwrap()));
    }
}
