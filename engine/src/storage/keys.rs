//! Key layout. Everything is ordered bytes, so this file is the architecture:
//!
//! | database | key                                  | value                              |
//! |----------|--------------------------------------|------------------------------------|
//! | docs     | rid(4) · epk(16) · id-key            | header(32, or 24) · JSON           |
//! | lps      | rid(4) · epk(16)                     | bytes(8) · items(8) · pk JSON      |
//! | feed     | rid(4) · partition(4) · lsn(8)       | epk(16) · id-key                   |
//! | log      | rid(4) · partition(4) · lsn(8)       | epk(16) · ts(8) · JSON             |
//! | index    | rid(4) · partition(4) · term · epk(16) · id-hash(8) | id-key             |
//! | expiry   | rid(4) · expires-at(8) · epk · id    | (empty)                            |
//!
//! `rid` is the container's numeric id. Items are keyed by EPK, not by physical partition, so a
//! physical partition is a contiguous EPK range of `docs` and a split moves no documents; the feed
//! (and, later, the index) is scoped per physical partition and is what a split rewrites.
//! LMDB keys are at most 511 bytes: ids longer than `ID_INLINE` bytes are truncated and suffixed
//! with a hash, and the full id is checked against the stored document on read.

use serde_json::Value;

use crate::error::{Error, Result};

/// Effective partition key: 16 bytes, big-endian, ordered as keys are ordered in LMDB. Its
/// hashing from a partition key value is `partition`'s; storage only orders by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Epk(pub [u8; 16]);

impl Epk {
    /// The coordinate physical partition ranges are expressed in.
    pub fn coordinate(&self) -> u64 {
        u64::from_be_bytes(self.0[..8].try_into().expect("16 bytes"))
    }
}

pub const ID_INLINE: usize = 400;
/// Header lengths of the two item formats (see [`DocHeader`]).
pub const HEADER_LEN: usize = 24;
pub const CHECKED_HEADER_LEN: usize = 32;

pub fn id_key(id: &str) -> Vec<u8> {
    let b = id.as_bytes();
    if b.len() <= ID_INLINE {
        b.to_vec()
    } else {
        let mut k = b[..ID_INLINE - 16].to_vec();
        k.extend_from_slice(&xxhash_rust::xxh3::xxh3_128(b).to_be_bytes());
        k
    }
}

pub fn is_truncated(id: &str) -> bool {
    id.len() > ID_INLINE
}

pub fn doc_key(rid: u32, epk: &Epk, id: &str) -> Vec<u8> {
    let idk = id_key(id);
    let mut k = Vec::with_capacity(20 + idk.len());
    k.extend_from_slice(&rid.to_be_bytes());
    k.extend_from_slice(&epk.0);
    k.extend_from_slice(&idk);
    k
}

/// Prefix of every item of one logical partition (also its `lps` key).
pub fn partition_prefix(rid: u32, epk: &Epk) -> [u8; 20] {
    let mut k = [0u8; 20];
    k[..4].copy_from_slice(&rid.to_be_bytes());
    k[4..].copy_from_slice(&epk.0);
    k
}

pub fn container_prefix(rid: u32) -> [u8; 4] {
    rid.to_be_bytes()
}

/// First `docs`/`lps` key at or above EPK coordinate `c` in container `rid`.
pub fn coordinate_key(rid: u32, c: u64) -> [u8; 12] {
    let mut k = [0u8; 12];
    k[..4].copy_from_slice(&rid.to_be_bytes());
    k[4..].copy_from_slice(&c.to_be_bytes());
    k
}

/// The EPK inside a `docs` or `lps` key.
pub fn epk_of(key: &[u8]) -> Epk {
    // A damaged key too short for its EPK reads as the zero EPK rather than panicking; readers
    // of `docs` check `is_doc_key` and report it.
    key.get(4..20)
        .and_then(|b| b.try_into().ok())
        .map_or(Epk([0; 16]), Epk)
}

/// Whether `key` is long enough to be a `docs` key (container, EPK and a non-empty id): any
/// other length is damage.
pub fn is_doc_key(key: &[u8]) -> bool {
    key.len() > 20
}

/// The EPK inside a `feed` value (`epk | id-key`).
pub fn epk_of_feed_value(value: &[u8]) -> Epk {
    value
        .get(..16)
        .and_then(|b| b.try_into().ok())
        .map_or(Epk([0; 16]), Epk)
}

pub fn feed_key(rid: u32, partition: u32, lsn: u64) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..4].copy_from_slice(&rid.to_be_bytes());
    k[4..8].copy_from_slice(&partition.to_be_bytes());
    k[8..].copy_from_slice(&lsn.to_be_bytes());
    k
}

pub fn feed_prefix(rid: u32, partition: u32) -> [u8; 8] {
    let mut k = [0u8; 8];
    k[..4].copy_from_slice(&rid.to_be_bytes());
    k[4..].copy_from_slice(&partition.to_be_bytes());
    k
}

