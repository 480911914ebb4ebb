//! The status of change-feed processors as a status page reads it: every processor of the
//! engine, its leases with checkpoints and lag, what it delivered and its last error.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use engine::{ChangeFeedStart, ContainerProperties, EngineOptions};
use serde_json::json;

#[test]
fn processors_report_leases_checkpoints_lag_and_their_last_error() {
    common::rt().block_on(async {
        let t = common::open(EngineOptions {
            initial_partitions: 2,
            ..Default::default()
        });
        let source = common::container(&t, ContainerProperties::new("posts", "/postId")).await;
        let leases = common::container(&t, ContainerProperties::new("leases", "/processor")).await;
        assert!(t.engine.change_feed_processors().is_empty());
        let failing = Arc::new(AtomicBool::new(true));
        let f = failing.clone();
        let processor = source
            .change_feed_processor("copyPosts")
            .lease_container(leases.clone())
            .start_from(ChangeFeedStart::Beginning)
            .max_backoff(Duration::from_millis(20))
            .on_error(|_| {})
            .handler(move |_| {
                let fail = f.load(Ordering::SeqCst);
                async move {
                    if fail {
                        Err("the view is down")
                    } else {
                        Ok(())
                    }
                }
            })
            .build()
            .unwrap();
        for i in 0..10 {
            source
                .create_item(
                    &json!({"id": format!("p{i}"), "postId": format!("p{i}")}),
                    None,
                    None,
                )
                .await
                .unwrap();
        }
        processor.start().await.unwrap();

        let all = t.engine.change_feed_processors();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].name(), "copyPosts");
        let mut status = all[0].status().await.unwrap();
        for _ in 0..200 {
            if status.last_error.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
            status = processor.status().await.unwrap();
        }
        assert!(status.running);
        assert_eq!(
            (status.database.as_str(), status.container.as_str()),
            ("test", "posts")
        );
        assert_eq!(status.lease_container, "leases");
        assert_eq!(status.leases.len(), 2, "one lease per physical partition");
        assert_eq!(status.lag(), 10, "nothing handled yet");
        assert_eq!(status.last_error.as_deref(), Some("the view is down"));
        assert!(status.failures > 0);

        failing.store(false, Ordering::SeqCst);
        for _ in 0..500 {
            status = processor.status().await.unwrap();
            if status.lag() == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(status.lag(), 0);
        assert_eq!(status.delivered, 10);
        assert!(status.leases.iter().all(|l| l.checkpointed_at.is_some()));
        let checkpointed: u64 = status
            .leases
            .iter()
            .flat_map(|l| l.checkpoints.iter().map(|c| c.lsn))
            .sum();
        assert_eq!(
            checkpointed, 10,
            "each partition checkpointed at its last LSN"
        );

        processor.stop().await;
        assert!(!processor.status().await.unwrap().running);
        drop((all, processor));
        assert!(
            t.engine.change_feed_processors().is_empty(),
            "forgotten once dropped"
        );
    });
}
