//! Stored items back into `serde_json::Value`s, cheaper than `serde_json::from_str` builds them.
//!
//! A 25-item query spent three quarters of its instructions building `Value`s (issue 36,
//! BENCHMARKS.md "Single-partition query returning 25 items"), and most of that was not the
//! parse but the containers growing: serde_json's `Value` visitor starts every object's
//! `IndexMap` (the workspace turns on `preserve_order`) and every array empty and lets it grow,
//! reallocating and rehashing as fields arrive. Here each object's entries and each array's
//! items are gathered on a scratch stack reused across the rows of a page, then moved into a
//! container allocated once at its final size. A query page that passes stored items through
//! (`sql/run`, `PageRequest::values`) builds them here on the storage thread, straight from the
//! mapped LMDB page (no copy per row), so the caller's async thread only receives them.
//!
//! The result is the same `Value` serde_json builds, by construction where it is subtle:
//! anything this parser is not sure of — a float, an integer beyond 64 bits, `-0`, a `\u`
//! surrogate, nesting near serde_json's limit, any syntax error — is handed to serde_json
//! (the number's own text, or the whole item), so its answer, or its error, is serde_json's.
//! The tests below and `tests/stored_json.rs` compare both over corpora of shapes.

use serde_json::{Map, Number, Value};

/// Nesting past which the whole item goes to serde_json (its own limit is 128 levels).
const MAX_DEPTH: u32 = 100;

/// Builds `Value`s from JSON texts, reusing its scratch stacks from one text to the next.
#[derive(Default)]
pub struct ValueBuilder {
    /// Entries of the objects being read, innermost last.
    entries: Vec<(String, Value)>,
    /// Items of the arrays being read, innermost last.
    items: Vec<Value>,
}

impl ValueBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// `text` as serde_json's `from_str::<Value>` reads it (the same value or the same error).
    pub fn parse(&mut self, text: &str) -> serde_json::Result<Value> {
        self.entries.clear();
        self.items.clear();
        let mut p = Parser {
            text,
            b: text.as_bytes(),
            i: 0,
            entries: &mut self.entries,
            items: &mut self.items,
        };
        match p.document() {
            Some(v) => Ok(v),
            None => serde_json::from_str(text),
        }
    }
}

struct Parser<'a, 's> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
    entries: &'s mut Vec<(String, Value)>,
    items: &'s mut Vec<Value>,
}

impl Parser<'_, '_> {
    fn document(&mut self) -> Option<Value> {
        let v = self.value(MAX_DEPTH)?;
        self.ws();
        (self.i == self.b.len()).then_some(v)
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn value(&mut self, depth: u32) -> Option<Value> {
        self.ws();
        match *self.b.get(self.i)? {
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b'"' => self.string().map(Value::String),
            b't' => self.literal(b"true", Value::Bool(true)),
            b'f' => self.literal(b"false", Value::Bool(false)),
            b'n' => self.literal(b"null", Value::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8], v: Value) -> Option<Value> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Some(v)
        } else {
            None
        }
    }

    /// The next non-space byte, consumed.
    fn next_token(&mut self) -> Option<u8> {
        self.ws();
        let c = *self.b.get(self.i)?;
        self.i += 1;
        Some(c)
    }

    fn object(&mut self, depth: u32) -> Option<Value> {
        let depth = depth.checked_sub(1)?;
        self.i += 1;
        self.ws();
        if self.b.get(self.i) == Some(&b'}') {
            self.i += 1;
            return Some(Value::Object(Map::new()));
        }
        let start = self.entries.len();
        loop {
            self.ws();
            if self.b.get(self.i) != Some(&b'"') {
                return None;
            }
            let key = self.string()?;
            if self.next_token()? != b':' {
                return None;
            }
            let v = self.value(depth)?;
            self.entries.push((key, v));
            match self.next_token()? {
                b',' => continue,
                b'}' => break,
                _ => return None,
            }
        }
        // Sized once from the exact count (`IndexMap::from_iter` reserves the size hint).
        Some(Value::Object(self.entries.drain(start..).collect()))
    }

    fn array(&mut self, depth: u32) -> Option<Value> {
        let depth = depth.checked_sub(1)?;
        self.i += 1;
        self.ws();
        if self.b.get(self.i) == Some(&b']') {
            self.i += 1;
            return Some(Value::Array(Vec::new()));
        }
        let start = self.items.len();
        loop {
            let v = self.value(depth)?;
            self.items.push(v);
            match self.next_token()? {
                b',' => continue,
                b']' => break,
                _ => return None,
            }
        }
        Some(Value::Array(self.items.drain(start..).collect()))
    }

