//! Change-feed processors: each one's leases, checkpoints, lag and last error.

use engine::{Engine, ProcessorStatus};

/// A processor's status, or why it could not be read (its container was deleted, ...).
pub enum Processor {
    Status(ProcessorStatus),
    Unreadable { name: String, error: String },
}

/// Every processor of the engine, by database, container and name.
pub async fn processors(engine: &Engine) -> Vec<Processor> {
    let mut out = Vec::new();
    for p in engine.change_feed_processors() {
        out.push(match p.status().await {
            Ok(s) => Processor::Status(s),
            Err(e) => Processor::Unreadable {
                name: p.name().to_owned(),
                error: e.to_string(),
            },
        });
    }
    let key = |p: &Processor| match p {
        Processor::Status(s) => (s.database.clone(), s.container.clone(), s.name.clone()),
        Processor::Unreadable { name, .. } => (String::new(), String::new(), name.clone()),
    };
    out.sort_by_key(key);
    out
}
