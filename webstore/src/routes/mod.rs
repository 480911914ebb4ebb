//! The routes (stable: the load tests and the docs use them). Handlers stay thin: parse the
//! request, call an access pattern, render.

mod account;
mod admin;
mod cart;
mod orders;
mod shop;

use actix_web::web;

/// What the footer's codes (`[Q4] read product`) stand for: served at
/// [`PATTERNS_PATH`](sitekit::http::assets::PATTERNS_PATH).
const ACCESS_PATTERNS: &str = include_str!("../../ACCESS_PATTERNS.md");

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(shop::home))
        .route(
            sitekit::http::assets::PATTERNS_PATH,
            sitekit::http::assets::patterns_route(ACCESS_PATTERNS),
        )
        .route("/categories/{category_id}", web::get().to(shop::category))
        .route(
            "/products/{category_id}/{product_id}",
            web::get().to(shop::product),
        )
        .route("/tags/{tag_id}", web::get().to(shop::tag))
        .route("/search", web::get().to(shop::search))
        .route("/signup", web::get().to(account::signup_form))
        .route("/signup", web::post().to(account::signup))
        .route("/signin", web::get().to(account::signin_form))
        .route("/signin", web::post().to(account::signin))
        .route("/signout", web::post().to(account::signout))
        .route("/account", web::get().to(account::account))
        .route("/account/addresses", web::get().to(account::account))
        .route("/account/addresses", web::post().to(account::add_address))
        .route(
            "/account/signout-everywhere",
            web::post().to(account::signout_everywhere),
        )
        .route("/cart", web::get().to(cart::cart))
        .route("/cart/add", web::post().to(cart::add))
        .route("/cart/remove", web::post().to(cart::remove))
        .route("/checkout", web::post().to(cart::checkout))
        .route("/orders", web::get().to(orders::orders))
        .route("/orders/{order_id}", web::get().to(orders::order))
        .route("/admin", web::get().to(admin::index))
        .route("/admin/customers/top", web::get().to(admin::top_customers))
        .route("/admin/categories", web::get().to(admin::categories))
        .route(
            "/admin/categories/{id}/rename",
            web::post().to(admin::rename_category),
        )
        .route("/admin/tags", web::get().to(admin::tags))
        .route("/admin/tags/{id}/rename", web::post().to(admin::rename_tag))
        .route(
            "/admin/renames/{kind}/{id}",
            web::get().to(admin::rename_status),
        )
        .route("/admin/products", web::get().to(admin::products));
}

/// `?page=` continuation and other listing parameters.
#[derive(Debug, serde::Deserialize)]
pub struct Listing {
    pub page: Option<String>,
    /// The continuation tokens of the pages before this one (see `sitekit::pages::paging::Pager`).
    pub trail: Option<String>,
    pub sort: Option<String>,
    pub q: Option<String>,
}

sitekit::site_error_page!("webstore/error.html");
