//! Per-request and per-engine options.

use std::time::Duration;

use crate::storage::StorageOptions;

/// Options of one item operation (Cosmos DB's `ItemRequestOptions`).
#[derive(Debug, Clone)]
pub struct ItemOptions {
    /// Optimistic concurrency: the write applies only if the item's etag still equals this.
    pub if_match_etag: Option<String>,
    /// Return the written item (default). Turning it off saves the deserialization.
    pub enable_content_response_on_write: bool,
    /// Registered pre-triggers to run before the write, by name.
    pub pre_triggers: Vec<String>,
    /// Registered post-triggers to run after the write, in its transaction, by name.
    pub post_triggers: Vec<String>,
    /// Cosmos DB's indexing directive `Exclude` on a create, upsert or replace: the item is
    /// stored but left out of the index (queries that use it do not find the item; a point
    /// read does). A later write without it indexes the item again.
    pub exclude_from_index: bool,
}

impl Default for ItemOptions {
    fn default() -> Self {
        ItemOptions {
            if_match_etag: None,
            enable_content_response_on_write: true,
            pre_triggers: Vec::new(),
            post_triggers: Vec::new(),
            exclude_from_index: false,
        }
    }
}

impl ItemOptions {
    /// Options running the named pre- and post-triggers.
    pub fn with_triggers(pre: &[&str], post: &[&str]) -> Self {
        ItemOptions {
            pre_triggers: pre.iter().map(|s| s.to_string()).collect(),
            post_triggers: post.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    pub fn if_match(etag: impl Into<String>) -> Self {
        ItemOptions {
            if_match_etag: Some(etag.into()),
            ..Default::default()
        }
    }
}

/// How the client handles 429s, as the Cosmos SDKs' `RetryOptions` do.
#[derive(Debug, Clone)]
pub struct RetryOptions {
    /// Retries of a throttled request before its 429 is returned (SDK default: 9).
    pub max_retry_attempts_on_throttled: u32,
    /// Total time a request may spend waiting on 429s (SDK default: 30 s).
    pub max_retry_wait: Duration,
}

impl Default for RetryOptions {
    fn default() -> Self {
        RetryOptions {
            max_retry_attempts_on_throttled: 9,
            max_retry_wait: Duration::from_secs(30),
        }
    }
}

#[derive(Debug, Clone)]
pub struct EngineOptions {
    pub storage: StorageOptions,
    /// Physical partitions of a new container unless its properties say otherwise.
    pub initial_partitions: u32,
    /// A physical partition splits when it stores more than this (Cosmos DB: 50 GB).
    pub split_threshold_bytes: u64,
    /// Largest logical partition (Cosmos DB: 20 GB).
    pub max_logical_partition_bytes: u64,
    /// Most requests the writer commits in one transaction.
    pub max_group: usize,
    pub retry: RetryOptions,
    /// Limits of one stored procedure or trigger execution.
    pub script_budget: crate::scripts::ScriptBudget,
    /// Work one query page may do before returning with a continuation.
    pub query_page_max_request_units: f64,
    pub query_page_max_duration: Duration,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            storage: StorageOptions::default(),
            initial_partitions: 1,
            split_threshold_bytes: 50 << 30,
            max_logical_partition_bytes: 20 << 30,
            max_group: 512,
            retry: RetryOptions::default(),
            script_budget: crate::scripts::ScriptBudget::default(),
            query_page_max_request_units: 1000.0,
            query_page_max_duration: Duration::from_millis(500),
        }
    }
}
