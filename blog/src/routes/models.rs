//! `GET /models`: the article's V1/V2/V3 table beside what this instance measured for the same
//! requests, as a table and a chart; `POST /models/measure` runs the read sample.

use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;

use crate::comparison::{article, chart, sample, Measurements, Request, Stat, VERSIONS};
use crate::seed::SeededUsers;
use sitekit::accounts::csrf::{CsrfForm, Empty};
use sitekit::accounts::throttle::ExpensiveLimit;
use sitekit::pages::layout::{html, see_other};
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

/// The table; on a fresh start (nothing measured yet) the first view runs the read sample once,
/// so a newcomer sees figures rather than a column of dashes.
pub async fn models(
    ctx: Ctx,
    req: HttpRequest,
    measurements: web::Data<Measurements>,
    users: web::Data<SeededUsers>,
) -> Result<HttpResponse, WebError> {
    if measurements.claim_first_sample() {
        charge_to_this_request(&sample::run(&req, users.0).await?);
    }
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

/// `GET /models.json`: the same table for scripts (`loadtest/models.sh` writes it as Markdown).
pub async fn models_json(
    measurements: web::Data<Measurements>,
    users: web::Data<SeededUsers>,
) -> HttpResponse {
    let rows: Vec<serde_json::Value> = Request::ALL
        .iter()
        .map(|&request| {
            let models: serde_json::Map<String, serde_json::Value> = VERSIONS
                .iter()
                .map(|&version| {
                    let m = measurements.get(version, request);
                    let a = article::published(version, request);
                    (
                        version.to_owned(),
                        serde_json::json!({
                            "requests": m.map(|m| m.count),
                            "ru": m.map(|m| (m.ru_mean() * 100.0).round() / 100.0),
                            "ruMax": m.map(|m| m.ru_max),
                            "ms": m.map(|m| (m.ms_mean() * 100.0).round() / 100.0),
                            "articleRu": a.map(|a| a.1),
                            "articleMs": a.map(|a| a.0),
                        }),
                    )
                })
                .collect();
            serde_json::json!({"request": request.code(), "title": request.title(), "models": models})
        })
        .collect();
    HttpResponse::Ok().json(serde_json::json!({"users": users.0, "requests": rows}))
}

/// Measuring costs thousands of RU: signed-in users only (and metered per account).
pub async fn measure(
    ctx: Ctx,
    limit: web::Data<ExpensiveLimit>,
    req: HttpRequest,
    users: web::Data<SeededUsers>,
    _form: CsrfForm<Empty>,
) -> Result<HttpResponse, WebError> {
    let me = ctx.require_user()?;
    limit.take_for(Some(me), &req)?;
    let spent = sample::run(&req, users.0).await?;
    charge_to_this_request(&spent);
    ctx.flash(format!(
        "Measured Q1–Q6 on every model: {} requests, {:.2} RU.",
        spent.calls().len(),
        spent.total()
    ));
    Ok(see_other("/models"))
}

/// A sample run's cost is the request's that ran it: added up per routing on its ledger, it is
/// the page's footer (the first view) or the "last action" the page a form post redirects to
/// shows, and the response's x-ms-request-charge.
fn charge_to_this_request(spent: &cosmos::RequestCharge) {
    if let Some(ledger) = cosmos::ledger::current() {
        for row in sample::summary(spent) {
            ledger.record(row);
        }
    }
}
