use actix_web::{web, HttpResponse};
use askama::Template;
use sitekit::pages::layout::html;
use sitekit::{Ctx, Page};

use crate::inspect::changefeed::{self, Processor};
use crate::{Explorer, ExplorerError};

#[derive(Template)]
#[template(path = "explorer/changefeed.html")]
struct ChangeFeedPage {
    page: Page,
    writes: bool,
    processors: Vec<Processor>,
}

impl ChangeFeedPage {
    fn url(&self, db: &str, coll: &str) -> String {
        super::container_url(db, coll)
    }

    fn escape(&self, s: &str) -> String {
        sitekit::pages::paging::url_escape(s)
    }
}

pub async fn processors(ctx: Ctx, x: web::Data<Explorer>) -> Result<HttpResponse, ExplorerError> {
    let processors = changefeed::processors(&x.engine, true).await;
    Ok(html(&ChangeFeedPage {
        writes: x.options.writes,
        processors,
        page: ctx.page("Change feed"),
    })?)
}