    /// A string whose opening quote is at `self.i`.
    fn string(&mut self) -> Option<String> {
        self.i += 1;
        let start = self.i;
        self.skip_plain();
        match *self.b.get(self.i)? {
            b'"' => {
                // Whole UTF-8 sequences: the quote is ASCII and the text valid UTF-8.
                let s = self.text[start..self.i].to_owned();
                self.i += 1;
                Some(s)
            }
            b'\\' => self.escaped(start),
            // A control byte: serde_json's error.
            _ => None,
        }
    }

    /// Moves `self.i` to the next `"`, `\\` or control byte (or the end), eight bytes a step:
    /// the strings are most of an item's bytes.
    fn skip_plain(&mut self) {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        while let Some(chunk) = self.b.get(self.i..self.i + 8) {
            let x = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
            let quote = x ^ (ONES * u64::from(b'"'));
            let backslash = x ^ (ONES * u64::from(b'\\'));
            // A byte's high bit is set where it is zero (or below 0x20); bytes above the first
            // such byte may be flagged wrongly, the lowest flagged one never is.
            let found = (quote.wrapping_sub(ONES) & !quote
                | backslash.wrapping_sub(ONES) & !backslash
                | x.wrapping_sub(ONES * 0x20) & !x)
                & HIGH;
            if found != 0 {
                self.i += (found.trailing_zeros() / 8) as usize;
                return;
            }
            self.i += 8;
        }
        while let Some(&c) = self.b.get(self.i) {
            if c == b'"' || c == b'\\' || c < 0x20 {
                return;
            }
            self.i += 1;
        }
    }

