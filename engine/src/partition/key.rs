//! Partition key values and their effective partition key (EPK).
//!
//! The EPK is a 128-bit hash of the canonical encoding of the value. Its first 64 bits are the
//! coordinate that physical partitions divide into ranges; all 128 bits prefix the item keys, so a
//! logical partition is one contiguous run of keys and two values that share 64 bits still never
//! mix their items.

use serde_json::Value;
use std::fmt;

use crate::error::{Error, Result};

/// Largest integer a double holds exactly (2^53). Cosmos DB hashes numbers as doubles, so beyond
/// this two different integers would land in the same logical partition.
pub const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_992.0;

/// Cosmos DB's limit on a partition key value (bytes of its string form).
pub const MAX_PARTITION_KEY_BYTES: usize = 2048;

/// A partition key value. `None` is Cosmos DB's `PartitionKey.None`: the item lacks the property.
#[derive(Debug, Clone, PartialEq)]
pub enum PartitionKey {
    String(String),
    Number(f64),
    Bool(bool),
    Null,
    None,
}

impl PartitionKey {
    /// Validates a JSON value as a partition key value (`field` names it in errors).
    pub fn from_json(value: &Value, field: &str) -> Result<Self> {
        match value {
            Value::String(s) => {
                if s.len() > MAX_PARTITION_KEY_BYTES {
                    return Err(Error::bad(
                        field,
                        format!(
                            "partition key value is {} bytes; the limit is {MAX_PARTITION_KEY_BYTES}",
                            s.len()
                        ),
                    ));
                }
                Ok(PartitionKey::String(s.clone()))
            }
            Value::Number(n) => {
                let exact_int = n.as_i64().map(|i| i.unsigned_abs()).or(n.as_u64());
                if let Some(i) = exact_int {
                    if i > MAX_SAFE_INTEGER as u64 {
                        return Err(unsafe_number(field, &n.to_string()));
                    }
                }
                let f = n.as_f64().ok_or_else(|| unsafe_number(field, &n.to_string()))?;
                if !f.is_finite() || (f.fract() == 0.0 && f.abs() > MAX_SAFE_INTEGER) {
                    return Err(unsafe_number(field, &n.to_string()));
                }
                Ok(PartitionKey::Number(f))
            }
            Value::Bool(b) => Ok(PartitionKey::Bool(*b)),
            Value::Null => Ok(PartitionKey::Null),
            Value::Array(_) | Value::Object(_) => Err(Error::bad(
                field,
                "partition key value must be a string, number, boolean or null, not an array or object",
            )),
        }
    }

    /// The value as JSON (`None` has no JSON form and gives `None`).
    pub fn to_json(&self) -> Option<Value> {
        Some(match self {
            PartitionKey::String(s) => Value::String(s.clone()),
            PartitionKey::Number(n) => serde_json::Number::from_f64(*n)
                .map(|x| {
                    // Keep integers integral so `/customerId = 7` round-trips as 7, not 7.0.
                    if n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER {
                        Value::from(*n as i64)
                    } else {
                        Value::Number(x)
                    }
                })
                .unwrap_or(Value::Null),
            PartitionKey::Bool(b) => Value::Bool(*b),
            PartitionKey::Null => Value::Null,
            PartitionKey::None => return None,
        })
    }

    /// Canonical bytes: a type tag, then the value. Numbers hash as doubles so 1 and 1.0 agree.
    fn canonical_bytes(&self) -> Vec<u8> {
        match self {
            PartitionKey::None => vec![0x00],
            PartitionKey::Null => vec![0x01],
            PartitionKey::Bool(false) => vec![0x02],
            PartitionKey::Bool(true) => vec![0x03],
            PartitionKey::Number(n) => {
                let n = if *n == 0.0 { 0.0 } else { *n }; // -0.0 and 0.0 are one partition
                let mut v = vec![0x05];
                v.extend_from_slice(&n.to_bits().to_be_bytes());
                v
            }
            PartitionKey::String(s) => {
                let mut v = Vec::with_capacity(s.len() + 1);
                v.push(0x08);
                v.extend_from_slice(s.as_bytes());
                v
            }
        }
    }

    pub fn epk(&self) -> Epk {
        Epk(xxhash_rust::xxh3::xxh3_128(&self.canonical_bytes()).to_be_bytes())
    }
}

fn unsafe_number(field: &str, n: &str) -> Error {
    Error::bad(
        field,
        format!(
            "partition key value {n} is outside the range of integers a double represents exactly \
             (±2^53); two such numbers could share a partition. Store it as a string instead"
        ),
    )
}

impl fmt::Display for PartitionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_json() {
            Some(v) => write!(f, "{v}"),
            None => f.write_str("None"),
        }
    }
}

