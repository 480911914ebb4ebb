//! The item browser: a logical partition's items, one item as JSON, its edit and delete.

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use askama::Template;
use serde::Deserialize;
use sitekit::accounts::csrf::CsrfForm;
use sitekit::pages::layout::{html, html_status, see_other};
use sitekit::pages::paging::{url_escape, Pager};
use sitekit::{Ctx, Page, WebError};

use crate::inspect::items::{self, ItemPage, OpenItem};
use crate::inspect::{self, pk};
use crate::{Explorer, ExplorerError};

#[derive(Deserialize)]
pub struct Browse {
    pk: Option<String>,
    page: Option<String>,
    trail: Option<String>,
}

#[derive(Template)]
#[template(path = "explorer/items.html")]
struct ItemsPage {
    page: Page,
    writes: bool,
    base: String,
    coll: String,
    pk: Option<String>,
    pk_param: String,
    items: Option<ItemPage>,
    pager: Pager,
}

impl ItemsPage {
    fn escape(&self, s: &str) -> String {
        url_escape(s)
    }
}

pub async fn list(
    ctx: Ctx,
    x: web::Data<Explorer>,
    path: web::Path<(String, String)>,
    q: web::Query<Browse>,
) -> Result<HttpResponse, ExplorerError> {
    let (db, coll) = path.into_inner();
    let (c, _) = inspect::container(&x.engine, &db, &coll)?;
    let base = super::container_url(&db, &coll);
    let Browse {
        pk: raw,
        page,
        trail,
    } = q.into_inner();
    let items = match &raw {
        Some(raw) => Some(items::list(&c, pk::parse(raw)?, page.clone()).await?),
        None => None,
    };
    let pk_param = raw.as_deref().map(url_escape).unwrap_or_default();
    let pager = items
        .as_ref()
        .map(|i| {
            Pager::new(
                &format!("{base}/items?pk={pk_param}"),
                page.as_deref(),
                trail.as_deref(),
                &i.continuation,
            )
        })
        .unwrap_or_default();
    Ok(html(&ItemsPage {
        writes: x.options.writes,
        page: ctx.page(format!("Items of {coll}")),
        base,
        coll,
        pk: raw,
        pk_param,
        items,
        pager,
    })?)
}

#[derive(Deserialize)]
pub struct ItemQuery {
    pk: String,
}

#[derive(Template)]
#[template(path = "explorer/item.html")]
struct ItemEditor {
    page: Page,
    writes: bool,
    base: String,
    pk: String,
    pk_param: String,
    item: OpenItem,
    error: Option<String>,
}

impl ItemEditor {
    fn escape(&self, s: &str) -> String {
        url_escape(s)
    }
}

pub async fn show(
    ctx: Ctx,
    x: web::Data<Explorer>,
    path: web::Path<(String, String, String)>,
    q: web::Query<ItemQuery>,
) -> Result<HttpResponse, ExplorerError> {
    let (db, coll, id) = path.into_inner();
    let (c, _) = inspect::container(&x.engine, &db, &coll)?;
    let item = items::read(&c, &id, pk::parse(&q.pk)?).await?;
    Ok(html(&ItemEditor {
        writes: x.options.writes,
        page: ctx.page(format!("Item {id}")),
        base: super::container_url(&db, &coll),
        pk_param: url_escape(&q.pk),
        pk: q.into_inner().pk,
        item,
        error: None,
    })?)
}

#[derive(Deserialize)]
pub struct EditForm {
    pk: String,
    etag: String,
    json: String,
}

/// Replaces the item if nobody wrote it since the page was shown (if-match on its etag); a
/// stale etag or invalid JSON shows the editor again with the text as typed and the reason.
pub async fn edit(
    ctx: Ctx,
    x: web::Data<Explorer>,
    path: web::Path<(String, String, String)>,
    form: CsrfForm<EditForm>,
) -> Result<HttpResponse, ExplorerError> {
    super::require_writes(&x)?;
    let (db, coll, id) = path.into_inner();
    let (c, _) = inspect::container(&x.engine, &db, &coll)?;
    let EditForm {
        pk: raw,
        etag,
        json,
    } = form.into_inner();
    let base = super::container_url(&db, &coll);
    match items::replace(&c, &id, pk::parse(&raw)?, &json, &etag).await {
        Ok(saved) => {
            ctx.flash(format!("Saved {} (new etag {}).", saved.id, saved.etag));
            Ok(see_other(&format!(
                "{base}/items/{}?pk={}",
                url_escape(&id),
                url_escape(&raw)
            )))
        }
        Err(e @ (engine::Error::PreconditionFailed { .. } | engine::Error::BadRequest { .. })) => {
            let status = StatusCode::from_u16(e.status_code()).unwrap_or(StatusCode::BAD_REQUEST);
            let error = match &e {
                engine::Error::PreconditionFailed { .. } => format!(
                    "Not saved: the item changed since you opened it ({e}). Reload it to see the \
                     current version."
                ),
                _ => format!("Not saved: {e}"),
            };
            Ok(html_status(
                status,
                &ItemEditor {
                    writes: x.options.writes,
                    page: ctx.page(format!("Item {id}")),
                    base,
                    pk_param: url_escape(&raw),
                    pk: raw,
                    item: OpenItem { id, json, etag },
                    error: Some(error),
                },
            )?)
        }
        Err(e) => Err(e.into()),
    }
}

#[derive(Deserialize)]
pub struct DeleteForm {
    pk: String,
    etag: String,
}

pub async fn delete(
    ctx: Ctx,
    x: web::Data<Explorer>,
    path: web::Path<(String, String, String)>,
    form: CsrfForm<DeleteForm>,
) -> Result<HttpResponse, ExplorerError> {
    super::require_writes(&x)?;
    let (db, coll, id) = path.into_inner();
    let (c, _) = inspect::container(&x.engine, &db, &coll)?;
    let DeleteForm { pk: raw, etag } = form.into_inner();
    items::delete(&c, &id, pk::parse(&raw)?, &etag)
        .await
        .map_err(WebError::Engine)?;
    ctx.flash(format!("Deleted {id}."));
    Ok(see_other(&format!(
        "{}/items?pk={}",
        super::container_url(&db, &coll),
        url_escape(&raw)
    )))
}
