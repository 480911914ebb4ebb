//! What a handler hands to an access pattern: the app's containers. Each call on them is
//! recorded on the request's ledger by the `cosmos` client itself (`cosmos::ledger`).

use std::future::{ready, Ready};
use std::ops::Deref;

use actix_web::dev::Payload;
use actix_web::{web, FromRequest, HttpRequest};

use crate::WebError;

/// The containers `C` of an app (registered with `app_data(web::Data::new(c))`).
pub struct Db<C: 'static> {
    containers: web::Data<C>,
}

impl<C> Db<C> {
    pub fn new(containers: web::Data<C>) -> Self {
        Db { containers }
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

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        match req.app_data::<web::Data<C>>() {
            Some(c) => ready(Ok(Db::new(c.clone()))),
            None => ready(Err(WebError::Internal(format!(
                "the app registered no {}",
                std::any::type_name::<C>()
            ))
            .into())),
        }
    }
}
