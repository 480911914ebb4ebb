//! `/metrics` in the Prometheus text format, through the `metrics` facade and
//! `metrics-exporter-prometheus`: the sites' request counts, latency and RU histograms (recorded
//! by sitekit on every request) and the engine's state per container and physical partition,
//! read from the engine's in-memory meters at each scrape.

use std::sync::OnceLock;
use std::time::Duration;

use metrics::{counter, describe_counter, describe_gauge, describe_histogram, gauge, Unit};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use sitekit::http::telemetry;

use crate::inspect::{changefeed, partitions};
use crate::Explorer;

const LATENCY_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
];
const RU_BUCKETS: &[f64] = &[
    1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0,
];

/// The process's recorder, installed once (the facade is global). Should another recorder be
/// installed already, `/metrics` still renders this one's engine metrics.
pub fn install() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let builder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Full(telemetry::DURATION.into()), LATENCY_BUCKETS)
                .and_then(|b| {
                    b.set_buckets_for_metric(Matcher::Full(telemetry::CHARGE.into()), RU_BUCKETS)
                })
                .expect("bucket lists are not empty");
            let recorder = builder.build_recorder();
            let handle = recorder.handle();
            if metrics::set_global_recorder(recorder).is_err() {
                tracing::warn!("a metrics recorder was already installed; /metrics misses it");
            }
            describe();
            // Histograms are merged by upkeep; without it they would grow between scrapes.
            let upkeep = handle.clone();
            std::thread::Builder::new()
                .name("metrics-upkeep".into())
                .spawn(move || loop {
                    std::thread::sleep(Duration::from_secs(5));
                    upkeep.run_upkeep();
                })
                .expect("a thread starts");
            handle
        })
        .clone()
}

fn describe() {
    describe_counter!(telemetry::REQUESTS, "HTTP requests answered by the sites");
    describe_histogram!(
        telemetry::DURATION,
        Unit::Seconds,
        "HTTP request latency by site and route"
    );
    describe_histogram!(
        telemetry::CHARGE,
        "Request units per HTTP request (x-ms-request-charge)"
    );
    describe_counter!(
        "engine_request_units_total",
        "RU consumed per container and physical partition"
    );
    describe_counter!(
        "engine_requests_total",
        "Requests charged per container and physical partition"
    );
    describe_counter!(
        "engine_throttled_requests_total",
        "429s answered per container and physical partition"
    );
    describe_gauge!(
        "engine_request_units_per_second",
        "RU/s per physical partition, averaged over the last minute"
    );
    describe_gauge!(
        "engine_partition_budget_request_units_per_second",
        "Each physical partition's share of the provisioned throughput"
    );
    describe_gauge!(
        "engine_storage_bytes",
        Unit::Bytes,
        "Bytes stored per physical partition"
    );
    describe_gauge!("engine_items", "Items stored per physical partition");
    describe_gauge!(
        "engine_change_feed_lag",
        "Changes committed but not yet handled, per change-feed processor"
    );
    describe_counter!(
        "engine_change_feed_delivered_total",
        "Changes delivered to each change-feed processor's handler"
    );
    describe_counter!(
        "engine_change_feed_failures_total",
        "Failed handler attempts per change-feed processor (the last error is on /changefeed)"
    );
}

/// Brings the engine's figures up to date and renders everything.
pub async fn render(explorer: &Explorer) -> String {
    for c in partitions::all(&explorer.engine) {
        for p in &c.partitions {
            let labels = [
                ("database", c.database.clone()),
                ("container", c.container.clone()),
                ("partition", p.id.to_string()),
            ];
            counter!("engine_request_units_total", &labels).absolute(p.ru_total.round() as u64);
            counter!("engine_requests_total", &labels).absolute(p.requests);
            counter!("engine_throttled_requests_total", &labels).absolute(p.throttled);
            gauge!("engine_request_units_per_second", &labels).set(p.ru_per_s);
            if let Some(b) = p.budget {
                gauge!("engine_partition_budget_request_units_per_second", &labels).set(b);
            }
            gauge!("engine_storage_bytes", &labels).set(p.bytes as f64);
            gauge!("engine_items", &labels).set(p.items as f64);
        }
    }
    for p in changefeed::processors(&explorer.engine, false).await {
        if let changefeed::Processor::Status { status: s, .. } = p {
            let labels = [
                ("processor", s.name.clone()),
                ("database", s.database.clone()),
                ("container", s.container.clone()),
            ];
            gauge!("engine_change_feed_lag", &labels).set(s.lag() as f64);
            counter!("engine_change_feed_delivered_total", &labels).absolute(s.delivered);
            counter!("engine_change_feed_failures_total", &labels).absolute(s.failures);
        }
    }
    explorer.prometheus.render()
}
