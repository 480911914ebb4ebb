//! A site's gate: a check an app registers (as app data, from its `configure`) that sees every
//! request before anything else of the site does, static assets and the default 404 included,
//! and may answer it instead. Sites without one are served as before. The explorer's Host and
//! token guard is one: a route-level check would leave the assets and the 404 open.

use std::sync::Arc;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::HttpResponse;

/// `Some(response)` answers the request instead of the site; `None` lets it through.
type Check = dyn Fn(&ServiceRequest) -> Option<HttpResponse> + Send + Sync;

#[derive(Clone)]
pub struct Gate(Arc<Check>);

impl Gate {
    pub fn new(
        check: impl Fn(&ServiceRequest) -> Option<HttpResponse> + Send + Sync + 'static,
    ) -> Gate {
        Gate(Arc::new(check))
    }
}

/// Middleware (in [`crate::http::server::serve`]): runs the app's [`Gate`], if it registered one.
pub async fn run(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let answer = req.app_data::<Gate>().and_then(|gate| (gate.0)(&req));
    match answer {
        Some(res) => Ok(req.into_response(res).map_into_right_body()),
        None => next
            .call(req)
            .await
            .map(ServiceResponse::map_into_left_body),
    }
}
