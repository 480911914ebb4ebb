//! What a query that cannot stream has gathered when its page ends: partial aggregates, items
//! to sort, the rows of a finished result still to hand out, or a DISTINCT's values seen. It
//! travels in the continuation while small (as Cosmos DB's partial aggregates do), otherwise it
//! stays on the engine's side, as it is, under an id the continuation carries (`cursor.rs`, which
//! chooses).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::super::exec::FolderState;

/// A state at most this long (as JSON) travels in the continuation. Cosmos DB lets a client
/// cap its continuation header (`x-ms-documentdb-responsecontinuationtokenlimitinkb`, in KB);
/// a few KB keep links and headers short.
pub(super) const INLINE_MAX: usize = 2048;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) enum Partial {
    /// Aggregates and GROUP BY groups folded so far.
    #[serde(rename = "f")]
    Folded(FolderState),
    /// Items gathered for a result computed whole (ORDER BY without its index, DISTINCT with
    /// ORDER BY), and their stored size.
    #[serde(rename = "i")]
    Items(Vec<Value>, usize),
    /// The rows of the finished result not handed out yet.
    #[serde(rename = "r")]
    Rows(Vec<Value>),
    /// A streamed DISTINCT: the hashes of the rows returned so far, packed.
    #[serde(rename = "d")]
    Seen(String),
}

impl Partial {
    /// About how long the state is as JSON, from a sample of its parts (states too long for
    /// the continuation are kept whole, never serialized).
    pub(super) fn estimate(&self) -> usize {
        fn sampled<T: Serialize>(parts: &[T]) -> usize {
            let n = parts.len().min(32);
            if n == 0 {
                return 2;
            }
            let sample: usize = parts[..n]
                .iter()
                .map(|p| serde_json::to_vec(p).map_or(0, |b| b.len() + 1))
                .sum();
            sample * parts.len() / n
        }
        match self {
            Partial::Folded(st) => st.estimate(sampled),
            Partial::Items(_, bytes) => *bytes,
            Partial::Rows(rows) => sampled(rows),
            Partial::Seen(packed) => packed.len(),
        }
    }
}
