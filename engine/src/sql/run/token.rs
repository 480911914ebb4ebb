//! The continuation token: its format is what links already handed out resume from.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// How a page ran, so the next one resumes the same way (one letter in the token).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum Resume {
    /// Items in key order: the token holds the last key read.
    #[default]
    #[serde(rename = "s")]
    Stream,
    /// An ORDER BY merge: the token holds each range's index position.
    #[serde(rename = "o")]
    Ordered,
    /// The whole result computed, paged by offset.
    #[serde(rename = "w")]
    Whole,
    /// Whole pages of a routed ORDER BY over few items, sorted (priced as the merge).
    #[serde(rename = "f")]
    SortedFew,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Token {
    rid: u32,
    /// Hash of the query text and parameters: a continuation only resumes its own query.
    q: u64,
    pub(super) mode: Resume,
    /// Stream, and Whole while it gathers: the last item key processed (base64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) key: Option<String>,
    /// Ordered: per EPK range start, the last index position consumed (base64, partition-free).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) ranges: Vec<(u64, Option<u64>, Option<String>)>,
    // Zeros are left out: a continuation travels in page links, shorter is kinder.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(super) skipped: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(super) emitted: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(super) offset: u64,
    /// Stream with DISTINCT: the 64-bit hashes of the rows returned so far, packed (base64).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub(super) seen: String,
    /// Ordered: per range, the partition's LSN when its walk began and the entries it consumed
    /// (`ordered.rs`), checked against the index's count when the walk ends.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) walked: Vec<Option<(u64, u64)>>,
    /// Stream: the count of the scan the page cut short, checked when it ends (`audit.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) audit: Option<Audit>,
    /// Whole: what the query gathered so far, when it is small (`partial.rs`).
    #[serde(rename = "p", default, skip_serializing_if = "Option::is_none")]
    pub(super) partial: Option<super::partial::Partial>,
    /// Whole: the id of the state kept on the engine's side instead (`cursor.rs`).
    #[serde(rename = "c", default, skip_serializing_if = "Option::is_none")]
    pub(super) cursor: Option<u64>,
}

impl Token {
    /// The token of a query's first page.
    pub(super) fn first(rid: u32, qhash: u64) -> Token {
        Token {
            rid,
            q: qhash,
            ..Default::default()
        }
    }

    /// The token a continuation carries, refused unless it was handed out for this query
    /// (`qhash`) on this container (`rid`).
    pub(super) fn decode(
        continuation: Option<&str>,
        rid: u32,
        qhash: u64,
    ) -> Result<Option<Token>> {
        let Some(c) = continuation else {
            return Ok(None);
        };
        let t: Token = serde_json::from_slice(&unpack(c)?)
            .map_err(|_| Error::bad("continuation", "malformed continuation token"))?;
        if t.rid != rid || t.q != qhash {
            return Err(Error::bad(
                "continuation",
                "the continuation belongs to another query or container",
            ));
        }
        Ok(Some(t))
    }

    /// The continuation handed out with a page.
    pub(super) fn encode(&self) -> String {
        pack(&serde_json::to_vec(self).expect("tokens serialize"))
    }
}

/// A key or index position inside a continuation: URL-safe base64 (two thirds the length of hex).
pub(super) fn pack(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

pub(super) fn unpack(s: &str) -> Result<Vec<u8>> {
    URL_SAFE_NO_PAD
        .decode(s)
        .map_err(|_| Error::bad("continuation", "malformed continuation token"))
}

/// The count of a scan cut by a page's end, carried in the continuation (`audit.rs` keeps and
/// checks it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Audit {
    /// The scope counted (see `audit::Scope::tag`).
    pub(super) s: String,
    /// The physical partition's LSN when the count began.
    pub(super) l: u64,
    /// Keys visited in the scope so far.
    pub(super) n: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

pub(super) fn pack_hashes(seen: &std::collections::HashSet<u64>) -> String {
    let bytes: Vec<u8> = seen.iter().flat_map(|h| h.to_le_bytes()).collect();
    URL_SAFE_NO_PAD.encode(bytes)
}

pub(super) fn unpack_hashes(s: &str) -> Result<std::collections::HashSet<u64>> {
    let bytes = URL_SAFE_NO_PAD
        .decode(s)
        .ok()
        .filter(|b| b.len() % 8 == 0)
        .ok_or_else(|| Error::bad("continuation", "malformed continuation token"))?;
    Ok(bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect())
}
