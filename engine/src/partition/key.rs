//! Partition key values and their effective partition key (EPK).
//!
//! The EPK is 16 bytes derived from the key's values. Its first 64 bits are the coordinate that
//! physical partitions divide into ranges; all 128 bits prefix the item keys, so a logical
//! partition is one contiguous run of keys and two values that share 64 bits still never mix
//! their items.
//!
//! Containers place keys by Cosmos DB's own hash ([`Placement::Cosmos`]): a plain key's EPK is its
//! Cosmos EPK shifted left two bits (Cosmos leaves the top two clear), so a physical partition
//! starting at coordinate `c` starts at the Cosmos EPK `c << 62`, and the ranges the gateway
//! shows are the ranges an SDK computes. Data files from before keep the engine's xxh3
//! ([`Placement::Engine`]).
//!
//! A hierarchical (MultiHash) key of two or three values builds its coordinate from a hash of
//! each value in turn (4+4 or 3+3+2 bytes), so every key that shares a prefix lies in one
//! contiguous coordinate range: a query on a prefix visits only the physical partitions that
//! range overlaps, and one tenant can still grow across many partitions, split along its
//! users. The last 64 bits hash the whole key: they keep two full keys apart.

use serde_json::Value;
use std::fmt;

use super::hash::{hash_bytes, hex};
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
    /// A hierarchical (MultiHash) key: one value per path, in the paths' order. Fewer values
    /// than paths is a prefix, which queries and the change feed take (point operations need
    /// them all). Never nested.
    Hierarchical(Vec<PartitionKey>),
}

/// Cosmos DB's limit on the paths of a hierarchical partition key.
pub const MAX_HIERARCHY: usize = 3;

impl PartitionKey {
    /// A hierarchical key (or prefix) of 1-3 values: `["contoso", "alice"]`. `{}` is an absent
    /// property (Cosmos DB's Undefined), `null` a stored null.
    pub fn from_json_values(values: &[Value], field: &str) -> Result<Self> {
        if values.is_empty() || values.len() > MAX_HIERARCHY {
            return Err(Error::bad(
                field,
                format!(
                    "a hierarchical partition key has 1 to {MAX_HIERARCHY} values, got {}",
                    values.len()
                ),
            ));
        }
        let parts = values
            .iter()
            .map(|v| match v {
                Value::Object(o) if o.is_empty() => Ok(PartitionKey::None),
                v => PartitionKey::from_json(v, field),
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(PartitionKey::Hierarchical(parts))
    }

    /// A key as people type it (the CLI's `--pk`, the explorer's field): JSON when the text
    /// parses as JSON (`5`, `true`, `null`, `"5"`, `["contoso","alice"]` for a hierarchical key),
    /// else the text itself as a string.
    pub fn from_text(raw: &str, field: &str) -> Result<Self> {
        match serde_json::from_str::<Value>(raw) {
            Ok(Value::Array(values)) => Self::from_json_values(&values, field),
            Ok(v) => Self::from_json(&v, field),
            Err(_) => Ok(PartitionKey::String(raw.to_owned())),
        }
    }

    /// Cosmos DB's EPK of this key (hex), as the SDKs compute it: see `cosmos.rs`.
    pub fn cosmos_epk(&self) -> String {
        epk(self)
    }

    /// The values of a hierarchical key (a plain key is its own single value).
    pub fn components(&self) -> &[PartitionKey] {
        match self {
            PartitionKey::Hierarchical(parts) => parts,
            one => std::slice::from_ref(one),
        }
    }

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
                Ok(PartitionKey::from(f))
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
            // An absent component is `{}`, as the SDKs write `PartitionKey.None` in an array.
            PartitionKey::Hierarchical(parts) => Value::Array(
                parts
                    .iter()
                    .map(|p| {
                        p.to_json()
                            .unwrap_or_else(|| Value::Object(Default::default()))
                    })
                    .collect(),
            ),
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
            PartitionKey::Hierarchical(parts) => {
                let mut v = vec![0x10];
                for p in parts {
                    let b = p.canonical_bytes();
                    v.extend_from_slice(&(b.len() as u32).to_be_bytes());
                    v.extend_from_slice(&b);
                }
                v
            }
        }
    }

