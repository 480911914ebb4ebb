//! Change-feed processors: each one's leases, checkpoints, lag and last error, and the changes
//! it set aside (dead letters, in its lease container's `deadLetter:<name>` partition).

use cosmos::Labelled;
use engine::{Engine, ProcessorStatus, QueryOptions, NO_PARAMS};
use serde_json::Value;

/// Most dead letters listed per processor (the item browser has them all).
pub const DEAD_LETTERS_SHOWN: usize = 20;

/// A processor's status, or why it could not be read (its container was deleted, ...).
pub enum Processor {
    Status {
        status: ProcessorStatus,
        /// Read only when asked for (the change-feed page, not every metrics scrape).
        dead_letters: Option<DeadLetters>,
    },
    Unreadable {
        name: String,
        error: String,
    },
}

/// A change set aside: the changed item's id, the handler's error, when (Unix seconds).
pub struct DeadLetter {
    pub id: String,
    pub item: String,
    pub error: String,
    pub set_aside_at: u64,
}

pub struct DeadLetters {
    /// The lease-container partition holding them (for the item browser's link).
    pub partition: String,
    pub items: Vec<DeadLetter>,
    /// More than [`DEAD_LETTERS_SHOWN`].
    pub more: bool,
}

/// The changes `s`'s processor set aside, newest first.
async fn dead_letters(engine: &Engine, s: &ProcessorStatus) -> engine::Result<DeadLetters> {
    let partition = cosmos::dead_letter::partition(&s.name);
    let leases = engine
        .database(&s.lease_database)
        .container(&s.lease_container);
    let options = QueryOptions {
        partition_key: Some(partition.as_str().into()),
        ..Default::default()
    };
    let mut items: Vec<DeadLetter> = cosmos::Container::embedded(leases)
        .query_all::<Value>("SELECT * FROM c", NO_PARAMS, options)
        .labelled("read dead letters")
        .await?
        .items
        .into_iter()
        .map(|d| DeadLetter {
            id: d["id"].as_str().unwrap_or_default().to_owned(),
            item: d["change"]["id"].as_str().unwrap_or_default().to_owned(),
            error: d["error"].as_str().unwrap_or_default().to_owned(),
            set_aside_at: d["setAsideAt"]
                .as_u64()
                .or_else(|| d["_ts"].as_u64())
                .unwrap_or_default(),
        })
        .collect();
    items.sort_by_key(|d| std::cmp::Reverse(d.set_aside_at));
    let more = items.len() > DEAD_LETTERS_SHOWN;
    items.truncate(DEAD_LETTERS_SHOWN);
    Ok(DeadLetters {
        partition,
        items,
        more,
    })
}

/// Every processor of the engine, by database, container and name, with the changes each set
/// aside when `with_dead_letters`.
pub async fn processors(engine: &Engine, with_dead_letters: bool) -> Vec<Processor> {
    let mut out = Vec::new();
    for p in engine.change_feed_processors() {
        let status = match p.status().await {
            Ok(s) if with_dead_letters => dead_letters(engine, &s).await.map(|d| (s, Some(d))),
            Ok(s) => Ok((s, None)),
            Err(e) => Err(e),
        };
        out.push(match status {
            Ok((status, dead_letters)) => Processor::Status {
                status,
                dead_letters,
            },
            Err(e) => Processor::Unreadable {
                name: p.name().to_owned(),
                error: e.to_string(),
            },
        });
    }
    let key = |p: &Processor| match p {
        Processor::Status { status: s, .. } => {
            (s.database.clone(), s.container.clone(), s.name.clone())
        }
        Processor::Unreadable { name, .. } => (String::new(), String::new(), name.clone()),
    };
    out.sort_by_key(key);
    out
}
