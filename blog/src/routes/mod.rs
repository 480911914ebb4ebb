//! The blog's routes (stable: the load tests and the docs use them), one thin handler each.

mod account;
mod home;
mod posts;

use actix_web::web;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(home::feed))
        .route("/signup", web::get().to(account::signup_form))
        .route("/signup", web::post().to(account::signup))
        .route("/signin", web::get().to(account::signin_form))
        .route("/signin", web::post().to(account::signin))
        .route("/signout", web::post().to(account::signout))
        .route("/account", web::get().to(account::account))
        .route("/account", web::post().to(account::rename))
        .route("/users/{user_id}", web::get().to(home::user))
        .route("/posts/new", web::get().to(posts::new_form))
        .route("/posts/new", web::post().to(posts::create))
        .route("/posts/{post_id}", web::get().to(posts::show))
        .route("/posts/{post_id}/edit", web::get().to(posts::edit_form))
        .route("/posts/{post_id}/edit", web::post().to(posts::edit))
        .route("/posts/{post_id}/comments", web::post().to(posts::comment))
        .route("/posts/{post_id}/like", web::post().to(posts::like))
        .route("/posts/{post_id}/unlike", web::post().to(posts::unlike))
        .route("/posts/{post_id}/likes", web::get().to(posts::likes));
}

#[derive(Debug, serde::Deserialize)]
pub struct Paging {
    pub page: Option<String>,
}
