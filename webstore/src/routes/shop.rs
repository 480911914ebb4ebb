//! Browsing the shop: home, category pages, product pages, tags and search.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use askama::Template;

use super::Listing;
use crate::access::products_by_category::{self, Sort};
use crate::access::{self, Db};
use crate::model::{Category, FeaturedProduct, Product};
use sitekit::accounts::throttle::ExpensiveLimit;
use sitekit::pages::form::FieldErrors;
use sitekit::pages::layout::{html, html_status};
use sitekit::pages::paging::{url_escape, Pager};
use sitekit::{Ctx, Page, WebError};

#[derive(Template)]
#[template(path = "webstore/home.html")]
struct Home {
    page: Page,
    categories: Vec<Category>,
    featured: Vec<FeaturedProduct>,
}

pub async fn home(ctx: Ctx, db: Db) -> Result<HttpResponse, WebError> {
    let categories = access::list_categories::list_categories(&db).await?;
    let featured = access::featured_products::featured_products(&db).await?;
    html(&Home {
        page: ctx.page("Bikes, parts and gear"),
        categories,
        featured,
    })
}

#[derive(Template)]
#[template(path = "webstore/category.html")]
struct CategoryPage {
    page: Page,
    category_id: String,
    name: String,
    products: Vec<Product>,
    sort: &'static str,
    pager: Pager,
}

pub async fn category(
    ctx: Ctx,
    db: Db,
    path: web::Path<String>,
    query: web::Query<Listing>,
) -> Result<HttpResponse, WebError> {
    let category_id = path.into_inner();
    let sort = Sort::parse(query.sort.as_deref());
    let listing =
        products_by_category::products_by_category(&db, &category_id, sort, query.page.clone())
            .await?;
    // The category's name travels with its products (denormalized); only an empty category
    // needs its own document.
    let name = match listing.items.first() {
        Some(p) => p.category_name.clone(),
        None => access::rename_meta::meta_name(&db, "category", &category_id).await?,
    };
    let base = format!(
        "/categories/{}?sort={}",
        url_escape(&category_id),
        sort.key()
    );
    html(&CategoryPage {
        page: ctx.page(name.clone()),
        pager: Pager::new(
            &base,
            query.page.as_deref(),
            query.trail.as_deref(),
            &listing.continuation,
        ),
        category_id,
        name,
        products: listing.items,
        sort: sort.key(),
    })
}

#[derive(Template)]
#[template(path = "webstore/product.html")]
struct ProductPage {
    page: Page,
    product: Product,
    /// The add-to-cart form's quantity as typed ("1" at first).
    quantity: String,
    /// Why the add-to-cart form was refused: `quantity` beside its field, `cart` above it.
    errors: FieldErrors,
}

pub async fn product(
    ctx: Ctx,
    db: Db,
    path: web::Path<(String, String)>,
) -> Result<HttpResponse, WebError> {
    let (category_id, product_id) = path.into_inner();
    let product = access::product_by_id::product_by_id(&db, &category_id, &product_id).await?;
    product_page(
        &ctx,
        StatusCode::OK,
        product,
        "1".into(),
        FieldErrors::default(),
    )
}

/// The product page with `status`, its add-to-cart form holding `quantity` and `errors`.
pub(super) fn product_page(
    ctx: &Ctx,
    status: StatusCode,
    product: Product,
    quantity: String,
    errors: FieldErrors,
) -> Result<HttpResponse, WebError> {
    html_status(
        status,
        &ProductPage {
            page: ctx.page(product.name.clone()),
            product,
            quantity,
            errors,
        },
    )
}

#[derive(Template)]
#[template(path = "webstore/products.html")]
struct ProductList {
    page: Page,
    heading: String,
    note: &'static str,
    query: String,
    products: Vec<Product>,
    pager: Pager,
}

pub async fn tag(
    ctx: Ctx,
    db: Db,
    req: HttpRequest,
    limit: web::Data<ExpensiveLimit>,
    path: web::Path<String>,
    query: web::Query<Listing>,
) -> Result<HttpResponse, WebError> {
    limit.take_for(ctx.user.as_ref(), &req)?;
    let tag_id = path.into_inner();
    let listing =
        access::products_by_tag::products_by_tag(&db, &tag_id, query.page.clone()).await?;
    let heading = listing
        .items
        .iter()
        .flat_map(|p| &p.tags)
        .find(|t| t.id == tag_id)
        .map(|t| format!("Tagged “{}”", t.name))
        .unwrap_or_else(|| "Tagged products".into());
    html(&ProductList {
        page: ctx.page(heading.clone()),
        heading,
        note: "A tag's products are spread over every category partition, so this page fans out.",
        query: String::new(),
        pager: Pager::new(
            &format!("/tags/{}", url_escape(&tag_id)),
            query.page.as_deref(),
            query.trail.as_deref(),
            &listing.continuation,
        ),
        products: listing.items,
    })
}

pub async fn search(
    ctx: Ctx,
    db: Db,
    req: HttpRequest,
    limit: web::Data<ExpensiveLimit>,
    query: web::Query<Listing>,
) -> Result<HttpResponse, WebError> {
    let text = query.q.clone().unwrap_or_default().trim().to_owned();
    if text.chars().count() > 100 {
        return Err(WebError::BadRequest(
            "The search text is limited to 100 characters.".into(),
        ));
    }
    let listing = if text.is_empty() {
        access::Page {
            items: Vec::new(),
            continuation: None,
        }
    } else {
        // A fan-out: metered per account, or per address.
        limit.take_for(ctx.user.as_ref(), &req)?;
        access::search_products::search_products(&db, &text, query.page.clone()).await?
    };
    html(&ProductList {
        page: ctx.page(format!("Search: {text}")),
        heading: if text.is_empty() { "Search".into() } else { format!("Results for “{text}”") },
        note: "Name search reads every category partition (a fan-out): fine for a search box, not for a hot path.",
        pager: Pager::new(
            &format!("/search?q={}", url_escape(&text)),
            query.page.as_deref(),
            query.trail.as_deref(),
            &listing.continuation,
        ),
        query: text,
        products: listing.items,
    })
}
