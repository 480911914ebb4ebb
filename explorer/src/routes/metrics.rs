use actix_web::{web, HttpResponse};

use crate::Explorer;

/// The Prometheus text exposition format.
pub async fn metrics(x: web::Data<Explorer>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(crate::prometheus::render(&x).await)
}