    /// The rest of a string from its first escape (at `self.i`; the string began at `start`).
    fn escaped(&mut self, start: usize) -> Option<String> {
        let mut s = String::with_capacity(self.i - start + 16);
        let mut run = start;
        loop {
            self.skip_plain();
            match *self.b.get(self.i)? {
                b'"' => {
                    s.push_str(&self.text[run..self.i]);
                    self.i += 1;
                    return Some(s);
                }
                b'\\' => {
                    s.push_str(&self.text[run..self.i]);
                    let c = match *self.b.get(self.i + 1)? {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let u = self.hex4(self.i + 2)?;
                            // Surrogates (paired or lone) are serde_json's to judge.
                            if (0xD800..0xE000).contains(&u) {
                                return None;
                            }
                            self.i += 4;
                            char::from_u32(u)?
                        }
                        _ => return None,
                    };
                    s.push(c);
                    self.i += 2;
                    run = self.i;
                }
                _ => return None,
            }
        }
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let digits = self.b.get(at..at + 4)?;
        let mut u = 0;
        for &d in digits {
            u = u * 16 + (d as char).to_digit(16)?;
        }
        Some(u)
    }

    /// A number: a plain integer that fits 64 bits here, anything else by serde_json from its
    /// own text (floats, `-0`, integers it turns into floats), so the `Number` is the same.
    fn number(&mut self) -> Option<Value> {
        let start = self.i;
        let negative = self.b[self.i] == b'-';
        if negative {
            self.i += 1;
        }
        let mut magnitude: u64 = 0;
        let mut overflow = false;
        match self.b.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                while let Some(&d @ b'0'..=b'9') = self.b.get(self.i) {
                    match magnitude
                        .checked_mul(10)
                        .and_then(|m| m.checked_add(u64::from(d - b'0')))
                    {
                        Some(m) => magnitude = m,
                        None => overflow = true,
                    }
                    self.i += 1;
                }
            }
            _ => return None,
        }
        let mut integer = !overflow;
        if self.b.get(self.i) == Some(&b'.') {
            integer = false;
            self.i += 1;
            self.digits()?;
        }
        if let Some(b'e' | b'E') = self.b.get(self.i) {
            integer = false;
            self.i += 1;
            if let Some(b'+' | b'-') = self.b.get(self.i) {
                self.i += 1;
            }
            self.digits()?;
        }
        if integer {
            if !negative {
                return Some(Value::Number(Number::from(magnitude)));
            }
            // serde_json: `-0` is a float, below i64::MIN a float.
            if magnitude != 0 && magnitude <= 1 << 63 {
                return Some(Value::Number(Number::from(
                    (magnitude as i64).wrapping_neg(),
                )));
            }
        }
        serde_json::from_str(&self.text[start..self.i]).ok()
    }

    /// One or more digits.
    fn digits(&mut self) -> Option<()> {
        let from = self.i;
        while let Some(b'0'..=b'9') = self.b.get(self.i) {
            self.i += 1;
        }
        (self.i > from).then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The same outcome as serde_json: the same value printed the same way, or the same error.
    fn same_as_serde_json(text: &str) {
        let ours = ValueBuilder::new().parse(text);
        let theirs = serde_json::from_str::<Value>(text);
        match (ours, theirs) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{text}");
                assert_eq!(a.to_string(), b.to_string(), "{text}");
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text}"),
            (a, b) => panic!("{text}: ours {a:?}, serde_json {b:?}"),
        }
    }

    #[test]
    fn every_shape_reads_as_serde_json_reads_it() {
        let deep_ok = format!("{}1{}", "[".repeat(99), "]".repeat(99));
        let deep_limit = format!("{}1{}", "[".repeat(127), "]".repeat(127));
        let too_deep = format!("{}1{}", "[".repeat(128), "]".repeat(128));
        let deep_objects = format!("{}1{}", "{\"a\":".repeat(120), "}".repeat(120));
        for text in [
            "0",
            "-0",
            "-0.0",
            "0.0",
            "1",
            "-1",
            "1.0",
            "1e3",
            "1E-3",
            "-1.5e+300",
            "1e400",
            "-1e400",
            "1e-400",
            "0.1",
            "0.30000000000000004",
            "2.2250738585072014e-308",
            "4.9e-324",
            "1.7976931348623157e308",
            "9007199254740993",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "18446744073709551615",
            "18446744073709551616",
            "123456789012345678901234567890",
            "-123456789012345678901234567890",
            "01",
            "-",
            "1.",
            ".5",
            "1e",
            "+1",
            "--1",
            "1x",
            "true",
            "false",
            "null",
            "tru",
            "nul",
            r#""""#,
            r#""abc""#,
            r#""é 中 😀""#,
            r#""\u00e9\u4e2d""#,
            r#""\ud83d\ude00""#,
            r#""\ud83d""#,
            r#""\ude00""#,
            r#""\ud83dx""#,
            r#""\u0000\u001f""#,
            r#""\"\\\/\b\f\n\r\t""#,
            r#""\x""#,
            r#""\u12""#,
            r#""\uZZZZ""#,
            "\"a\nb\"",
            "\"a\u{7f}b\"",
            r#""unterminated"#,
            "{}",
            "[]",
            "{ }",
            "[ ]",
            " {\"a\" : 1 } ",
            "{\"a\":1,\"a\":2,\"b\":3}",
            "{\"b\":1,\"a\":2}",
            "{\"a\":1,}",
            "[1,]",
            "[1 2]",
            "{\"a\" 1}",
            "{a:1}",
            "{\"a\":1",
            "[1",
            "",
            " ",
            "1 2",
            "[true,false,null]",
            "\t\r\n[\t1\r,\n2 ]\n",
            r#"{"id":"p1","price":12.5,"tags":[{"id":"t1","name":"Tag-1"}],"_ts":1700000000,"_etag":"\"00000001-0000\"","nested":{"a":[1,[2,[3,{"b":null}]]]},"neg":-7,"big":18446744073709551615,"float":-0.0}"#,
            &deep_ok,
            &deep_limit,
            &too_deep,
            &deep_objects,
        ] {
            same_as_serde_json(text);
        }
    }

    #[test]
    fn one_builder_reads_many_texts_and_recovers_from_fallbacks() {
        let mut b = ValueBuilder::new();
        for text in [
            "{\"a\":[1,2",
            "{\"a\":[1,{\"b\":\"\\ud800\"}]}",
            "[{\"x\":1}]",
            "{\"y\":[2]}",
        ] {
            let ours = b
                .parse(text)
                .map(|v| v.to_string())
                .map_err(|e| e.to_string());
            let theirs = serde_json::from_str::<Value>(text)
                .map(|v| v.to_string())
                .map_err(|e| e.to_string());
            assert_eq!(ours, theirs, "{text}");
        }
    }

    fn any_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<u64>().prop_map(|n| Value::Number(n.into())),
            any::<i64>().prop_map(|n| Value::Number(n.into())),
            any::<f64>()
                .prop_filter_map("finite", Number::from_f64)
                .prop_map(Value::Number),
            (-1e6f64..1e6).prop_filter_map("finite", |f| Number::from_f64(f).map(Value::Number)),
            any::<String>().prop_map(Value::String),
            "[ -~\\\\\"\\n\\t\u{0}-\u{1f}é😀]{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(6, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                prop::collection::vec(("[a-z_]{0,6}|\\PC{0,4}", inner), 0..8)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn any_value_written_by_serde_json_reads_back_the_same(v in any_value()) {
            same_as_serde_json(&v.to_string());
            same_as_serde_json(&serde_json::to_string_pretty(&v).unwrap());
        }

        #[test]
        fn any_number_text_reads_as_serde_json_reads_it(
            text in "-?(0|[1-9][0-9]{0,25})(\\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?"
        ) {
            same_as_serde_json(&text);
            same_as_serde_json(&format!("[{text},{{\"n\":{text}}}]"));
        }
    }
}