    /// The EPK of a full key under the engine's own placement (see [`Placement::Engine`]).
    fn engine_epk(&self) -> Epk {
        match self {
            PartitionKey::Hierarchical(parts) if parts.len() > 1 => {
                Epk::hierarchical(Placement::Engine, parts, &self.canonical_bytes())
            }
            PartitionKey::Hierarchical(parts) if parts.len() == 1 => parts[0].engine_epk(),
            one => Epk(xxhash_rust::xxh3::xxh3_128(&one.canonical_bytes()).to_be_bytes()),
        }
    }
}

/// How a container turns partition key values into EPK coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Placement {
    /// The engine's xxh3 of each value: containers made before Cosmos placement (their items
    /// are keyed by it). The gateway shows such a container as one partition key range.
    #[default]
    Engine,
    /// Cosmos DB's hash v2 (MurmurHash3, `cosmos.rs`): every physical partition is a range
    /// of Cosmos EPKs, the partition key ranges the gateway shows.
    Cosmos,
}

impl Placement {
    /// The 64 bits of one value that its level of the coordinate is cut from.
    fn value_bits(self, value: &PartitionKey) -> u64 {
        match self {
            Placement::Engine => xxhash_rust::xxh3::xxh3_64(&value.canonical_bytes()),
            Placement::Cosmos => (value_hash(value) >> 62) as u64,
        }
    }
}

/// Bytes of the coordinate each value of a `levels`-deep hierarchical key fills, in order.
fn level_widths(levels: usize) -> &'static [usize] {
    match levels {
        2 => &[4, 4],
        3 => &[3, 3, 2],
        _ => &[8],
    }
}

/// The coordinate of the values `parts` (a full key or a prefix) of a `levels`-deep key, with the
/// bytes of the missing values zero: the lowest coordinate of the prefix's range.
fn hierarchy_coordinate(placement: Placement, parts: &[PartitionKey], levels: usize) -> u64 {
    let mut c = [0u8; 8];
    let mut at = 0;
    for (part, &w) in parts.iter().zip(level_widths(levels)) {
        let h = placement.value_bits(part).to_be_bytes();
        c[at..at + w].copy_from_slice(&h[..w]);
        at += w;
    }
    u64::from_be_bytes(c)
}

/// Bits of the coordinate that the first `depth` levels of a `levels`-deep key fill.
pub(crate) fn level_bits(levels: usize, depth: usize) -> u32 {
    level_widths(levels).iter().take(depth).sum::<usize>() as u32 * 8
}

/// The coordinate bits after the first `kept`, all set: the rest of the share the first
/// `kept` bits name.
pub(crate) fn below(kept: u32) -> u64 {
    u64::MAX.checked_shr(kept).unwrap_or(0)
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
        // `-0.0 = 0` is true in Cosmos DB: one value, one logical partition.
        PartitionKey::Number(if n == 0.0 { 0.0 } else { n })
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

/// Hashing lives here; the type is storage's (the bytes every key is ordered by).
pub use crate::storage::keys::Epk;

impl Epk {
    /// A full hierarchical key: its levels' coordinate, then a hash of the whole key.
    fn hierarchical(placement: Placement, parts: &[PartitionKey], canonical: &[u8]) -> Epk {
        let mut e = [0u8; 16];
        e[..8].copy_from_slice(&hierarchy_coordinate(placement, parts, parts.len()).to_be_bytes());
        e[8..].copy_from_slice(&xxhash_rust::xxh3::xxh3_64(canonical).to_be_bytes());
        Epk(e)
    }
}

/// A container's partition key definition: one JSON path such as `/customerId` or `/address/city`
/// (kind `Hash`), or two or three (kind `MultiHash`, a hierarchical key: `/tenantId`, `/userId`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PartitionKeyDefinition {
    pub paths: Vec<String>,
    #[serde(default = "hash_kind")]
    pub kind: String,
    #[serde(default = "version_two")]
    pub version: u8,
    /// How values become coordinates; absent in catalogs written before Cosmos placement.
    #[serde(default)]
    pub placement: Placement,
}

fn hash_kind() -> String {
    "Hash".into()
}
fn version_two() -> u8 {
    2
}

