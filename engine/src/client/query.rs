//! Queries: `query_items` reads one page, `query_all` every page (Cosmos DB's query iterator).

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::container::ContainerClient;
use super::response::{Diagnostics, FeedResponse};
use super::rows;
use crate::error::{Error, Failed, Result};
use crate::partition::PartitionKey;
use crate::ru::Meter;
use crate::sql::run::{self, PageBudget, PageRequest, QueryMetrics};
use crate::sql::{self, Params};

/// For queries without parameters: `c.query_all::<Value>(sql, NO_PARAMS, options)`.
pub const NO_PARAMS: &[(&str, Value)] = &[];

/// Options of a query (Cosmos DB's `QueryRequestOptions`).
#[derive(Debug, Clone, Default)]
pub struct QueryOptions {
    /// Confines the query to one logical partition (no fan-out).
    pub partition_key: Option<PartitionKey>,
    /// Most results per page (default 100).
    pub max_item_count: Option<usize>,
    /// Where the previous page stopped.
    pub continuation: Option<String>,
    /// Work a page may do before it returns with a continuation (default: the engine's).
    pub max_request_units_per_page: Option<f64>,
    pub max_duration_per_page: Option<Duration>,
    /// Only items whose Cosmos DB EPK lies in this range (the REST API's `x-ms-start-epk` /
    /// `x-ms-end-epk`: a feed range, or a hierarchical prefix as the Python SDK names it).
    /// Every partition is visited: the engine places items by a hash of its own.
    pub epk_range: Option<crate::EpkRange>,
}

/// Whether `sql` parses, and where it does not (line, column, what was expected): for editors
/// that point at the error before running anything.
pub fn check_query(sql: &str) -> std::result::Result<(), crate::sql::QueryError> {
    crate::sql::parse(sql).map(|_| ())
}

/// Runs `sql` with `params` over `values` held in memory rather than a container: the gateway
/// answers its offers feed this way, so an SDK's query selects exactly the offers it names.
/// Bounded like a page (`bounds.rs`): a second at most.
pub fn query_values(
    sql: &str,
    params: &[(String, Value)],
    values: Vec<Value>,
) -> Result<Vec<Value>> {
    let q = crate::sql::parse(sql)?;
    let params: crate::sql::Params = params.iter().cloned().collect();
    crate::sql::check_params(&q, &params)?;
    let deadline = std::time::Instant::now() + Duration::from_secs(1);
    Ok(crate::sql::bounds::with_deadline(deadline, || {
        crate::sql::execute(&q, &params, values)
    })?)
}

