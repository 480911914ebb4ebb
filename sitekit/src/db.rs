//! What a handler hands to an access pattern: the app's containers and the request's RU ledger.

use std::future::{ready, Ready};
use std::ops::Deref;

use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};

use crate::ru::RequestCharge;
use crate::WebError;

/// The containers `C` of an app (registered with `app_data(web::Data::new(c))`) together with
/// the request's [`RequestCharge`], so every engine call of an access pattern is recorded.
pub struct Db<C: 'static> {
    containers: web::Data<C>,
    pub ru: RequestCharge,
}

impl<C> Db<C> {
    pub fn new(containers: web::Data<C>, ru: RequestCharge) -> Self {
        Db { containers, ru }
    }
}

impl<C> Deref for Db<C> {
    type Target = C;
    fn deref(&self) -> &C {
        &self.containers
    }
}

impl<C: 'static> FromRequest for Db<C> {
    type Error = actix_web::Error;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let containers = match req.app_data::<web::Data<C>>() {
            Some(c) => c.clone(),
            None => {
                return ready(Err(WebError::Internal(format!(
                    "the app registered no {}",
                    std::any::type_name::<C>()
                ))
                .into()))
            }
        };
        let ru = RequestCharge::from_request(req, payload)
            .into_inner()
            .unwrap_or_default();
        ready(Ok(Db { containers, ru }))
    }
}
