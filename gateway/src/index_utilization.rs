//! `x-ms-cosmos-index-utilization`: which indexes a query page used, when the request asks with
//! `x-ms-cosmos-populateindexmetrics: true`. The service answers base64 of a JSON object with
//! `UtilizedSingleIndexes`, `PotentialSingleIndexes`, `UtilizedCompositeIndexes` and
//! `PotentialCompositeIndexes` (the SDKs' `IndexUtilizationInfo`; a single index entry is
//! `FilterExpression`, `IndexSpec`, `FilterPreciseSet`, `IndexPreciseSet`, `IndexImpactScore`:
//! azure-sdk-for-js `indexMetrics/SingleIndexUtilizationEntity.ts`, azure-cosmos
//! `_utils.get_index_metrics_info` decodes it).
//!
//! What is reported is what the engine did, read from its plan (`QueryMetrics::plan`, e.g.
//! `stream, exact, logical partitions, index /name =, 1 of 3 partitions`): the partition key,
//! when the page was confined to the logical partitions it names (the service shows that as the
//! key path's index, `/pk/?`, with an empty filter), and the index of the one predicate or ORDER
//! BY path the engine read candidates from. The engine suggests no index, so the potential
//! lists are empty, and it has no composite indexes.

use base64::Engine as _;
use serde_json::{json, Value};

/// The header's value for a page that ran as `metrics` says, in a container keyed by `pk_paths`.
pub fn header_value(metrics: &engine::QueryMetrics, pk_paths: &[String]) -> String {
    let info = utilization(metrics, pk_paths);
    base64::engine::general_purpose::STANDARD.encode(info.to_string())
}

fn single(filter: &str, path: &str, precise: bool) -> Value {
    json!({
        "FilterExpression": filter,
        "IndexSpec": format!("{}/?", path.trim_end_matches('/')),
        "FilterPreciseSet": precise,
        "IndexPreciseSet": true,
        "IndexImpactScore": "High",
    })
}

pub fn utilization(metrics: &engine::QueryMetrics, pk_paths: &[String]) -> Value {
    let mut used = Vec::new();
    if metrics.routed {
        for p in pk_paths {
            used.push(single("", p, true));
        }
    }
    // `index /path =`, `index /path range`, `ordered index /path asc`, `spatial index /path (…)`.
    for part in metrics.plan.split(", ") {
        let Some(at) = part.find("index /") else {
            continue;
        };
        let rest = &part[at + "index ".len()..];
        let (path, how) = rest.split_once(' ').unwrap_or((rest, ""));
        let filter = if part.starts_with("ordered") {
            String::new()
        } else {
            format!("{path} {how}").trim().to_owned()
        };
        used.push(single(&filter, path, metrics_exact(metrics)));
    }
    json!({
        "UtilizedSingleIndexes": used,
        "PotentialSingleIndexes": [],
        "UtilizedCompositeIndexes": [],
        "PotentialCompositeIndexes": [],
    })
}

/// Whether the index alone decided the filter (the plan's `exact`).
fn metrics_exact(metrics: &engine::QueryMetrics) -> bool {
    metrics.plan.split(", ").any(|p| p == "exact")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metrics(plan: &str, routed: bool) -> engine::QueryMetrics {
        engine::QueryMetrics {
            plan: plan.into(),
            routed,
            ..Default::default()
        }
    }

    #[test]
    fn the_plan_names_the_indexes_used() {
        let pk = vec!["/pk".to_owned()];
        let u = utilization(
            &metrics("stream, logical partition scan, 1 of 1 partitions", true),
            &pk,
        );
        assert_eq!(u["UtilizedSingleIndexes"][0]["IndexSpec"], "/pk/?");
        assert_eq!(u["UtilizedSingleIndexes"][0]["FilterExpression"], "");
        assert_eq!(u["UtilizedSingleIndexes"].as_array().unwrap().len(), 1);

        let u = utilization(
            &metrics("stream, exact, index /name =, 3 of 3 partitions", false),
            &pk,
        );
        let used = u["UtilizedSingleIndexes"].as_array().unwrap();
        assert_eq!(used.len(), 1);
        assert_eq!(used[0]["IndexSpec"], "/name/?");
        assert_eq!(used[0]["FilterExpression"], "/name =");
        assert_eq!(used[0]["FilterPreciseSet"], true);

        let u = utilization(&metrics("stream, scan, 3 of 3 partitions", false), &pk);
        assert!(u["UtilizedSingleIndexes"].as_array().unwrap().is_empty());
        assert!(u["PotentialSingleIndexes"].as_array().unwrap().is_empty());

        let u = utilization(
            &metrics("ordered, ordered index /ts desc, 3 of 3 partitions", false),
            &pk,
        );
        assert_eq!(u["UtilizedSingleIndexes"][0]["IndexSpec"], "/ts/?");
    }
}