impl PartitionKeyDefinition {
    /// One path (`/pk`), or up to three separated by commas (`/tenantId,/userId,/sessionId`)
    /// for a hierarchical key.
    pub fn new(paths: &str) -> Result<Self> {
        let paths: Vec<String> = paths.split(',').map(|p| p.trim().to_owned()).collect();
        if paths.len() > MAX_HIERARCHY {
            return Err(Error::bad(
                "partitionKey.paths",
                format!(
                    "a hierarchical partition key has at most {MAX_HIERARCHY} paths, got {}",
                    paths.len()
                ),
            ));
        }
        let def = PartitionKeyDefinition {
            kind: if paths.len() > 1 { "MultiHash" } else { "Hash" }.into(),
            paths,
            version: 2,
            placement: Placement::Cosmos,
        };
        def.all_segments()?;
        if let Some(dup) = def
            .paths
            .iter()
            .enumerate()
            .find_map(|(i, p)| def.paths[..i].contains(p).then_some(p))
        {
            return Err(Error::bad(
                "partitionKey.paths",
                format!("the partition key path '{dup}' is given twice"),
            ));
        }
        Ok(def)
    }

    /// The same key hashed as `version` says: 2 (the default, and the only one a hierarchical
    /// key has) or 1, Cosmos DB's hash before large partition keys (`v1.rs`). As the service,
    /// any other version is refused.
    pub fn with_version(mut self, version: u8) -> Result<Self> {
        match version {
            2 => {}
            1 if self.is_hierarchical() => {
                return Err(Error::bad(
                    "partitionKey.version",
                    "a hierarchical (MultiHash) partition key needs version 2",
                ))
            }
            1 => {}
            v => {
                return Err(Error::bad(
                    "partitionKey.version",
                    format!("partition key version {v} is not 1 or 2"),
                ))
            }
        }
        self.version = version;
        Ok(self)
    }

    /// Whether keys are placed by Cosmos DB's hash v1 (a plain key of version 1).
    pub(crate) fn is_v1(&self) -> bool {
        self.placement == Placement::Cosmos && self.version == 1 && !self.is_hierarchical()
    }

    /// Whether a stored item key holds its item's whole Cosmos EPK (`cosmos_epk_of`): a plain
    /// key placed by hash v2. Elsewhere the EPK is computed from the item's key value.
    pub fn keys_hold_cosmos_epk(&self) -> bool {
        self.placement == Placement::Cosmos && !self.is_hierarchical() && !self.is_v1()
    }

    /// Cosmos DB's EPK (hex) of a key of this container, as the SDKs compute it for its
    /// version: hash v2 (`cosmos.rs`), or hash v1 (`v1.rs`).
    pub fn cosmos_epk(&self, key: &PartitionKey) -> String {
        if self.is_v1() {
            super::v1::epk(key)
        } else {
            epk(key)
        }
    }

    /// Whether the key is hierarchical (more than one path).
    pub fn is_hierarchical(&self) -> bool {
        self.paths.len() > 1
    }

    /// The segments of the single path of a `Hash` key: `/address/city` → `["address", "city"]`.
    pub fn segments(&self) -> Result<Vec<String>> {
        if self.paths.len() != 1 {
            return Err(Error::bad(
                "partitionKey.paths",
                "this operation needs a partition key of one path",
            ));
        }
        path_segments(&self.paths[0])
    }

    /// The segments of every path, in order.
    pub fn all_segments(&self) -> Result<Vec<Vec<String>>> {
        if self.paths.is_empty() {
            return Err(Error::bad(
                "partitionKey.paths",
                "a partition key needs a path",
            ));
        }
        self.paths.iter().map(|p| path_segments(p)).collect()
    }

    /// The partition key value of a document: `PartitionKey::None` where a property is missing;
    /// a hierarchical key has one value per path.
    pub fn extract(&self, doc: &Value) -> Result<PartitionKey> {
        let mut parts = Vec::with_capacity(self.paths.len());
        for (path, segments) in self.paths.iter().zip(self.all_segments()?) {
            let mut cur = Some(doc);
            for seg in &segments {
                cur = cur.and_then(|c| c.get(seg));
            }
            parts.push(match cur {
                // An object where the key should be is no key value: the item is in the
                // partition of items without one, as the SDKs extract it (`[{}]`; the Python
                // SDK's `_retrieve_partition_key`). An array stays refused: no SDK sends one.
                Some(Value::Object(_)) | None => PartitionKey::None,
                Some(v) => PartitionKey::from_json(v, path)?,
            });
        }
        Ok(if parts.len() == 1 {
            parts.pop().expect("one part")
        } else {
            PartitionKey::Hierarchical(parts)
        })
    }

