use actix_web::{web, HttpResponse};
use askama::Template;
use sitekit::pages::layout::html;
use sitekit::{Ctx, Page};

use crate::inspect::catalog::{self, DatabaseView};
use crate::{Explorer, ExplorerError};

#[derive(Template)]
#[template(path = "explorer/home.html")]
struct HomePage {
    page: Page,
    writes: bool,
    databases: Vec<DatabaseView>,
}

impl HomePage {
    fn url(&self, db: &str, coll: &str) -> String {
        super::container_url(db, coll)
    }
}

pub async fn home(ctx: Ctx, x: web::Data<Explorer>) -> Result<HttpResponse, ExplorerError> {
    let databases = catalog::databases(&x.engine);
    Ok(html(&HomePage {
        databases,
        writes: x.options.writes,
        page: ctx.page("Databases"),
    })?)
}
