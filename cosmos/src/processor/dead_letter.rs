//! Bounded retries, then a dead letter. A batch the handler fails on is retried with the
//! backend's back-off (doubling to 5 s on both), but not
//! forever: one change that can never be handled would otherwise stop its lease — and every
//! later change of its partitions — for good. After [`DEFAULT_MAX_ATTEMPTS`] failures of the
//! same batch the changes are tried one at a time; those that still fail are written to the
//! lease container under the partition `deadLetter:<processor>` (with the error, where the
//! Data Explorer shows them) and the batch is checkpointed.
//!
//! A transient error of the account (throttled, timed out, unavailable, out of disk) is not
//! the change's fault and does not count: it is retried as before, however long it lasts.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use serde_json::{json, Value};

use super::{BoxFuture, Handler};
use crate::container::Container;
use crate::{Error, Result};

/// Failed attempts of one batch before its failing changes are set aside.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 5;

/// The lease-container partition holding `processor`'s set-aside changes.
pub fn partition(processor: &str) -> String {
    format!("deadLetter:{processor}")
}

/// Records `change` (which failed with `error`) for `processor`; idempotent per version of the
/// document (a redelivered batch writes the same item again).
pub async fn set_aside(
    leases: &Container,
    processor: &str,
    change: &Value,
    error: &str,
) -> Result<()> {
    let version = change["_lsn"]
        .as_u64()
        .map(|n| n.to_string())
        .or_else(|| {
            change["_etag"]
                .as_str()
                .map(|e| e.trim_matches('"').to_owned())
        })
        .unwrap_or_default();
    let id = format!(
        "{}@{}",
        change["id"].as_str().unwrap_or("unknown"),
        version.replace(['/', '\\', '?', '#'], "-")
    );
    tracing::warn!(processor, id, error, "change set aside (dead letter)");
    leases
        .upsert_item(
            &json!({
                "id": id,
                "processor": partition(processor),
                "error": error,
                "change": change,
                "setAsideAt": unix_now(),
            }),
            None,
            None,
        )
        .await?;
    Ok(())
}

/// Unix seconds.
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A handler's failure: its message, and whether it is the account's passing trouble rather
/// than the change's.
pub(crate) struct Failure {
    pub message: String,
    pub transient: bool,
}

impl Failure {
    /// Transient when the handler's error is one of the account's passing states.
    pub fn of<E: std::fmt::Display + 'static>(e: E) -> Failure {
        let transient = (&e as &dyn std::any::Any)
            .downcast_ref::<Error>()
            .is_some_and(|e| matches!(e.status_code(), 408 | 429 | 503 | 507));
        Failure {
            message: e.to_string(),
            transient,
        }
    }
}

pub(crate) type TypedHandler =
    Arc<dyn Fn(Vec<Value>) -> BoxFuture<std::result::Result<(), Failure>> + Send + Sync>;

/// Which batch this is, across its redeliveries: its first change's id and version (a batch
/// retried from the same checkpoint starts with the same change).
fn batch_key(batch: &[Value]) -> String {
    batch.first().map_or_else(String::new, |c| {
        format!("{}@{}@{}", c["id"], c["_lsn"], c["_etag"])
    })
}

/// `handler` with the bounded policy: `max_attempts` counted failures of a batch, then its
/// failing changes set aside in `leases` (`None`: retried forever, the engine's own policy).
pub(crate) fn bounded(
    processor: String,
    leases: Container,
    handler: TypedHandler,
    max_attempts: Option<u32>,
) -> Handler {
    let failures: Arc<Mutex<HashMap<String, u32>>> = Default::default();
    Arc::new(move |batch: Vec<Value>| {
        let (processor, leases, handler, failures) = (
            processor.clone(),
            leases.clone(),
            handler.clone(),
            failures.clone(),
        );
        Box::pin(async move {
            let key = batch_key(&batch);
            let failure = match handler(batch.clone()).await {
                Ok(()) => {
                    failures.lock().remove(&key);
                    return Ok(());
                }
                Err(f) => f,
            };
            let Some(max) = max_attempts else {
                return Err(failure.message);
            };
            if failure.transient {
                return Err(failure.message);
            }
            let attempts = {
                let mut all = failures.lock();
                // Batches abandoned half-way (a lease another process took over) are forgotten.
                if all.len() > 1000 {
                    all.clear();
                }
                let n = all.entry(key.clone()).or_insert(0);
                *n += 1;
                *n
            };
            if attempts < max {
                return Err(failure.message);
            }
            // One change at a time: the ones that fail alone are set aside, the rest handled.
            for change in batch {
                match handler(vec![change.clone()]).await {
                    Ok(()) => {}
                    Err(f) if f.transient => return Err(f.message),
                    Err(f) => set_aside(&leases, &processor, &change, &f.message)
                        .await
                        .map_err(|e| format!("setting a change aside: {e}"))?,
                }
            }
            failures.lock().remove(&key);
            Ok(())
        })
    })
}
