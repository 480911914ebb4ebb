//! The back office (admins only): top customers (the seed's cross-partition query), renames that
//! the change feed carries to every product, and the product list.

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use askama::Template;
use serde::Deserialize;

use super::Listing;
use crate::access::{self, Db, StoreError};
use crate::model::{Customer, Product};
use sitekit::accounts::csrf::CsrfForm;
use sitekit::background::workers::Workers;
use sitekit::pages::layout::{html, html_status, see_other};
use sitekit::pages::paging::Pager;
use sitekit::{Ctx, Page, WebError};

#[derive(Template)]
#[template(path = "webstore/admin/index.html")]
struct Index {
    page: Page,
}

/// `/admin`: what each back-office page does (no engine call).
pub async fn index(ctx: Ctx) -> Result<HttpResponse, WebError> {
    ctx.require_admin()?;
    html(&Index {
        page: ctx.page("Back office"),
    })
}

#[derive(Template)]
#[template(path = "webstore/admin/top_customers.html")]
struct TopCustomers {
    page: Page,
    customers: Vec<Customer>,
}

pub async fn top_customers(ctx: Ctx, db: Db) -> Result<HttpResponse, WebError> {
    ctx.require_admin()?;
    let customers = access::top_customers::top_customers(&db, 25).await?;
    html(&TopCustomers {
        page: ctx.page("Top customers"),
        customers,
    })
}

/// A category or tag row of the rename pages.
struct MetaRow {
    id: String,
    name: String,
}

#[derive(Template)]
#[template(path = "webstore/admin/meta.html")]
struct MetaPage {
    page: Page,
    kind: &'static str,
    plural: &'static str,
    rows: Vec<MetaRow>,
    pending: u64,
    last_error: String,
    error: String,
}

async fn meta_page(
    ctx: &Ctx,
    db: &Db,
    workers: &Workers,
    kind: &'static str,
    error: String,
) -> Result<HttpResponse, WebError> {
    ctx.require_admin()?;
    let listed: Vec<(MetaRow, Option<u64>)> = if kind == "category" {
        let all = access::list_categories::list_categories(db).await?;
        all.into_iter()
            .map(|c| {
                (
                    MetaRow {
                        id: c.id,
                        name: c.name,
                    },
                    c.renamed_at,
                )
            })
            .collect()
    } else {
        let all = access::list_tags::list_tags(db).await?;
        all.into_iter()
            .map(|t| {
                (
                    MetaRow {
                        id: t.id,
                        name: t.name,
                    },
                    t.renamed_at,
                )
            })
            .collect()
    };
    // Changes not yet carried to the products, asked only after a recent rename (a rename
    // stamps `renamedAt`): free embedded, on an account a lease another process holds costs a
    // change-feed read.
    let last_rename = listed.iter().filter_map(|(_, at)| *at).max();
    let rows: Vec<MetaRow> = listed.into_iter().map(|(row, _)| row).collect();
    let pending = workers.pending_after(last_rename).await?;
    let last_error = workers.last_error();
    let status = if error.is_empty() {
        StatusCode::OK
    } else {
        StatusCode::BAD_REQUEST
    };
    html_status(
        status,
        &MetaPage {
            page: ctx.page(if kind == "category" {
                "Categories"
            } else {
                "Tags"
            }),
            kind,
            plural: if kind == "category" {
                "categories"
            } else {
                "tags"
            },
            rows,
            pending,
            last_error,
            error,
        },
    )
}

pub async fn categories(
    ctx: Ctx,
    db: Db,
    workers: web::Data<Workers>,
) -> Result<HttpResponse, WebError> {
    meta_page(&ctx, &db, &workers, "category", String::new()).await
}

pub async fn tags(ctx: Ctx, db: Db, workers: web::Data<Workers>) -> Result<HttpResponse, WebError> {
    meta_page(&ctx, &db, &workers, "tag", String::new()).await
}

#[derive(Deserialize)]
pub struct RenameForm {
    name: String,
}

