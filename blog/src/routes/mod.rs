//! The blog's routes (stable: the load tests and the docs use them), one thin handler each,
//! written once for the three models: [`configure`] mounts them for model `M` (at `/` for V3,
//! inside the `/v1` and `/v2` scopes for the others).

mod account;
mod home;
pub mod models;
mod posts;

use actix_web::web;

use crate::versions::Version;

pub fn configure<M: Version>(cfg: &mut web::ServiceConfig) {
    // The server trims trailing slashes: `/v1/` arrives as `/v1`, the scope's empty path.
    let home = if M::BASE.is_empty() { "/" } else { "" };
    cfg.route(home, web::get().to(home::feed::<M>))
        .route("/signup", web::get().to(account::signup_form))
        .route("/signup", web::post().to(account::signup::<M>))
        .route("/signin", web::get().to(account::signin_form))
        .route("/signin", web::post().to(account::signin::<M>))
        .route("/signout", web::post().to(account::signout::<M>))
        .route("/account", web::get().to(account::account::<M>))
        .route("/account", web::post().to(account::rename::<M>))
        .route(
            "/account/signout-everywhere",
            web::post().to(account::signout_everywhere::<M>),
        )
        .route("/users/{user_id}", web::get().to(home::user::<M>))
        .route("/posts/new", web::get().to(posts::new_form::<M>))
        .route("/posts/new", web::post().to(posts::create::<M>))
        .route("/posts/{post_id}", web::get().to(posts::show::<M>))
        .route(
            "/posts/{post_id}/edit",
            web::get().to(posts::edit_form::<M>),
        )
        .route("/posts/{post_id}/edit", web::post().to(posts::edit::<M>))
        .route(
            "/posts/{post_id}/comments",
            web::post().to(posts::comment::<M>),
        )
        .route("/posts/{post_id}/like", web::post().to(posts::like::<M>))
        .route(
            "/posts/{post_id}/unlike",
            web::post().to(posts::unlike::<M>),
        )
        .route("/posts/{post_id}/likes", web::get().to(posts::likes::<M>));
}

/// `?page=` continuation, and `?trail=` the tokens of the pages before it (see
/// `sitekit::pages::paging::Pager`).
#[derive(Debug, Default, serde::Deserialize)]
pub struct Paging {
    pub page: Option<String>,
    pub trail: Option<String>,
}

impl Paging {
    /// The first/previous/next links of this page of the listing at `base`.
    pub fn pager(
        &self,
        base: &str,
        continuation: &Option<String>,
    ) -> sitekit::pages::paging::Pager {
        sitekit::pages::paging::Pager::new(
            base,
            self.page.as_deref(),
            self.trail.as_deref(),
            continuation,
        )
    }
}

sitekit::site_error_page!("blog/error.html");
