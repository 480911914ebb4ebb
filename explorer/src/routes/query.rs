//! The query editor. A GET form (running a query changes nothing), so a query and each of its
//! pages is a link; the next page carries the engine's continuation.

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use askama::Template;
use serde::Deserialize;
use sitekit::pages::layout::html_status;
use sitekit::pages::paging::{url_escape, Pager};
use sitekit::{Ctx, Page};

use crate::inspect::query::{self, QueryFailure, QueryInput, QueryPage};
use crate::inspect::{self};
use crate::{Explorer, ExplorerError};

/// Results per page unless the form says otherwise.
const PAGE: usize = 20;

#[derive(Deserialize)]
pub struct QueryForm {
    sql: Option<String>,
    params: Option<String>,
    pk: Option<String>,
    max: Option<usize>,
    page: Option<String>,
    trail: Option<String>,
}

/// Where a syntax error is: the line of the query and a caret under the column.
pub struct ErrorAt {
    pub line: String,
    pub caret: String,
}

#[derive(Template)]
#[template(path = "explorer/query.html")]
struct QueryEditor {
    page: Page,
    writes: bool,
    base: String,
    coll: String,
    input: QueryInput,
    result: Option<QueryPage>,
    error: Option<String>,
    error_at: Option<ErrorAt>,
    pager: Pager,
}

pub async fn query(
    ctx: Ctx,
    x: web::Data<Explorer>,
    path: web::Path<(String, String)>,
    form: web::Query<QueryForm>,
) -> Result<HttpResponse, ExplorerError> {
    let (db, coll) = path.into_inner();
    let (c, _) = inspect::container(&x.engine, &db, &coll)?;
    let base = super::container_url(&db, &coll);
    let form = form.into_inner();
    let trail = form.trail.clone();
    let ran = form.sql.is_some();
    let input = QueryInput {
        sql: form.sql.unwrap_or_else(|| "SELECT * FROM c".into()),
        params: form.params.unwrap_or_default(),
        partition_key: form.pk.unwrap_or_default(),
        continuation: form.page,
        max_items: form.max.unwrap_or(PAGE).clamp(1, 1000),
    };
    let (mut status, mut result, mut error, mut error_at) = (StatusCode::OK, None, None, None);
    if ran {
        match query::run(&c, &input).await {
            Ok(page) => result = Some(page),
            Err(QueryFailure::Engine(e)) => return Err(e.into()),
            Err(failure) => {
                status = StatusCode::BAD_REQUEST;
                if let QueryFailure::Syntax { line, column, .. } = &failure {
                    let text = input.sql.lines().nth(line - 1).unwrap_or_default();
                    error_at = Some(ErrorAt {
                        line: text.to_owned(),
                        caret: format!("{}^", " ".repeat(column.saturating_sub(1))),
                    });
                }
                error = Some(failure.to_string());
            }
        }
    }
    let pager = result.as_ref().map(|r| {
        let link = format!(
            "{base}/query?sql={}&params={}&pk={}&max={}",
            url_escape(&input.sql),
            url_escape(&input.params),
            url_escape(&input.partition_key),
            input.max_items
        );
        Pager::new(
            &link,
            input.continuation.as_deref(),
            trail.as_deref(),
            &r.continuation,
        )
    });
    let pager = pager.unwrap_or_default();
    Ok(html_status(
        status,
        &QueryEditor {
            writes: x.options.writes,
            page: ctx.page(format!("Query {coll}")),
            base,
            coll,
            input,
            result,
            error,
            error_at,
            pager,
        },
    )?)
}
