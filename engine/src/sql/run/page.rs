//! A finished run as the page handed back: its rows, its continuation and what it cost.

use super::super::plan::Mode;
use super::mode::Execution;
use super::{is_routed, Page, Run, Target, Token};

impl<'a> Run<'a> {
    /// The page, with its continuation (`None` once the query is complete) and its metrics.
    pub(super) fn into_page(
        mut self,
        execution: &Execution,
        targets: &[Target],
        pk_path: &[String],
        continuation: Option<Token>,
    ) -> Page {
        let plan = self.describe_plan(execution, targets, pk_path);
        // Every partition visited ran the query as a request of its own: each pays the base.
        self.meter.queries = self.billed_partitions();
        let unbilled: Vec<u32> = self
            .visited
            .iter()
            .copied()
            .filter(|p| !self.billed(*p))
            .collect();
        for c in &mut self.costs {
            c.charge();
            if unbilled.contains(&c.partition) {
                c.request_charge = (c.request_charge - crate::ru::rate::QUERY).max(0.0);
            }
        }
        let mut metrics = self.metrics;
        metrics.output_document_count = self.rows.len() as u64;
        metrics.partitions_visited = self.visited.len();
        metrics.partitions = self.costs;
        metrics.routed = is_routed(targets);
        metrics.index_hit_ratio = if metrics.retrieved_document_count == 0 {
            1.0
        } else {
            self.matched_docs as f64 / metrics.retrieved_document_count as f64
        };
        metrics.plan = plan;
        metrics.execution_time_ms = self.started.elapsed().as_secs_f64() * 1000.0;
        Page {
            rows: self.rows,
            continuation: continuation.map(|t| t.encode()),
            meter: self.meter,
            metrics,
            partitions: self.visited,
        }
    }

    /// The partitions visited that pay a query base, at least one.
    pub(super) fn billed_partitions(&self) -> u64 {
        self.visited
            .iter()
            .filter(|p| self.billed(**p))
            .count()
            .max(1) as u64
    }

    /// Whether a visit of partition `pp` pays the query base: not when the request names a
    /// Cosmos EPK range (one partition key range, as the SDKs send a cross-partition query
    /// range by range) that `pp`'s own range does not overlap. Under Cosmos placement a
    /// partition's first coordinate can hold the last EPKs of the range before it (a partition
    /// starts at an EPK that falls inside a coordinate, `PartitionMap::new`), so such a request
    /// visits the next partition for that sliver; on Azure Cosmos DB the range is one physical
    /// partition and one request, with one base.
    fn billed(&self, pp: u32) -> bool {
        let Some(range) = self.epk_range else {
            return true;
        };
        if self.def.partition_key.placement != crate::Placement::Cosmos {
            return true;
        }
        let map = &self.def.partitions;
        map.partitions
            .iter()
            .position(|p| p.id == pp)
            .is_none_or(|i| {
                crate::partition::cosmos::range_of(&self.def.partition_key, map, i).overlaps(range)
            })
    }

    /// How the page ran, as `QueryMetrics::plan` tells it: mode, exactness, access, partitions.
    fn describe_plan(
        &self,
        execution: &Execution,
        targets: &[Target],
        pk_path: &[String],
    ) -> String {
        let mode = match execution.mode {
            Mode::Stream => "stream",
            Mode::Ordered { .. } => "ordered",
            Mode::Whole if self.counting => "count",
            Mode::Whole => "whole",
        };
        let exact = if self.exact || self.counting {
            ", exact"
        } else {
            ""
        };
        format!(
            "{mode}{exact}, {}, {} of {} partitions",
            self.describe_access(execution, targets, pk_path),
            targets.len(),
            self.def.partitions.len()
        )
    }

    /// Where the candidates came from: the order index, routed logical partitions, an index
    /// predicate or a scan.
    fn describe_access(
        &self,
        execution: &Execution,
        targets: &[Target],
        pk_path: &[String],
    ) -> String {
        let access = match (&execution.order_index, is_routed(targets)) {
            (Some(ix), _) => ix.describe.clone(),
            (_, routed) => match (self.access_for(routed, pk_path), routed) {
                (Some(p), true) => format!("logical partitions, {}", p.describe()),
                (None, true) => "logical partition scan".into(),
                (Some(p), false) => p.describe(),
                (None, false) => "scan".into(),
            },
        };
        // A hierarchical prefix reads only its range of each partition it visits.
        if targets.iter().any(|t| t.narrowed) {
            format!("key prefix range, {access}")
        } else {
            access
        }
    }
}