pub fn lsn_of_feed_key(key: &[u8]) -> u64 {
    key.get(8..16)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u64::from_be_bytes)
}

/// `expiry` key of an item that expires at `at` (seconds).
pub fn expiry_key(rid: u32, at: u64, doc_key: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(12 + doc_key.len());
    k.extend_from_slice(&rid.to_be_bytes());
    k.extend_from_slice(&at.to_be_bytes());
    k.extend_from_slice(&doc_key[4..]);
    k
}

/// The `docs` key an `expiry` key points at.
pub fn doc_key_of_expiry(rid: u32, key: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(key.len() - 8);
    k.extend_from_slice(&rid.to_be_bytes());
    k.extend_from_slice(&key[12..]);
    k
}

/// A `log` value: the EPK (for splits), the commit time (for retention), the JSON record.
pub fn log_value(epk: &Epk, ts: u64, json: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(24 + json.len());
    v.extend_from_slice(&epk.0);
    v.extend_from_slice(&ts.to_be_bytes());
    v.extend_from_slice(json);
    v
}

pub fn ts_of_log_value(v: &[u8]) -> u64 {
    v.get(16..24)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u64::from_be_bytes)
}

/// Keys as text, for continuation tokens and cursors.
pub fn hex(b: &[u8]) -> String {
    use std::fmt::Write;
    b.iter()
        .fold(String::with_capacity(b.len() * 2), |mut s, x| {
            let _ = write!(s, "{x:02x}");
            s
        })
}

/// The bytes of `hex`'s text; `None` when it is not hex.
pub fn unhex(s: &str) -> Option<Vec<u8>> {
    (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect()
}

/// The fixed header stored before each document's JSON, read without parsing the JSON.
///
/// Two formats. Format 1 (24 bytes): `lsn · ts · ttl`. Format 2 (32 bytes), written since:
/// `lsn | 1<<63 · ts · ttl · checksum`, the checksum an xxh3 of the JSON seeded with an xxh3 of
/// the first 24 bytes. LMDB has no checksums, so this is what tells damaged bytes from an item
/// (JSON that still parses included). An LSN never reaches 2^63, so the top bit tells the
/// formats apart; format 1 items are read as they are and gain a checksum when next written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DocHeader {
    pub lsn: u64,
    /// `_ts`, seconds since the epoch.
    pub ts: u64,
    /// The item's own `ttl` (seconds, -1 = never), `None` when absent.
    pub ttl: Option<i64>,
}

/// Marks a format 2 header (see [`DocHeader`]).
const CHECKSUMMED: u64 = 1 << 63;
/// Marks an item written with Cosmos DB's indexing directive `Exclude`: stored, not indexed.
/// Bit 62 of the LSN word (an LSN never reaches 2^62 either), so the header keeps its size and
/// the checksum covers the mark.
const NOT_INDEXED: u64 = 1 << 62;

/// What is wrong with a stored item's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Damage {
    /// Shorter than its header.
    Short,
    /// The bytes do not match their checksum.
    Checksum,
}

impl Damage {
    pub fn describe(self) -> &'static str {
        match self {
            Damage::Short => "its header is cut short",
            Damage::Checksum => "its bytes do not match their checksum",
        }
    }
}

fn checksum(head: &[u8], json: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(json, xxhash_rust::xxh3::xxh3_64(head))
}

impl DocHeader {
    /// The stored value: a format 2 header, then `json`.
    pub fn encode(&self, json: &[u8]) -> Vec<u8> {
        self.encode_marked(json, 0)
    }

    /// [`encode`](Self::encode) for an item the index leaves out (indexing directive `Exclude`).
    pub fn encode_not_indexed(&self, json: &[u8]) -> Vec<u8> {
        self.encode_marked(json, NOT_INDEXED)
    }

    /// Whether a stored value was written not to be indexed (its index terms are none).
    pub fn is_not_indexed(value: &[u8]) -> bool {
        value.len() >= 8
            && u64::from_be_bytes(value[..8].try_into().expect("8 bytes")) & NOT_INDEXED != 0
    }

    fn encode_marked(&self, json: &[u8], mark: u64) -> Vec<u8> {
        let mut v = Vec::with_capacity(CHECKED_HEADER_LEN + json.len());
        v.extend_from_slice(&(self.lsn | CHECKSUMMED | mark).to_be_bytes());
        v.extend_from_slice(&self.ts.to_be_bytes());
        v.extend_from_slice(&self.ttl.unwrap_or(i64::MIN).to_be_bytes());
        let sum = checksum(&v, json);
        v.extend_from_slice(&sum.to_be_bytes());
        v.extend_from_slice(json);
        v
    }

    /// Splits a stored value into its header and JSON bytes, checking the checksum when it has
    /// one; `None` when damaged.
    pub fn decode(value: &[u8]) -> Option<(DocHeader, &[u8])> {
        Self::verify(value).ok()
    }

