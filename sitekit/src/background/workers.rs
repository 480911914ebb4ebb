//! The change-feed workers a site runs: named [`ChangeFeedProcessor`]s, started and stopped
//! together, and the lag its pages show to say whether a change has reached every copy yet
//! (WebStore's "Propagation done" after a rename, the blog's "is my new name everywhere yet?").
//! Registered as app data (`web::Data<Workers>`); a site or mount without workers registers an
//! empty set, which is never pending.

use cosmos::ChangeFeedProcessor;

/// How long after a change [`Workers::pending_after`] still asks whether it has been carried.
pub const SETTLE_SECS: u64 = 60;

/// A site's change-feed workers, in the order they start.
#[derive(Clone, Default)]
pub struct Workers(Vec<(String, ChangeFeedProcessor)>);

impl Workers {
    /// No workers (nothing is ever pending).
    pub fn new() -> Workers {
        Workers::default()
    }

    /// Adds `processor`, built but not started, under `name` (its processor name).
    pub fn with(mut self, name: impl Into<String>, processor: ChangeFeedProcessor) -> Workers {
        self.0.push((name.into(), processor));
        self
    }

    /// Each worker's name and processor (the explorer, tests).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &ChangeFeedProcessor)> {
        self.0.iter().map(|(n, p)| (n.as_str(), p))
    }

    /// The worker named `name`.
    pub fn get(&self, name: &str) -> Option<&ChangeFeedProcessor> {
        self.iter().find(|(n, _)| *n == name).map(|(_, p)| p)
    }

    /// Starts every worker, in order (acquiring leases, creating them on first run).
    pub async fn start(&self) -> cosmos::Result<()> {
        for (_, p) in &self.0 {
            p.start().await?;
        }
        Ok(())
    }

    /// Stops them after their current batches are checkpointed.
    pub async fn stop(&self) {
        for (_, p) in &self.0 {
            p.stop().await;
        }
    }

    /// Changes not yet handled by any of the workers (each processor's own
    /// [`pending`](ChangeFeedProcessor::pending), added up).
    pub async fn pending(&self) -> cosmos::Result<u64> {
        let mut n = 0;
        for (_, p) in &self.0 {
            n += p.pending().await?;
        }
        Ok(n)
    }

    /// Whether a change made at `changed_at` (Unix seconds, as a page's document records it) is
    /// still being carried: the workers' changes up to the end of that second not yet handled
    /// (each processor's [`pending_since`](ChangeFeedProcessor::pending_since), added up). Asked
    /// only within [`SETTLE_SECS`] of the change — a page with no recent change pays nothing,
    /// and on an account the answer is free once the workers have read past it.
    pub async fn pending_after(&self, changed_at: Option<u64>) -> cosmos::Result<u64> {
        let Some(at) = changed_at else { return Ok(0) };
        if crate::pages::time::unix_now().saturating_sub(at) > SETTLE_SECS {
            return Ok(0);
        }
        let since = std::time::UNIX_EPOCH + std::time::Duration::from_secs(at + 1);
        let mut n = 0;
        for (_, p) in &self.0 {
            n += p.pending_since(since).await?;
        }
        Ok(n)
    }

    /// Failed handler attempts of all the workers, and the last error of the first worker (in
    /// start order) that has one.
    pub fn failures(&self) -> (u64, Option<String>) {
        self.0
            .iter()
            .map(|(_, p)| p.failures())
            .fold((0, None), |(n, last), (k, e)| (n + k, last.or(e)))
    }

    /// The last handler error ("" when none): what the admin pages show next to the lag.
    pub fn last_error(&self) -> String {
        self.failures().1.unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use cosmos::{ContainerProperties, StartFrom};
    use serde_json::json;

    use super::Workers;

    #[tokio::test]
    async fn pending_adds_up_every_worker_and_is_zero_once_they_handled_a_change() {
        let (db, _dir) = crate::test_database().await;
        let items = db
            .create_container_if_not_exists(ContainerProperties::new("items", "/pk"))
            .await
            .unwrap();
        let leases = db
            .create_container_if_not_exists(ContainerProperties::new("leases", "/processor"))
            .await
            .unwrap();
        assert_eq!(Workers::new().pending().await.unwrap(), 0);
        let processor = |name: &str| {
            items
                .change_feed_processor(name)
                .lease_container(leases.clone())
                .start_from(StartFrom::Beginning)
                .handler(|_: Vec<serde_json::Value>| async {
                    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
                    Ok::<_, cosmos::Error>(())
                })
                .build()
                .unwrap()
        };
        let workers = Workers::new()
            .with("a", processor("a"))
            .with("b", processor("b"));
        assert_eq!(
            workers.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert!(workers.get("b").is_some() && workers.get("c").is_none());
        workers.start().await.unwrap();
        items
            .create_item(&json!({"id": "1", "pk": "p"}), Some("p".into()), None)
            .await
            .unwrap();
        // While the handlers work (300 ms each), a change just made is pending in both; no
        // change, or one settled long ago, is not asked about at all.
        let now = crate::pages::time::unix_now();
        assert_eq!(workers.pending_after(Some(now)).await.unwrap(), 2);
        assert_eq!(workers.pending_after(None).await.unwrap(), 0);
        let settled = now - super::SETTLE_SECS - 1;
        assert_eq!(workers.pending_after(Some(settled)).await.unwrap(), 0);
        let mut pending = workers.pending().await.unwrap();
        for _ in 0..200 {
            if pending == 0 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            pending = workers.pending().await.unwrap();
        }
        assert_eq!(pending, 0, "both workers handled the change");
        assert_eq!(workers.failures(), (0, None));
        assert_eq!(workers.last_error(), "");
        workers.stop().await;
    }
}
