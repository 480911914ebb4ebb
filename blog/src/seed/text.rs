//! Words for believable blog posts about riding, building and modeling data.

use rand::seq::IndexedRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

pub const HANDLES: &[&str] = &[
    "ana", "ben", "chen", "dana", "emeka", "fatima", "grace", "hugo", "ines", "jamal", "kai",
    "lara", "mateo", "nadia", "omar", "priya", "quinn", "rosa", "sam", "tess", "uma", "victor",
    "wen", "yara", "zoe", "rider", "builder", "modeler", "hiker", "reader",
];
const TOPICS: &[&str] = &[
    "partition keys",
    "the change feed",
    "denormalization",
    "request units",
    "hot partitions",
    "stored procedures",
    "indexing policies",
    "point reads",
    "fan-out queries",
    "embedding",
    "gravel rides",
    "winter commuting",
    "wheel building",
    "bikepacking",
    "tubeless tires",
];
const OPENERS: &[&str] = &[
    "Notes on",
    "What I learned about",
    "A week with",
    "Why I changed my mind on",
    "Getting started with",
    "Five mistakes with",
    "Measuring",
    "Rethinking",
];
const SENTENCES: &[&str] = &[
    "Choosing a partition key is choosing which requests stay cheap.",
    "Every query that knows its partition key visits one partition and nothing else.",
    "I measured each request twice and wrote the request units down beside it.",
    "Denormalizing the username saved an extra query on every page view.",
    "The change feed keeps the copies honest, a few milliseconds behind.",
    "A stored procedure made the count and the comment agree, always.",
    "The fan-out was fine at a hundred users and painful at a hundred thousand.",
    "We rode out before sunrise and the gravel was still wet from the night.",
    "Tubeless took an evening to set up and has saved a dozen roadside stops since.",
    "The feed container holds only a hundred posts, and that is the point.",
    "Point reads are the cheapest thing a database can do; design for them.",
    "Indexing only what you query made every write noticeably cheaper.",
];

pub fn title(r: &mut ChaCha8Rng) -> String {
    format!(
        "{} {}",
        OPENERS.choose(r).expect("openers"),
        TOPICS.choose(r).expect("topics")
    )
}

fn paragraph(r: &mut ChaCha8Rng) -> String {
    (0..r.random_range(2..5))
        .map(|_| *SENTENCES.choose(r).expect("sentences"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A few paragraphs of Markdown, with a list now and then.
pub fn body(r: &mut ChaCha8Rng) -> String {
    let mut parts: Vec<String> = (0..r.random_range(2..5)).map(|_| paragraph(r)).collect();
    if r.random_bool(0.4) {
        parts.insert(
            1,
            format!(
                "- **{}**\n- *{}*\n- `{}`",
                TOPICS.choose(r).expect("t"),
                TOPICS.choose(r).expect("t"),
                "SELECT * FROM c"
            ),
        );
    }
    parts.join("\n\n")
}

pub fn comment(r: &mut ChaCha8Rng) -> String {
    SENTENCES.choose(r).expect("sentences").to_string()
}