    /// The header alone, its JSON not read (nor checked): for work that needs only `_ts` and
    /// the TTL, such as counting items.
    pub fn peek(value: &[u8]) -> std::result::Result<DocHeader, Damage> {
        if value.len() < HEADER_LEN {
            return Err(Damage::Short);
        }
        let n = |i: usize| u64::from_be_bytes(value[i..i + 8].try_into().expect("8 bytes"));
        let ttl = n(16) as i64;
        Ok(DocHeader {
            lsn: n(0) & !(CHECKSUMMED | NOT_INDEXED),
            ts: n(8),
            ttl: (ttl != i64::MIN).then_some(ttl),
        })
    }

    /// `decode`, saying what is wrong.
    pub fn verify(value: &[u8]) -> std::result::Result<(DocHeader, &[u8]), Damage> {
        let header = Self::peek(value)?;
        let n = |i: usize| u64::from_be_bytes(value[i..i + 8].try_into().expect("8 bytes"));
        if n(0) & CHECKSUMMED == 0 {
            return Ok((header, &value[HEADER_LEN..]));
        }
        if value.len() < CHECKED_HEADER_LEN {
            return Err(Damage::Short);
        }
        let json = &value[CHECKED_HEADER_LEN..];
        if checksum(&value[..HEADER_LEN], json) != n(HEADER_LEN) {
            return Err(Damage::Checksum);
        }
        Ok((header, json))
    }
}

impl DocHeader {
    /// `decode` for a stored item, failing with an error that names the item and its container.
    pub fn read<'v>(key: &[u8], value: &'v [u8], container: &str) -> Result<(DocHeader, &'v [u8])> {
        if !is_doc_key(key) {
            return Err(corrupt_key(key, container));
        }
        Self::verify(value).map_err(|d| corrupt_item(key, container, d.describe()))
    }
}

/// A key for a message: its hex when short, else the hex of its first 20 bytes (a container's
/// rid and an EPK) and its length. A damaged key can be 511 bytes of noise, and a message holding
/// it and its id whole ran to 1.3 KB.
pub fn show(key: &[u8]) -> String {
    if key.len() <= 48 {
        hex(key)
    } else {
        format!("{}… ({} bytes)", hex(&key[..20]), key.len())
    }
}

/// The id inside a `docs` key for a message: control and invalid bytes escaped, at most 64
/// characters (then its length in bytes).
pub fn shown_id(key: &[u8]) -> String {
    let id = key.get(20..).unwrap_or_default();
    let text: String = String::from_utf8_lossy(id).escape_debug().collect();
    match text.char_indices().nth(64) {
        Some((at, _)) => format!("{}… ({} bytes)", &text[..at], id.len()),
        None => text,
    }
}

/// 500 "corrupt data" for a `docs` key of the wrong length.
pub fn corrupt_key(key: &[u8], container: &str) -> Error {
    Error::Corrupt(format!(
        "a key of container '{container}' is damaged ({} bytes: {}); restore from a backup, run `engine check`",
        key.len(),
        show(key)
    ))
}

/// 500 "corrupt data" naming the item (from its key) and the container.
pub fn corrupt_item(key: &[u8], container: &str, why: &str) -> Error {
    Error::Corrupt(format!(
        "item '{}' in container '{container}': {why}; restore from a backup, run `engine check`",
        shown_id(key)
    ))
}

/// Decodes an `lps` value: bytes, items and the partition key value (`None` for PartitionKey.None).
pub fn decode_lp_stats(v: &[u8]) -> (u64, u64, Option<Value>) {
    if v.len() < 16 {
        return (0, 0, None);
    }
    (
        u64::from_be_bytes(v[..8].try_into().expect("8")),
        u64::from_be_bytes(v[8..16].try_into().expect("8")),
        serde_json::from_slice(&v[16..]).ok(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_carry_a_checksum_and_old_items_still_read() {
        let h = DocHeader {
            lsn: 7,
            ts: 1_700_000_000,
            ttl: Some(60),
        };
        let json = br#"{"id":"a","n":1}"#;
        let v = h.encode(json);
        assert_eq!(DocHeader::verify(&v), Ok((h, &json[..])));
        // One changed byte anywhere: in the JSON (still JSON), in the header, in the checksum.
        for at in [v.len() - 3, 15, 20, 30] {
            let mut bad = v.clone();
            bad[at] ^= 0x01;
            assert_eq!(DocHeader::verify(&bad), Err(Damage::Checksum), "byte {at}");
        }
        assert_eq!(DocHeader::verify(&v[..28]), Err(Damage::Short));
        // Format 1, as stored before checksums: read as it is.
        let mut old = Vec::new();
        old.extend_from_slice(&7u64.to_be_bytes());
        old.extend_from_slice(&1_700_000_000u64.to_be_bytes());
        old.extend_from_slice(&60i64.to_be_bytes());
        old.extend_from_slice(json);
        assert_eq!(DocHeader::decode(&old), Some((h, &json[..])));
    }
}
