use actix_web::{web, HttpResponse};
use askama::Template;
use sitekit::pages::layout::html;
use sitekit::pages::paging::url_escape;
use sitekit::{Ctx, Page};

use crate::inspect::{self, catalog};
use crate::{Explorer, ExplorerError};

#[derive(Template)]
#[template(path = "explorer/container.html")]
struct ContainerPage {
    page: Page,
    writes: bool,
    base: String,
    c: catalog::ContainerDetail,
}

impl ContainerPage {
    fn escape(&self, s: &str) -> String {
        url_escape(s)
    }
}

pub async fn container(
    ctx: Ctx,
    x: web::Data<Explorer>,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, ExplorerError> {
    let (db, coll) = path.into_inner();
    let (c, def) = inspect::container(&x.engine, &db, &coll)?;
    let detail = catalog::detail(&c, &def).await?;
    Ok(html(&ContainerPage {
        base: super::container_url(&db, &coll),
        c: detail,
        writes: x.options.writes,
        page: ctx.page(format!("{db} / {coll}")),
    })?)
}
