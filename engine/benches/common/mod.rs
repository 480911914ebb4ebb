//! What the engine's benches share: loading many items with progress.

use std::time::Instant;

use engine::{ContainerClient, ItemOptions};
use serde_json::Value;

/// Creates `make(i)` for each `i` of `range` with 256 requests in flight, reporting progress
/// every 100 000 items.
pub async fn load(c: &ContainerClient, range: std::ops::Range<u64>, make: fn(u64) -> Value) {
    let started = Instant::now();
    let (first, end) = (range.start, range.end);
    let mut set = tokio::task::JoinSet::new();
    for i in range {
        if set.len() >= 256 {
            set.join_next().await.unwrap().unwrap();
        }
        let c = c.clone();
        set.spawn(async move {
            let opts = ItemOptions {
                enable_content_response_on_write: false,
                ..Default::default()
            };
            c.create_item(&make(i), None, Some(opts)).await.unwrap();
        });
        if (i + 1) % 100_000 == 0 {
            eprintln!(
                "  loaded {}/{end} ({:.0}/s)",
                i + 1,
                (i + 1 - first) as f64 / started.elapsed().as_secs_f64()
            );
        }
    }
    while let Some(r) = set.join_next().await {
        r.unwrap();
    }
}