    /// A key a point operation names: all the values of a hierarchical key (a one-value array
    /// of a plain key is its value). A prefix or a key of the other shape is a 400.
    pub fn full_key(&self, pk: PartitionKey) -> Result<PartitionKey> {
        let levels = self.paths.len();
        match pk {
            PartitionKey::Hierarchical(mut parts) if levels == 1 && parts.len() == 1 => {
                Ok(parts.pop().expect("one part"))
            }
            PartitionKey::Hierarchical(parts) if parts.len() == levels && levels > 1 => {
                Ok(PartitionKey::Hierarchical(parts))
            }
            PartitionKey::Hierarchical(parts) => Err(not_whole(&self.paths, parts.len())),
            one if levels == 1 => Ok(one),
            _ => Err(not_whole(&self.paths, 1)),
        }
    }

    /// A key a query or change feed names: a full key, or for a hierarchical key a prefix of
    /// its first values (`Some(prefix)`, `full == false`).
    pub fn key_or_prefix(&self, pk: PartitionKey) -> Result<(PartitionKey, bool)> {
        let levels = self.paths.len();
        match pk {
            PartitionKey::Hierarchical(parts) if levels > 1 && parts.len() < levels => {
                Ok((PartitionKey::Hierarchical(parts), false))
            }
            PartitionKey::Hierarchical(parts) if parts.len() > levels => {
                Err(wrong_values(&self.paths, parts.len()))
            }
            one if levels > 1 && !matches!(one, PartitionKey::Hierarchical(_)) => {
                Ok((PartitionKey::Hierarchical(vec![one]), false))
            }
            pk => Ok((self.full_key(pk)?, true)),
        }
    }

    /// What a query or change feed naming `pk` is confined to: one logical partition, or the
    /// coordinate range of a hierarchical prefix.
    pub(crate) fn scope(&self, pk: &PartitionKey) -> Result<KeyScope> {
        Ok(match self.key_or_prefix(pk.clone())? {
            (key, true) => KeyScope::Full(self.epk(&key)),
            (prefix, false) => {
                let (lo, hi) = self.prefix_range(&prefix);
                KeyScope::Prefix { prefix, lo, hi }
            }
        })
    }

    /// The EPK of a full key (as [`Self::full_key`] returns it). A one-value hierarchical key is
    /// placed as the plain value is.
    pub(crate) fn epk(&self, key: &PartitionKey) -> Epk {
        match (self.placement, key) {
            (Placement::Engine, key) => key.engine_epk(),
            // Hash v1: the 32-bit hash leads (Cosmos orders V1 EPKs by it, `v1.rs`); the rest
            // keeps two keys of one hash apart.
            (Placement::Cosmos, key) if self.is_v1() => {
                let key = match key {
                    PartitionKey::Hierarchical(parts) if parts.len() == 1 => &parts[0],
                    key => key,
                };
                let mut e = [0u8; 16];
                e[..4].copy_from_slice(&super::v1::hash(key).to_be_bytes());
                e[8..].copy_from_slice(
                    &xxhash_rust::xxh3::xxh3_64(&key.canonical_bytes()).to_be_bytes(),
                );
                Epk(e)
            }
            (_, PartitionKey::Hierarchical(parts)) if parts.len() > 1 => {
                Epk::hierarchical(self.placement, parts, &key.canonical_bytes())
            }
            (_, PartitionKey::Hierarchical(parts)) if parts.len() == 1 => self.epk(&parts[0]),
            (Placement::Cosmos, one) => Epk((value_hash(one) << 2).to_be_bytes()),
        }
    }

    /// The Cosmos EPK (hex) of the item stored under `epk`, read back from the EPK itself: a
    /// plain key placed by Cosmos's hash keeps all of it (shifted two bits). `None` where the
    /// EPK does not say (a hierarchical key, the engine's own placement): hash the item's key.
    pub(crate) fn cosmos_epk_of(&self, epk: &Epk) -> Option<String> {
        (self.placement == Placement::Cosmos && !self.is_hierarchical() && !self.is_v1())
            .then(|| hex(u128::from_be_bytes(epk.0) >> 2))
    }