async fn rename(
    ctx: Ctx,
    db: Db,
    workers: web::Data<Workers>,
    kind: &'static str,
    id: String,
    form: RenameForm,
) -> Result<HttpResponse, WebError> {
    ctx.require_admin()?;
    let mut errors = sitekit::pages::form::FieldErrors::default();
    let name = errors.text("name", &form.name, 80);
    if let Some((_, message)) = errors.0.first() {
        return meta_page(
            &ctx,
            &db,
            &workers,
            kind,
            format!("The new name {message}."),
        )
        .await;
    }
    match access::rename_meta::rename_meta(&db, kind, &id, &name).await {
        Ok(old) => {
            ctx.flash(format!(
                "Renamed “{old}” to “{name}”; the change feed is updating the products."
            ));
            // The rename's own page: what the cascade rewrites and spends, as it goes. Stamped
            // after the write, so the changes up to the end of this second include it.
            let at = sitekit::pages::time::unix_now();
            Ok(see_other(&sitekit::background::propagation::status_link(
                &format!("/admin/renames/{kind}/{id}"),
                &name,
                at,
            )))
        }
        Err(StoreError::Invalid(m)) => meta_page(&ctx, &db, &workers, kind, m).await,
        Err(e) => Err(e.into()),
    }
}

pub async fn rename_category(
    ctx: Ctx,
    db: Db,
    workers: web::Data<Workers>,
    path: web::Path<String>,
    form: CsrfForm<RenameForm>,
) -> Result<HttpResponse, WebError> {
    rename(
        ctx,
        db,
        workers,
        "category",
        path.into_inner(),
        form.into_inner(),
    )
    .await
}

pub async fn rename_tag(
    ctx: Ctx,
    db: Db,
    workers: web::Data<Workers>,
    path: web::Path<String>,
    form: CsrfForm<RenameForm>,
) -> Result<HttpResponse, WebError> {
    rename(
        ctx,
        db,
        workers,
        "tag",
        path.into_inner(),
        form.into_inner(),
    )
    .await
}

#[derive(Template)]
#[template(path = "webstore/admin/products.html")]
struct ProductsPage {
    page: Page,
    products: Vec<Product>,
    pager: Pager,
}

pub async fn products(
    ctx: Ctx,
    db: Db,
    query: web::Query<Listing>,
) -> Result<HttpResponse, WebError> {
    ctx.require_admin()?;
    let listing = access::all_products::all_products(&db, query.page.clone()).await?;
    html(&ProductsPage {
        page: ctx.page("Products"),
        pager: Pager::new(
            "/admin/products",
            query.page.as_deref(),
            query.trail.as_deref(),
            &listing.continuation,
        ),
        products: listing.items,
    })
}

#[derive(Template)]
#[template(path = "webstore/admin/propagation.html")]
struct PropagationPage {
    page: Page,
    kind: &'static str,
    id: String,
    to: String,
    /// Changes to the products not yet carried (the workers' lag since the rename).
    pending: u64,
    progress: Option<sitekit::background::propagation::Progress>,
    last_error: String,
    done: bool,
}

#[derive(Deserialize)]
pub struct RenameStatus {
    to: String,
    at: u64,
}

/// A rename's progress: copies rewritten and RU the cascade spent so far, refreshing itself
/// every 2 s until the workers are done (the page the rename form lands on).
pub async fn rename_status(
    ctx: Ctx,
    workers: web::Data<Workers>,
    propagations: web::Data<sitekit::background::propagation::Propagations>,
    path: web::Path<(String, String)>,
    query: web::Query<RenameStatus>,
) -> Result<HttpResponse, WebError> {
    ctx.require_admin()?;
    let (kind, id) = path.into_inner();
    let kind = match kind.as_str() {
        "category" => "category",
        "tag" => "tag",
        _ => return Err(WebError::NotFound),
    };
    let RenameStatus { to, at } = query.into_inner();
    let pending = workers.pending_after(Some(at)).await?;
    let progress = propagations
        .load(&sitekit::background::propagation::key(kind, &id, &to))
        .await?;
    // Done when the workers have read past the rename and one of them reported it handled (in
    // this process or, through the lease container, another); past the settling time it is
    // done even if no figures were kept (keeping them failed: the log says why).
    let done = pending == 0
        && (progress.as_ref().is_some_and(|p| p.handled)
            || sitekit::pages::time::unix_now().saturating_sub(at)
                > sitekit::background::workers::SETTLE_SECS);
    html(&PropagationPage {
        page: ctx.page(format!("Renaming a {kind}")),
        kind,
        id,
        to,
        pending,
        progress,
        last_error: workers.last_error(),
        done,
    })
}
