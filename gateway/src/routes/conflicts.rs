//! The conflicts feed. Conflicts exist only on accounts that accept writes in several regions;
//! this gateway serves one region, so every container's feed is empty, as the service's is for
//! a single-write-region account: the feed and its queries list nothing and a conflict read by
//! id is Cosmos DB's 404 (the Python SDK's `test_crud_container.py` reads one and expects it).

use actix_web::HttpResponse;

use crate::error::{GatewayError, Result};
use crate::headers::Reply;
use crate::request::Ctx;
use crate::resources;

/// `GET …/conflicts`, and a query posted to it.
pub fn list(ctx: &Ctx, db: &str, c: &str) -> Result<HttpResponse> {
    let (_, def) = ctx.container(db, c)?;
    Ok(Reply::new(200, 1.0)
        .header("x-ms-item-count", "0")
        .json(resources::feed(&def.resource_id(), "Conflicts", Vec::new()).to_string()))
}

/// A query of the feed: confined as a query of items is (a partition key, or
/// `x-ms-documentdb-query-enablecrosspartition`), else the service's 400 — azure-cosmos's
/// `test_partition_key.py` queries conflicts with no key and expects it.
pub fn query(ctx: &Ctx, db: &str, c: &str) -> Result<HttpResponse> {
    if super::scope::unscoped(ctx)? {
        return Err(GatewayError::BadRequest(
            super::scope::CROSS_PARTITION_DISABLED.into(),
        ));
    }
    list(ctx, db, c)
}

/// `GET` or `DELETE …/conflicts/{id}`: there is none.
pub fn one(ctx: &Ctx, db: &str, c: &str, id: &str) -> Result<HttpResponse> {
    ctx.container(db, c)?;
    Err(GatewayError::NotFound(format!(
        "Resource Not Found. Conflict '{id}' does not exist: a single-region account has no conflicts."
    )))
}