    /// Bits of the coordinate a physical partition's start is aligned to unless a split says
    /// where it starts in Cosmos terms (`PhysicalPartition::cosmos_start`): a hierarchical key
    /// placed by Cosmos's hash aligns to its first level, whose bits alone map to a Cosmos EPK.
    pub(crate) fn aligned_bits(&self) -> u32 {
        match self.placement {
            // A V1 EPK that is a number alone is where a hash's keys start (`v1.rs`).
            Placement::Cosmos if self.is_v1() => 32,
            Placement::Cosmos => level_bits(self.paths.len(), 1),
            Placement::Engine => 64,
        }
    }

    /// The coordinates, inclusive, of every key that starts with `prefix` (its values, fewer
    /// than the paths): where a prefix query and a prefix change feed look.
    pub fn prefix_range(&self, prefix: &PartitionKey) -> (u64, u64) {
        let parts = prefix.components();
        let levels = self.paths.len();
        let lo = hierarchy_coordinate(self.placement, parts, levels);
        (lo, lo | below(level_bits(levels, parts.len())))
    }
}

/// Where the items of a partition key (or a hierarchical prefix) lie.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum KeyScope {
    /// One logical partition.
    Full(Epk),
    /// Every logical partition whose key starts with `prefix`: the coordinates `lo..=hi`, which
    /// other prefixes may share (their items are told apart by value).
    Prefix {
        prefix: PartitionKey,
        lo: u64,
        hi: u64,
    },
}

impl KeyScope {
    /// The inclusive coordinate range.
    pub fn coordinates(&self) -> (u64, u64) {
        match self {
            KeyScope::Full(e) => (e.coordinate(), e.coordinate()),
            KeyScope::Prefix { lo, hi, .. } => (*lo, *hi),
        }
    }
}

/// A point operation naming fewer (or more) values than the key has paths: Cosmos DB's
/// `PartitionKeyMismatch` (400 / 1001), as for a value that is not the item's.
fn not_whole(paths: &[String], got: usize) -> Error {
    match wrong_values(paths, got) {
        Error::BadRequest { message, .. } => Error::PartitionKeyMismatch(message),
        other => other,
    }
}

fn wrong_values(paths: &[String], got: usize) -> Error {
    Error::bad(
        "partitionKey",
        format!(
            "the container's partition key has {} path{} ({}): give {} value{}, got {got}",
            paths.len(),
            if paths.len() == 1 { "" } else { "s" },
            paths.join(", "),
            paths.len(),
            if paths.len() == 1 { "" } else { "s" },
        ),
    )
}

/// `/address/city` → `["address", "city"]`; `~1` and `~0` unescape `/` and `~` as in JSON Pointer.
/// The property names of a partition key path, parsed as the SDKs parse it (`ParsePaths` in
/// the Python SDK's `_base.py`): `/a/b`, or segments in double or single quotes that may hold
/// `/` and spaces (`/"le/vel 1"/'x'`; a quote preceded by `\` does not close the segment). An
/// unquoted segment also takes `~1` for `/` and `~0` for `~`, as JSON Pointer writes them.
fn path_segments(path: &str) -> Result<Vec<String>> {
    let bad = |why: String| Error::bad("partitionKey.paths", why);
    if path.len() < 2 || !path.starts_with('/') {
        return Err(bad(format!(
            "partition key path '{path}' must look like /property"
        )));
    }
    let mut segments = Vec::new();
    let mut rest = path;
    while let Some(after) = rest.strip_prefix('/') {
        let (segment, next) = match after.chars().next() {
            Some(quote @ ('"' | '\'')) => {
                let body = &after[1..];
                let mut from = 0;
                let end = loop {
                    let at = body[from..].find(quote).map(|k| from + k).ok_or_else(|| {
                        bad(format!(
                            "partition key path '{path}': a segment opened with {quote} is not closed"
                        ))
                    })?;
                    if !body[..at].ends_with('\\') {
                        break at;
                    }
                    from = at + 1;
                };
                (body[..end].to_owned(), &body[end + 1..])
            }
            _ => {
                let end = after.find('/').unwrap_or(after.len());
                let raw = &after[..end];
                (raw.replace("~1", "/").replace("~0", "~"), &after[end..])
            }
        };
        if segment.is_empty() {
            return Err(bad(format!("empty segment in partition key path '{path}'")));
        }
        if !next.is_empty() && !next.starts_with('/') {
            return Err(bad(format!(
                "partition key path '{path}': a quoted segment must be followed by / or end the path"
            )));
        }
        segments.push(segment);
        rest = next;
    }
    Ok(segments)
}