impl From<&str> for PartitionKey {
    fn from(s: &str) -> Self {
        PartitionKey::String(s.to_owned())
    }
}
impl From<String> for PartitionKey {
    fn from(s: String) -> Self {
        PartitionKey::String(s)
    }
}
impl From<&String> for PartitionKey {
    fn from(s: &String) -> Self {
        PartitionKey::String(s.clone())
    }
}
impl From<bool> for PartitionKey {
    fn from(b: bool) -> Self {
        PartitionKey::Bool(b)
    }
}
impl From<f64> for PartitionKey {
    fn from(n: f64) -> Self {
        PartitionKey::Number(n)
    }
}
impl From<i64> for PartitionKey {
    fn from(n: i64) -> Self {
        PartitionKey::Number(n as f64)
    }
}
impl From<i32> for PartitionKey {
    fn from(n: i32) -> Self {
        PartitionKey::Number(n as f64)
    }
}

/// Effective partition key: 16 bytes, big-endian, ordered as keys are ordered in LMDB.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Epk(pub [u8; 16]);

impl Epk {
    /// The coordinate physical partition ranges are expressed in.
    pub fn coordinate(&self) -> u64 {
        u64::from_be_bytes(self.0[..8].try_into().expect("16 bytes"))
    }
}

/// A container's partition key definition: one JSON path such as `/customerId` or `/address/city`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PartitionKeyDefinition {
    pub paths: Vec<String>,
    #[serde(default = "hash_kind")]
    pub kind: String,
    #[serde(default = "version_two")]
    pub version: u8,
}

fn hash_kind() -> String {
    "Hash".into()
}
fn version_two() -> u8 {
    2
}

impl PartitionKeyDefinition {
    pub fn new(path: &str) -> Result<Self> {
        let def = PartitionKeyDefinition {
            paths: vec![path.to_owned()],
            kind: hash_kind(),
            version: 2,
        };
        def.segments()?;
        Ok(def)
    }

    fn path(&self) -> &str {
        &self.paths[0]
    }

    /// `/address/city` → `["address", "city"]`; `~1` and `~0` unescape `/` and `~` as in JSON Pointer.
    pub fn segments(&self) -> Result<Vec<String>> {
        if self.paths.len() != 1 {
            return Err(Error::bad(
                "partitionKey.paths",
                "exactly one partition key path is supported",
            ));
        }
        let path = self.path();
        let rest = path
            .strip_prefix('/')
            .filter(|r| !r.is_empty())
            .ok_or_else(|| {
                Error::bad(
                    "partitionKey.paths",
                    format!("partition key path '{path}' must look like /property"),
                )
            })?;
        rest.split('/')
            .map(|seg| {
                if seg.is_empty() {
                    Err(Error::bad(
                        "partitionKey.paths",
                        format!("empty segment in partition key path '{path}'"),
                    ))
                } else {
                    Ok(seg.replace("~1", "/").replace("~0", "~"))
                }
            })
            .collect()
    }

    /// The partition key value of a document: `PartitionKey::None` when the property is missing.
    pub fn extract(&self, doc: &Value) -> Result<PartitionKey> {
        let mut cur = doc;
        for seg in self.segments()? {
            match cur.get(&seg) {
                Some(v) => cur = v,
                None => return Ok(PartitionKey::None),
            }
        }
        PartitionKey::from_json(cur, self.path())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_hash_as_doubles() {
        let a = PartitionKey::from_json(&json!(1), "pk").unwrap();
        let b = PartitionKey::from_json(&json!(1.0), "pk").unwrap();
        assert_eq!(a.epk(), b.epk());
        assert_ne!(a.epk(), PartitionKey::from("1").epk());
        assert_ne!(PartitionKey::Null.epk(), PartitionKey::None.epk());
    }

    #[test]
    fn unsafe_integers_are_rejected_with_a_reason() {
        let err = PartitionKey::from_json(&json!(9_007_199_254_740_993u64), "/id").unwrap_err();
        assert!(err.to_string().contains("2^53"), "{err}");
        assert!(PartitionKey::from_json(&json!(9_007_199_254_740_992u64), "/id").is_ok());
        assert!(PartitionKey::from_json(&json!(-9_007_199_254_740_993i64), "/id").is_err());
        assert!(PartitionKey::from_json(&json!(1e300), "/id").is_err());
        assert!(PartitionKey::from_json(&json!(0.5), "/id").is_ok());
    }

    #[test]
    fn nested_paths_and_missing_properties() {
        let def = PartitionKeyDefinition::new("/address/city").unwrap();
        assert_eq!(
            def.extract(&json!({"address": {"city": "Oslo"}})).unwrap(),
            PartitionKey::from("Oslo")
        );
        assert_eq!(
            def.extract(&json!({"id": "x"})).unwrap(),
            PartitionKey::None
        );
        assert!(def.extract(&json!({"address": {"city": [1]}})).is_err());
        assert!(PartitionKeyDefinition::new("customerId").is_err());
        assert!(PartitionKeyDefinition::new("/a//b").is_err());
    }
}
