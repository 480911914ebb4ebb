//! Whether a query reaches one logical partition, asked of a container's partition key by the
//! gateway (to serve it without `enablecrosspartition`). It plans the query, so it lives in
//! `sql`, above `partition` (DESIGN.md's layers), as an `impl` of the key's definition.

use serde_json::Value;

use crate::partition::PartitionKeyDefinition;

impl PartitionKeyDefinition {
    /// Whether `sql`'s filter fixes one whole partition key (every path equal to one value):
    /// such a query reaches one logical partition, which the service serves without
    /// `x-ms-documentdb-query-enablecrosspartition` (the SDKs call it a single-partition query
    /// when its query ranges are one single value). A query that does not parse is not.
    pub fn pins_one_key(&self, sql: &str, params: &[(String, Value)]) -> bool {
        let (Ok(q), Ok(paths)) = (super::parser::parse(sql), self.all_segments()) else {
            return false;
        };
        let params: super::eval::Params = params.iter().cloned().collect();
        let Ok(plan) = super::plan::plan(&q, &params, &paths) else {
            return false;
        };
        // One path: one value (an IN of several is several keys). A hierarchical key: a value
        // for each path (fewer is a prefix, which spans logical partitions).
        let wanted = if paths.len() == 1 { 1 } else { paths.len() };
        plan.partition_values
            .is_some_and(|values| values.len() == wanted)
    }
}
