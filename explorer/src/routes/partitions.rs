//! Physical partitions drawn as SVG: every container's RU/s heat map (the hottest first), and
//! one container's partitions with storage, items, load and largest logical partitions.

use actix_web::{web, HttpResponse};
use askama::Template;
use serde::Deserialize;
use sitekit::pages::layout::html;
use sitekit::pages::paging::url_escape;
use sitekit::{Ctx, Page};

use crate::inspect::catalog::LogicalPartition;
use crate::inspect::partitions::{self, ContainerLoad};
use crate::inspect::{self};
use crate::svg::{self, Bar, HeatRow, Scale};
use crate::{Explorer, ExplorerError};

/// Logical partitions listed per physical partition.
const LARGEST: usize = 5;

#[derive(Deserialize)]
pub struct Refresh {
    /// Reload the page every this many seconds (during a load test).
    refresh: Option<u32>,
}

/// A container's load with its chart, for the templates.
pub struct Chart {
    pub load: ContainerLoad,
    pub url: String,
    pub heat_map: String,
}

impl Chart {
    fn of(load: ContainerLoad) -> Chart {
        let rows: Vec<HeatRow> = load
            .partitions
            .iter()
            .map(|p| HeatRow {
                label: format!("partition {}", p.id),
                values: &p.ru_per_second,
            })
            .collect();
        // Red means "at budget" only where there is one; without, the busiest second is red.
        let max = load.peak().max(1.0);
        let scale = match load.partitions.iter().find_map(|p| p.budget) {
            Some(b) => format!("the partition's budget, {b:.0} RU/s"),
            None => format!("the busiest second ({max:.0} RU/s): no budget, throughput unlimited"),
        };
        let heat_map = svg::heat_map(
            &rows,
            max,
            &scale,
            &format!("RU per second of {}'s partitions", load.container),
        );
        Chart {
            url: super::container_url(&load.database, &load.container),
            heat_map,
            load,
        }
    }
}

#[derive(Template)]
#[template(path = "explorer/partitions.html")]
struct AllPartitions {
    page: Page,
    writes: bool,
    refresh: Option<u32>,
    charts: Vec<Chart>,
}

pub async fn all(
    ctx: Ctx,
    x: web::Data<Explorer>,
    q: web::Query<Refresh>,
) -> Result<HttpResponse, ExplorerError> {
    let mut loads = partitions::all(&x.engine);
    // The hottest containers first: where to look during a load test.
    loads.sort_by(|a, b| b.ru_per_s().total_cmp(&a.ru_per_s()));
    Ok(html(&AllPartitions {
        writes: x.options.writes,
        refresh: q.refresh.map(|r| r.max(1)),
        charts: loads.into_iter().map(Chart::of).collect(),
        page: ctx.page("Partitions"),
    })?)
}

#[derive(Template)]
#[template(path = "explorer/container_partitions.html")]
struct ContainerPartitions {
    page: Page,
    writes: bool,
    refresh: Option<u32>,
    chart: Chart,
    storage: String,
    load: String,
    largest: Vec<(u32, String, Vec<LogicalPartition>)>,
}

impl ContainerPartitions {
    fn escape(&self, s: &str) -> String {
        url_escape(s)
    }
}

pub async fn container(
    ctx: Ctx,
    x: web::Data<Explorer>,
    path: web::Path<(String, String)>,
    q: web::Query<Refresh>,
) -> Result<HttpResponse, ExplorerError> {
    let (db, coll) = path.into_inner();
    let (c, def) = inspect::container(&x.engine, &db, &coll)?;
    let load = partitions::load(&c, &def)?;
    let bar = |label: String, value: f64, note: String| Bar {
        label,
        value,
        note,
        alarm: false,
    };
    let storage = svg::bars(
        &load
            .partitions
            .iter()
            .map(|p| {
                let note = format!("{} bytes, {} items", p.bytes, p.items);
                bar(format!("partition {}", p.id), p.bytes as f64, note)
            })
            .collect::<Vec<_>>(),
        Scale::Largest,
        "Storage per physical partition",
    );
    let load_bars = svg::bars(
        &load
            .partitions
            .iter()
            .map(|p| {
                let note = format!(
                    "{:.1} RU/s, {} × 429 in the last minute",
                    p.ru_per_s, p.throttled_last_minute
                );
                Bar {
                    alarm: p.throttled_last_minute > 0,
                    ..bar(format!("partition {}", p.id), p.ru_per_s, note)
                }
            })
            .collect::<Vec<_>>(),
        // Against the partition's budget when throughput is provisioned, else the busiest second.
        Scale::Heat {
            full: load
                .partitions
                .iter()
                .find_map(|p| p.budget)
                .unwrap_or_else(|| load.peak())
                .max(1.0),
        },
        "RU/s per physical partition over the last minute",
    );
    let largest = partitions::largest(&c, LARGEST)
        .await?
        .into_iter()
        .map(|(id, lps)| {
            let chart = svg::bars(
                &lps.iter()
                    .map(|l| {
                        bar(
                            l.key.clone(),
                            l.bytes as f64,
                            format!("{} bytes, {} items", l.bytes, l.items),
                        )
                    })
                    .collect::<Vec<_>>(),
                Scale::Largest,
                &format!("Largest logical partitions of partition {id}"),
            );
            (id, chart, lps)
        })
        .collect();
    Ok(html(&ContainerPartitions {
        writes: x.options.writes,
        refresh: q.refresh.map(|r| r.max(1)),
        chart: Chart::of(load),
        storage,
        load: load_bars,
        largest,
        page: ctx.page(format!("Partitions of {coll}")),
    })?)
}