impl ContainerClient {
    /// Runs one page of `sql` with `params` (`@name` → value).
    pub async fn query_items<T: DeserializeOwned + Send + 'static>(
        &self,
        sql: &str,
        params: &[(impl AsRef<str>, Value)],
        options: QueryOptions,
    ) -> Result<FeedResponse<T>> {
        Ok(self.query_page(sql, params, options).await?)
    }

    /// [`Self::query_items`], failing with its charge: a page that fails after reading (its
    /// hard time limit, a runtime error of the evaluator) costs what it read.
    pub(crate) async fn query_page<T: DeserializeOwned + Send + 'static>(
        &self,
        sql: &str,
        params: &[(impl AsRef<str>, Value)],
        options: QueryOptions,
    ) -> Result<FeedResponse<T>, Failed> {
        let query = self.parsed(sql)?;
        let params: Params = params
            .iter()
            .map(|(k, v)| (k.as_ref().to_owned(), v.clone()))
            .collect();
        for k in params.keys() {
            if !k.starts_with('@') {
                return Err(Error::bad(
                    "parameters",
                    format!("parameter names start with @: '{k}'"),
                )
                .into());
            }
        }
        sql::check_params(&query, &params)?;
        let qhash = run::query_hash(sql, &params);
        let shape = crate::blocking::shape_of(&self.database, &self.id, sql);
        let shared = self.shared()?;
        let engine_opts = &self.engine.inner.opts;
        let budget = PageBudget {
            max_items: options.max_item_count.unwrap_or(100).max(1),
            max_request_units: options
                .max_request_units_per_page
                .unwrap_or(engine_opts.query_page_max_request_units),
            max_duration: options
                .max_duration_per_page
                .unwrap_or(engine_opts.query_page_max_duration),
        };
        let ((page, items), retries) = self
            .retrying(|| {
                let (me, shared, query, params, options) = (
                    self.clone(),
                    shared.clone(),
                    query.clone(),
                    params.clone(),
                    options.clone(),
                );
                // A query confined to one logical partition is the cheap kind (and what a
                // 1 RU page makes): it must not queue behind fan-outs.
                let routed = options.partition_key.is_some();
                crate::blocking::query_page(routed, qhash, shape, move || {
                    // Every partition the query will visit admits it as a request of its own:
                    // one hot partition throttles a fan-out.
                    let def = shared.def.load_full();
                    let visits = match &options.partition_key {
                        Some(pk) => {
                            let (lo, hi) = def.partition_key.scope(pk)?.coordinates();
                            def.partitions.indexes_overlapping(lo, hi)
                        }
                        None => 0..=def.partitions.len() - 1,
                    };
                    let visited: Vec<u32> =
                        visits.map(|i| def.partitions.partitions[i].id).collect();
                    for pp in &visited {
                        shared.throughput.admit(*pp)?;
                    }
                    let functions = crate::scripts::Scripts::of(&shared)
                        .read()
                        .functions
                        .clone();
                    let deadline = std::time::Instant::now() + budget.hard_limit();
                    let (page, udf) =
                        crate::scripts::js::udf::with_functions(functions, deadline, || {
                            me.engine.inner.store.read(|rtxn| {
                                let def = me.definition_in(rtxn)?;
                                // `c.<computed property>` becomes its expression.
                                let resolved =
                                    crate::sql::computed::resolve(&def.computed()?, &query);
                                let req = PageRequest {
                                    q: resolved.as_ref().unwrap_or(&query),
                                    qhash,
                                    params: &params,
                                    partition_key: options.partition_key.as_ref(),
                                    epk_range: options.epk_range.as_ref(),
                                    budget,
                                    continuation: options.continuation.as_deref(),
                                    decode: rows::decode_stored::<T>,
                                };
                                // The page's own failure keeps its charge (the outer
                                // `Result` is the read transaction's).
                                Ok(run::run_page(&me.engine.inner.store, rtxn, &def, req))
                            })
                        });
                    match page.map_err(Failed::from).and_then(|p| p) {
                        Ok(mut p) => {
                            p.meter.udf_calls += udf.calls;
                            p.meter.script_ticks += udf.ticks;
                            // The rows as `T` here too, off the caller's async thread.
                            let items = rows::into_items::<T>(std::mem::take(&mut p.rows));
                            Ok((p, items))
                        }
                        Err(mut f) => {
                            f.meter_mut().udf_calls += udf.calls;
                            f.meter_mut().script_ticks += udf.ticks;
                            // Spread over the partitions it was admitted to: none knows its
                            // share of a page that did not finish.
                            let share = f.request_charge() / visited.len().max(1) as f64;
                            for pp in &visited {
                                shared.throughput.charge(*pp, share);
                            }
                            Err(f)
                        }
                    }
                })
            })
            .await?;
        let charge = page.meter.charge();
        // Each partition's budget pays for its own share (a fan-out can be throttled by one hot
        // partition), scaled so the shares add up to the page's charge.
        let shares: f64 = page
            .metrics
            .partitions
            .iter()
            .map(|c| c.request_charge)
            .sum();
        for c in &page.metrics.partitions {
            let share = if shares > 0.0 {
                c.request_charge / shares
            } else {
                0.0
            };
            shared.throughput.charge(c.partition, charge * share);
        }
        let items = items?;
        let mut diagnostics = Diagnostics::from_meter(&page.meter, page.partitions);
        diagnostics.throttle_retries = retries;
        Ok(FeedResponse {
            items,
            request_charge: charge,
            continuation: page.continuation,
            diagnostics,
            query_metrics: Some(page.metrics),
        })
    }

    /// Runs `sql` to the end, page after page; the charge and metrics are the sums.
    pub async fn query_all<T: DeserializeOwned + Send + 'static>(
        &self,
        sql: &str,
        params: &[(impl AsRef<str>, Value)],
        options: QueryOptions,
    ) -> Result<FeedResponse<T>> {
        Ok(self.query_all_charged(sql, params, options).await?)
    }

    /// [`Self::query_all`], failing with the charge of every page it ran, the failed one too.
    pub(crate) async fn query_all_charged<T: DeserializeOwned + Send + 'static>(
        &self,
        sql: &str,
        params: &[(impl AsRef<str>, Value)],
        options: QueryOptions,
    ) -> Result<FeedResponse<T>, Failed> {
        let mut opts = options;
        let mut items = Vec::new();
        let mut charge = 0.0;
        let mut meter = Meter::default();
        let mut partitions = Vec::new();
        let mut metrics = QueryMetrics::default();
        loop {
            let page = match self.query_page::<T>(sql, params, opts.clone()).await {
                Ok(page) => page,
                Err(f) => return Err(f.after(charge)),
            };
            charge += page.request_charge;
            items.extend(page.items);
            for p in page.diagnostics.partitions {
                if !partitions.contains(&p) {
                    partitions.push(p);
                }
            }
            meter.items_scanned += page.diagnostics.items_scanned;
            if let Some(m) = page.query_metrics {
                metrics.retrieved_document_count += m.retrieved_document_count;
                metrics.retrieved_document_size += m.retrieved_document_size;
                metrics.output_document_count += m.output_document_count;
                metrics.index_lookups += m.index_lookups;
                metrics.execution_time_ms += m.execution_time_ms;
                metrics.plan = m.plan;
                metrics.routed = m.routed;
                for c in m.partitions {
                    match metrics
                        .partitions
                        .iter_mut()
                        .find(|x| x.partition == c.partition)
                    {
                        Some(x) => {
                            x.items_read += c.items_read;
                            x.bytes_read += c.bytes_read;
                            x.index_entries_read += c.index_entries_read;
                            x.request_charge =
                                ((x.request_charge + c.request_charge) * 100.0).round() / 100.0;
                        }
                        None => metrics.partitions.push(c),
                    }
                }
            }
            match page.continuation {
                Some(c) => opts.continuation = Some(c),
                None => break,
            }
        }
        metrics.partitions_visited = partitions.len();
        metrics.index_hit_ratio = if metrics.retrieved_document_count == 0 {
            1.0
        } else {
            (metrics.output_document_count as f64 / metrics.retrieved_document_count as f64)
                .min(1.0)
        };
        let mut diagnostics = Diagnostics::from_meter(&meter, partitions);
        diagnostics.items_scanned = meter.items_scanned;
        Ok(FeedResponse {
            items,
            request_charge: (charge * 100.0).round() / 100.0,
            continuation: None,
            diagnostics,
            query_metrics: Some(metrics),
        })
    }
}
