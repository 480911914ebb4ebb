//! The part of a container a request addresses: a partition key, a partition key range
//! (`x-ms-documentdb-partitionkeyrangeid`), EPK bounds, or the whole container when it says it
//! may cross partitions. Read by queries, the change feed, bulk and conflicts alike.

use engine::{ContainerDef, EpkRange};

use crate::error::{GatewayError, Result};
use crate::headers;
use crate::request::Ctx;

/// Whether the request is one Azure's gateway does not answer whole: cross-partition by its own
/// say, addressing no partition key, range or EPK bounds. Even over one range: the service
/// answers 400/1004 whatever the layout (azure-cosmos's `test_partition_split_query.py` finds
/// its routing map filled by one ORDER BY query on a 400 RU/s container).
pub fn crosses_ranges(ctx: &Ctx) -> Result<bool> {
    let h = ctx.headers();
    let bounds = headers::epk_range(h)?;
    Ok(
        headers::flag(h, "x-ms-documentdb-query-enablecrosspartition")
            && headers::partition_key(h)?.is_none()
            && headers::get(h, headers::PK_RANGE_ID).is_none()
            && bounds.is_none(),
    )
}

/// The service's words for a query that needs to cross partitions and may not (the .NET and
/// Java SDKs carry the same text; azure-cosmos's tests look for its start).
pub const CROSS_PARTITION_DISABLED: &str = "Cross partition query is required but disabled. \
     Please set x-ms-documentdb-query-enablecrosspartition to true, specify \
     x-ms-documentdb-partitionkey, or revise your query to avoid this exception.";

/// Whether the request names nothing to confine the query and does not allow it to cross.
pub fn unscoped(ctx: &Ctx) -> Result<bool> {
    let h = ctx.headers();
    let bounds = headers::epk_range(h)?;
    Ok(
        !headers::flag(h, "x-ms-documentdb-query-enablecrosspartition")
            && headers::partition_key(h)?.is_none()
            && headers::get(h, headers::PK_RANGE_ID).is_none()
            && bounds.is_none(),
    )
}

/// The EPKs a request addresses: the range it names (410/1002 when a split replaced it),
/// narrowed by the EPK bounds it sends; `None` is the whole container.
pub fn addressed(ctx: &Ctx, def: &ContainerDef) -> Result<Option<EpkRange>> {
    let h = ctx.headers();
    let bounds = headers::epk_range(h)?;
    let Some(id) = headers::get(h, headers::PK_RANGE_ID) else {
        return Ok(bounds);
    };
    let range = id
        .parse()
        .ok()
        .and_then(|n| def.key_range(n))
        .ok_or_else(|| GatewayError::Gone {
            substatus: 1002,
            message: format!("The partition key range '{id}' is gone: read /pkranges again."),
        })?;
    match bounds {
        None if range.is_everything() => Ok(None),
        None => Ok(Some(range)),
        Some(b) => within(id, &range, b).map(Some),
    }
}

/// EPK bounds inside range `r` (a point, or a range that starts and ends within it).
fn within(id: &str, r: &EpkRange, b: EpkRange) -> Result<EpkRange> {
    let end = |e: &str| {
        if e.is_empty() {
            "FF".to_owned()
        } else {
            e.to_owned()
        }
    };
    let (start, stop) = if b.start == b.end {
        (b.start.clone(), b.start.clone())
    } else {
        (
            b.start.clone().max(r.start.clone()),
            end(&b.end).min(end(&r.end)),
        )
    };
    let inside = r.contains(&start) && (b.start == b.end || start < stop);
    if !inside {
        return Err(GatewayError::BadRequest(format!(
            "The EPK range [{}, {}) is outside the partition key range '{id}' [{}, {}).",
            b.start, b.end, r.start, r.end
        )));
    }
    Ok(if b.start == b.end {
        b
    } else {
        EpkRange::new(&start, &stop)
    })
}