// Cosmos DB's EPK (`cosmos.rs` describes it): the value's binary form, hashed by `hash.rs`.

/// The EPK of a partition key value (upper-case hex, `"271119C968E6C80F..."`).
pub fn epk(pk: &PartitionKey) -> String {
    pk.components()
        .iter()
        .map(|part| hex(value_hash(part)))
        .collect()
}

/// The 128-bit hash of one value (not a hierarchical key), its top two bits clear: the 16
/// bytes of its EPK as a number, so EPK order is numeric order.
pub fn value_hash(pk: &PartitionKey) -> u128 {
    let mut bytes = Vec::new();
    match pk {
        // A hierarchical key's values are hashed one by one (`epk`); nested is not a value.
        PartitionKey::Hierarchical(parts) => return parts.first().map_or(0, value_hash),
        // A missing property (Undefined) hashes as its own marker, as in the SDKs.
        PartitionKey::None => bytes.push(0x00),
        PartitionKey::Null => bytes.push(0x01),
        PartitionKey::Bool(false) => bytes.push(0x02),
        PartitionKey::Bool(true) => bytes.push(0x03),
        PartitionKey::Number(n) => {
            // `-0.0` hashes as `0`: one value (`-0.0 = 0` is true), so one logical partition,
            // however the value was made (`PartitionKey::Number` is public).
            let n = if *n == 0.0 { 0.0 } else { *n };
            bytes.push(0x05);
            bytes.extend_from_slice(&n.to_le_bytes());
        }
        PartitionKey::String(s) => {
            bytes.push(0x08);
            bytes.extend_from_slice(s.as_bytes());
            bytes.push(0xFF);
        }
    }
    hash_bytes(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_parse_as_the_sdks_parse_them() {
        let seg = |p: &str| path_segments(p).unwrap();
        assert_eq!(seg("/a/b"), ["a", "b"]);
        assert_eq!(seg("/a~1b"), ["a/b"]);
        // From azure-cosmos 4.17.1's test_crud_container.py (special characters).
        assert_eq!(
            seg(r#"/"level' 1*()"/"le/vel2""#),
            ["level' 1*()", "le/vel2"]
        );
        assert_eq!(
            seg(r#"/'level" 1*()'/'le/vel2'"#),
            [r#"level" 1*()"#, "le/vel2"]
        );
        assert_eq!(seg(r#"/"a\"b"/c"#), [r#"a\"b"#, "c"]);
        for bad in ["", "/", "a", "//a", "/a//b", r#"/"open"#, r#"/"a"b"#] {
            assert!(path_segments(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_object_at_the_key_path_is_no_key() {
        let def = PartitionKeyDefinition::new("/address").unwrap();
        let doc = json!({"id": "1", "address": {"state": "WA"}});
        assert_eq!(def.extract(&doc).unwrap(), PartitionKey::None);
        assert!(def.extract(&json!({"address": ["WA"]})).is_err());
        let deeper = PartitionKeyDefinition::new("/address/state/city").unwrap();
        let doc = json!({"id": "1", "address": {"state": "WA"}});
        assert_eq!(deeper.extract(&doc).unwrap(), PartitionKey::None);
        let quoted = PartitionKeyDefinition::new(r#"/"le vel"/'x/y'"#).unwrap();
        let doc = json!({"le vel": {"x/y": "v"}});
        assert_eq!(quoted.extract(&doc).unwrap(), PartitionKey::from("v"));
    }

    #[test]
    fn numbers_hash_as_doubles() {
        let a = PartitionKey::from_json(&json!(1), "pk").unwrap();
        let b = PartitionKey::from_json(&json!(1.0), "pk").unwrap();
        for placement in [Placement::Engine, Placement::Cosmos] {
            let mut def = PartitionKeyDefinition::new("/pk").unwrap();
            def.placement = placement;
            assert_eq!(def.epk(&a), def.epk(&b));
            assert_ne!(def.epk(&a), def.epk(&PartitionKey::from("1")));
            assert_ne!(def.epk(&PartitionKey::Null), def.epk(&PartitionKey::None));
        }
    }

    #[test]
    fn cosmos_placement_is_the_cosmos_epk_shifted_two_bits() {
        let def = PartitionKeyDefinition::new("/pk").unwrap();
        assert_eq!(def.placement, Placement::Cosmos);
        // The Python SDK's EPK of "p3" (partition::cosmos's vectors), two bits to the left.
        let epk = def.epk(&"p3".into());
        let cosmos = u128::from_str_radix("271119C968E6C80FA31EC9F0033A0CBB", 16).unwrap();
        assert_eq!(u128::from_be_bytes(epk.0), cosmos << 2);
        assert_eq!(epk.coordinate(), (cosmos >> 62) as u64);
        // And read back from the stored EPK, where a hierarchical key's cannot be.
        assert_eq!(
            def.cosmos_epk_of(&epk).as_deref(),
            Some("271119C968E6C80FA31EC9F0033A0CBB")
        );
        let tenants = PartitionKeyDefinition::new("/t,/u").unwrap();
        let key = PartitionKey::Hierarchical(vec!["a".into(), "b".into()]);
        assert_eq!(tenants.cosmos_epk_of(&tenants.epk(&key)), None);
        // A catalog written before placement existed reads as the engine's own.
        let old: PartitionKeyDefinition =
            serde_json::from_value(json!({"paths": ["/pk"], "kind": "Hash", "version": 2}))
                .unwrap();
        assert_eq!(old.placement, Placement::Engine);
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

    #[test]
    fn a_prefix_range_holds_every_key_that_starts_with_it() {
        let def = PartitionKeyDefinition::new("/t,/u,/s").unwrap();
        assert_eq!(def.kind, "MultiHash");
        let mut engine_placed = def.clone();
        engine_placed.placement = Placement::Engine;
        let full = |t: &str, u: &str, s: &str| {
            PartitionKey::Hierarchical(vec![t.into(), u.into(), s.into()])
        };
        for prefix in [vec!["a"], vec!["a", "b"]] {
            let p = PartitionKey::Hierarchical(prefix.iter().map(|v| (*v).into()).collect());
            assert!(def.prefix_range(&p).0 < def.prefix_range(&p).1);
            for u in ["b", "c", "d"] {
                for s in ["1", "2"] {
                    for def in [&def, &engine_placed] {
                        let (lo, hi) = def.prefix_range(&p);
                        let c = def.epk(&full("a", u, s)).coordinate();
                        let inside = lo <= c && c <= hi;
                        assert_eq!(inside, prefix.len() == 1 || u == "b", "{prefix:?} {u} {s}");
                    }
                }
            }
        }
        // Two full keys that share a prefix are two logical partitions.
        assert_ne!(def.epk(&full("a", "b", "1")), def.epk(&full("a", "b", "2")));
        // A plain value given for a hierarchical key is a prefix; too many values are a 400.
        let (k, is_full) = def.key_or_prefix("a".into()).unwrap();
        assert!(!is_full);
        assert_eq!(k, PartitionKey::Hierarchical(vec!["a".into()]));
        let four = PartitionKey::Hierarchical(vec!["a".into(); 4]);
        assert!(def.key_or_prefix(four).is_err());
        assert!(def
            .full_key(PartitionKey::Hierarchical(vec!["a".into()]))
            .is_err());
        // A one-value array of a plain key is the value.
        let plain = PartitionKeyDefinition::new("/pk").unwrap();
        assert_eq!(
            plain
                .full_key(PartitionKey::Hierarchical(vec!["x".into()]))
                .unwrap(),
            PartitionKey::from("x")
        );
        assert!(PartitionKeyDefinition::new("/a,/b,/c,/d").is_err());
        assert!(PartitionKeyDefinition::new("/a,/a").is_err());
    }

    #[test]
    fn hierarchical_keys_read_from_text_and_items() {
        let def = PartitionKeyDefinition::new("/t,/u").unwrap();
        let k = PartitionKey::from_text(r#"["x", 5]"#, "--pk").unwrap();
        assert_eq!(def.extract(&json!({"t": "x", "u": 5})).unwrap(), k);
        assert_eq!(k.to_json(), Some(json!(["x", 5])));
        let missing = def.extract(&json!({"t": "x"})).unwrap();
        assert_eq!(missing.to_json(), Some(json!(["x", {}])));
        assert_eq!(
            PartitionKey::from_text(r#"["x", {}]"#, "--pk").unwrap(),
            missing
        );
    }
}
