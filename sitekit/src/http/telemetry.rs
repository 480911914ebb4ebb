//! Request metrics through the `metrics` facade: a count, a latency histogram and an RU
//! histogram per site and route (the route's pattern, so `/posts/{post_id}` is one series).
//! Without an installed recorder (an app that exports no metrics) these calls do nothing.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::web;

use crate::data::ru::REQUEST_CHARGE_HEADER;
use crate::pages::layout::Site;

/// Requests answered, by site, route, method and status.
pub const REQUESTS: &str = "http_requests_total";
/// Seconds from the request to its response, by site and route.
pub const DURATION: &str = "http_request_duration_seconds";
/// RU the request cost (`x-ms-request-charge`), by site and route.
pub const CHARGE: &str = "http_request_charge_ru";

/// Middleware recording [`REQUESTS`], [`DURATION`] and [`CHARGE`]. It wraps the RU middleware,
/// so it reads the charge from the response header.
pub async fn record_request(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let site = req.app_data::<web::Data<Site>>().map_or("", |s| s.name);
    let method = req.method().to_string();
    let res = next.call(req).await?;
    let route = res
        .request()
        .match_pattern()
        .unwrap_or_else(|| "unmatched".to_owned());
    let status = res.status().as_u16().to_string();
    let labels = [("site", site.to_owned()), ("route", route)];
    metrics::histogram!(DURATION, &labels).record(started.elapsed().as_secs_f64());
    if let Some(ru) = res
        .headers()
        .get(REQUEST_CHARGE_HEADER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<f64>().ok())
    {
        metrics::histogram!(CHARGE, &labels).record(ru);
    }
    let [site, route] = labels;
    metrics::counter!(
        REQUESTS,
        &[site, route, ("method", method), ("status", status)]
    )
    .increment(1);
    Ok(res)
}
