//! `GET /models`: the article's V1/V2/V3 table beside what this instance measured for the same
//! requests, as a table and a chart; `POST /models/measure` runs the read sample.

use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;
use serde::Deserialize;

use crate::comparison::{article, chart, sample, Measurements, Request, Stat, VERSIONS};
use crate::startup::SeededUsers;
use sitekit::csrf::CsrfForm;
use sitekit::layout::{html, see_other};
use sitekit::{Ctx, Page, WebError};

pub struct Cell {
    pub version: &'static str,
    pub measured: Option<Stat>,
    pub article: Option<(f64, f64)>,
}

pub struct Row {
    pub request: Request,
    pub cells: Vec<Cell>,
}

#[derive(Template)]
#[template(path = "blog/models.html")]
struct ModelsPage {
    page: Page,
    rows: Vec<Row>,
    chart: String,
    users: u64,
    sample_users: u64,
}

pub async fn models(
    ctx: Ctx,
    measurements: web::Data<Measurements>,
    users: web::Data<SeededUsers>,
) -> Result<HttpResponse, WebError> {
    let rows = Request::ALL
        .iter()
        .map(|&request| Row {
            request,
            cells: VERSIONS
                .iter()
                .map(|&version| Cell {
                    version,
                    measured: measurements.get(version, request),
                    article: article::published(version, request),
                })
                .collect(),
        })
        .collect();
    html(&ModelsPage {
        page: ctx.page("V1, V2 and V3 measured"),
        rows,
        chart: chart::svg(&measurements),
        users: users.0,
        sample_users: sample::SAMPLE_USERS,
    })
}

#[derive(Deserialize)]
pub struct Empty {}

pub async fn measure(
    ctx: Ctx,
    req: HttpRequest,
    users: web::Data<SeededUsers>,
    _form: CsrfForm<Empty>,
) -> Result<HttpResponse, WebError> {
    sample::run(&req, users.0).await?;
    ctx.flash("Measured Q1–Q6 on every model.");
    Ok(see_other("/models"))
}
