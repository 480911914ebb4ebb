//! Stored procedures and triggers: the list, and running a procedure (a write).

use actix_web::{web, HttpResponse};
use askama::Template;
use serde::Deserialize;
use sitekit::accounts::csrf::CsrfForm;
use sitekit::pages::layout::html;
use sitekit::{Ctx, Page};

use crate::inspect::scripts::{self, ProcedureRun};
use crate::inspect::{self, pk};
use crate::{Explorer, ExplorerError};

#[derive(Template)]
#[template(path = "explorer/scripts.html")]
struct ScriptsPage {
    page: Page,
    writes: bool,
    base: String,
    coll: String,
    partition_key: String,
    scripts: engine::ScriptList,
}

pub async fn list(
    ctx: Ctx,
    x: web::Data<Explorer>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ExplorerError> {
    let (db, coll) = path.into_inner();
    let (c, def) = inspect::container(&x.engine, &db, &coll)?;
    Ok(html(&ScriptsPage {
        writes: x.options.writes,
        base: super::container_url(&db, &coll),
        partition_key: def.partition_key().paths.join(", "),
        scripts: scripts::list(&c)?,
        page: ctx.page(format!("Scripts of {coll}")),
        coll,
    })?)
}

#[derive(Deserialize)]
pub struct RunForm {
    pk: String,
    #[serde(default)]
    args: String,
}

#[derive(Template)]
#[template(path = "explorer/procedure_result.html")]
struct ResultPage {
    page: Page,
    writes: bool,
    base: String,
    procedure: String,
    pk: String,
    args: String,
    run: ProcedureRun,
}

pub async fn run(
    ctx: Ctx,
    x: web::Data<Explorer>,
    path: web::Path<(String, String, String)>,
    form: CsrfForm<RunForm>,
) -> Result<HttpResponse, ExplorerError> {
    super::require_writes(&x)?;
    let (db, coll, id) = path.into_inner();
    let (c, _) = inspect::container(&x.engine, &db, &coll)?;
    let RunForm { pk: raw, args } = form.into_inner();
    let arguments = scripts::arguments(&args)?;
    let run = scripts::run(&c, &id, pk::parse(&raw)?, &arguments).await?;
    Ok(html(&ResultPage {
        writes: x.options.writes,
        base: super::container_url(&db, &coll),
        page: ctx.page(format!("{id} ran")),
        procedure: id,
        pk: raw,
        args,
        run,
    })?)
}
