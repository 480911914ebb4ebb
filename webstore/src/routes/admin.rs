//! The back office (admins only): top customers (the seed's cross-partition query), renames that
//! the change feed carries to every product, and the product list.

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use askama::Template;
use serde::Deserialize;

use super::Listing;
use crate::access::{self, Db, StoreError};
use crate::model::{Customer, Product};
use sitekit::csrf::CsrfForm;
use sitekit::layout::{html, html_status, see_other};
use sitekit::paging::Pager;
use sitekit::workers::Workers;
use sitekit::{Ctx, Page, WebError};

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

/// How long after a rename the back office still asks whether it has reached the products.
const RENAME_SETTLE_SECS: u64 = 60;

async fn meta_page(
    ctx: &Ctx,
    db: &Db,
    workers: &Workers,
    kind: &'static str,
    error: String,
) -> Result<HttpResponse, WebError> {
    ctx.require_admin()?;
    let (rows, last_rename): (Vec<MetaRow>, u64) = if kind == "category" {
        let all = access::list_categories::list_categories(db).await?;
        let last = all.iter().filter_map(|c| c.renamed_at).max().unwrap_or(0);
        let rows = all.into_iter().map(|c| MetaRow {
            id: c.id,
            name: c.name,
        });
        (rows.collect(), last)
    } else {
        let all = access::list_tags::list_tags(db).await?;
        let last = all.iter().filter_map(|t| t.renamed_at).max().unwrap_or(0);
        let rows = all.into_iter().map(|t| MetaRow {
            id: t.id,
            name: t.name,
        });
        (rows.collect(), last)
    };
    // Changes not yet carried to the products, asked only when one of these was renamed in
    // the last minute: free embedded, the estimate is a change-feed read per lease on an
    // account, which a page nobody renamed anything on need not pay.
    let pending = if sitekit::time::unix_now().saturating_sub(last_rename) <= RENAME_SETTLE_SECS {
        // Changes made up to the end of that second: free on an account once read past.
        let since = std::time::UNIX_EPOCH + std::time::Duration::from_secs(last_rename + 1);
        workers.pending_since(since).await?
    } else {
        0
    };
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
    let mut errors = sitekit::form::FieldErrors::default();
    let name = errors.text("name", &form.name, 80);
    let back = if kind == "category" {
        "/admin/categories"
    } else {
        "/admin/tags"
    };
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
            Ok(see_other(back))
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
