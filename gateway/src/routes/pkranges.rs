//! `/pkranges`: one range over the whole EPK space (PROTOCOL.md says why). The SDKs ask again
//! with `If-None-Match` to learn of splits; the range never changes, so that is a 304.

use actix_web::HttpResponse;

use super::Ctx;
use crate::error::Result;
use crate::headers::{self, Reply};
use crate::resources;

pub fn list(ctx: &Ctx, db: &str, c: &str) -> Result<HttpResponse> {
    let (_, def) = super::container(ctx, db, c)?;
    let range = resources::partition_key_range(&def);
    let etag = range["_etag"].as_str().unwrap_or_default().to_owned();
    if headers::get(ctx.headers(), "if-none-match") == Some(etag.as_str()) {
        return Ok(Reply::new(304, 0.0).etag(Some(&etag)).empty());
    }
    Ok(Reply::new(200, 1.0)
        .etag(Some(&etag))
        .header("x-ms-item-count", "1")
        .json(
            resources::feed(
                &resources::container_rid(&def),
                "PartitionKeyRanges",
                vec![range],
            )
            .to_string(),
        ))
}
