//! Full-text search: `FULLTEXTCONTAINS`, `FULLTEXTCONTAINSALL`, `FULLTEXTCONTAINSANY`, and the
//! BM25 score of `FULLTEXTSCORE` that `ORDER BY RANK` (alone or fused by `RRF`) sorts by.
//!
//! Text is processed as Cosmos DB documents it for its full-text policy (language `en-US`):
//! tokenization, stop-word removal and stemming. Tokens are the maximal runs of letters and
//! digits (Unicode), lower-cased; the English stop words of Lucene's classic analyzer are
//! dropped; each remaining token is reduced by the Snowball English (Porter 2) stemmer, so
//! `helmets` finds `helmet` and `running` finds `run`. A search string of several words is a
//! phrase: its tokens must follow each other in the text (stop words skipped on both sides).
//!
//! BM25 is the Okapi form with `k1 = 1.2`, `b = 0.75` and the non-negative IDF
//! `ln(1 + (N - n + 0.5) / (n + 0.5))`, summed over the distinct tokens of the terms. Its
//! statistics (N items, their average token count at the path, n items holding the token) are
//! those of the whole container, as Cosmos DB's SDKs gather them with a global statistics query
//! over every partition before ranking.

use std::collections::HashSet;
use std::sync::OnceLock;

use serde_json::Value;

use super::args::{boolean, s};
use crate::sql::value::Val;

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Lucene's classic English stop words.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with",
];

fn stemmer() -> &'static rust_stemmers::Stemmer {
    static STEMMER: OnceLock<rust_stemmers::Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English))
}

/// The tokens of a text: split, lower-cased, stop words removed, stemmed.
pub fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .map(|w| stemmer().stem(&w).into_owned())
        .collect()
}

/// Whether the tokens of `phrase` occur in `text` one after the other. A phrase of stop words
/// only (no tokens) is found nowhere.
fn has_phrase(text: &[String], phrase: &str) -> bool {
    let p = tokens(phrase);
    !p.is_empty() && text.windows(p.len()).any(|w| w == p.as_slice())
}

pub(super) fn call(name: &str, a: &[Val]) -> Val {
    let text = tokens(s(&a[0])?);
    let needles = a[1..].iter().map(s).collect::<Option<Vec<&str>>>()?;
    match name {
        "FULLTEXTCONTAINS" => boolean(has_phrase(&text, needles[0])),
        "FULLTEXTCONTAINSALL" => boolean(needles.iter().all(|n| has_phrase(&text, n))),
        "FULLTEXTCONTAINSANY" => boolean(needles.iter().any(|n| has_phrase(&text, n))),
        // FULLTEXTSCORE and RRF are only evaluated by ORDER BY RANK (see `exec`).
        _ => None,
    }
}

/// The distinct tokens of `FULLTEXTSCORE`'s terms: strings, or arrays of strings (the
/// reference's older form `FULLTEXTSCORE(c.text, ["a", "b"])`). `None` if a term is neither.
pub fn score_terms(terms: &[Val]) -> Option<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |t: &str| {
        for tok in tokens(t) {
            if !out.contains(&tok) {
                out.push(tok);
            }
        }
    };
    for t in terms {
        match t {
            Some(Value::String(x)) => add(x),
            Some(Value::Array(items)) if !items.is_empty() => {
                for i in items {
                    add(i.as_str()?);
                }
            }
            _ => return None,
        }
    }
    Some(out)
}

/// BM25 statistics of one `FULLTEXTSCORE` call over a set of items.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Statistics {
    /// Items counted (all of them, with or without text at the path).
    pub documents: u64,
    /// Tokens of the text at the path, over all those items.
    pub words: u64,
    /// Per term token: the items whose text holds it.
    pub hits: Vec<u64>,
}

impl Statistics {
    pub fn new(terms: usize) -> Self {
        Statistics {
            documents: 0,
            words: 0,
            hits: vec![0; terms],
        }
    }

    /// Counts one item whose value at the path is `text`.
    pub fn add(&mut self, text: &Val, terms: &[String]) {
        self.documents += 1;
        if let Some(Value::String(t)) = text {
            let toks = tokens(t);
            self.words += toks.len() as u64;
            let set: HashSet<&String> = toks.iter().collect();
            for (i, term) in terms.iter().enumerate() {
                if set.contains(term) {
                    self.hits[i] += 1;
                }
            }
        }
    }

    /// The BM25 score of a text for `terms` (0 for anything but a string).
    pub fn score(&self, text: &Val, terms: &[String]) -> f64 {
        let Some(Value::String(t)) = text else {
            return 0.0;
        };
        if self.documents == 0 || self.words == 0 {
            return 0.0;
        }
        let toks = tokens(t);
        let n = self.documents as f64;
        let avgdl = self.words as f64 / n;
        let dl = toks.len() as f64;
        let mut score = 0.0;
        for (i, term) in terms.iter().enumerate() {
            let tf = toks.iter().filter(|x| *x == term).count() as f64;
            if tf == 0.0 {
                continue;
            }
            let df = self.hits.get(i).copied().unwrap_or(0) as f64;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            score += idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * dl / avgdl));
        }
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_processing() {
        assert_eq!(
            tokens("The Helmets, and RUNNING shoes!"),
            vec!["helmet", "run", "shoe"]
        );
        let t = tokens("Sport-100 Helmet, Red");
        assert!(has_phrase(&t, "helmets"));
        assert!(has_phrase(&t, "helmet red"));
        assert!(!has_phrase(&t, "red helmet"));
        assert!(!has_phrase(&t, "the"));
    }

    #[test]
    fn bm25() {
        let terms = score_terms(&[Some(json!("fox"))]).unwrap();
        let mut st = Statistics::new(terms.len());
        for t in ["quick brown fox", "lazy dog", "fox fox fox and dog"] {
            st.add(&Some(json!(t)), &terms);
        }
        assert_eq!((st.documents, st.words, st.hits.clone()), (3, 9, vec![2]));
        let idf = (1.0f64 + (3.0 - 2.0 + 0.5) / 2.5).ln();
        let want = idf * 2.2 / (1.0 + 1.2 * (0.25 + 0.75 * 3.0 / 3.0));
        assert!((st.score(&Some(json!("quick brown fox")), &terms) - want).abs() < 1e-12);
        assert_eq!(st.score(&Some(json!("lazy dog")), &terms), 0.0);
        assert_eq!(st.score(&None, &terms), 0.0);
    }
}
