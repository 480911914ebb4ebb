//! Partition key ranges: the engine's physical partitions as the SDKs see them. A container
//! places its items by Cosmos DB's hash (`engine::Placement::Cosmos`), so each physical
//! partition is a range of the EPKs an SDK computes: `/pkranges` lists them, and a request that
//! names a range (`x-ms-documentdb-partitionkeyrangeid`) or EPK bounds (`x-ms-start-epk`,
//! `x-ms-end-epk`) is answered for the items of that range only. A split replaces a range with
//! two new ones that name it in `parents`; a request for the old one is 410/1002, which makes
//! the SDKs read `/pkranges` again and go on with the children. A container from a data file
//! older than Cosmos placement shows as one range over the whole space.

use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::HttpResponse;
use engine::{ContainerClient, ContainerDef, EpkRange, Placement};
use serde_json::Value;

use crate::error::Result;
use crate::headers::{self, Reply};
use crate::request::Ctx;
use crate::resources::{self, Range};

/// The container's ranges, in EPK order.
pub(crate) fn ranges(client: &ContainerClient, def: &ContainerDef) -> Result<Vec<Range>> {
    if def.partition_key().placement != Placement::Cosmos {
        return Ok(vec![Range {
            id: headers::RANGE_ID.into(),
            epks: EpkRange::new("", "FF"),
            parents: Vec::new(),
        }]);
    }
    Ok(client
        .partitions()?
        .into_iter()
        .map(|p| Range {
            id: p.range_id.to_string(),
            epks: p.cosmos_range.expect("placed by Cosmos's hash"),
            parents: p.range_parents.iter().map(u32::to_string).collect(),
        })
        .collect())
}

pub fn list(ctx: &Ctx, db: &str, c: &str) -> Result<HttpResponse> {
    let (client, def) = ctx.container(db, c)?;
    let ranges = ranges(&client, &def)?;
    // The list changes only when a split replaces a range: its ids say which list it is.
    let ids: Vec<&str> = ranges.iter().map(|r| r.id.as_str()).collect();
    let etag = format!("\"{:08x}-ranges-{}\"", def.rid(), ids.join("."));
    if headers::get(ctx.headers(), "if-none-match") == Some(etag.as_str()) {
        return Ok(Reply::new(304, 0.0).etag(Some(&etag)).empty());
    }
    let share = 1.0 / ranges.len() as f64;
    let docs: Vec<Value> = ranges
        .iter()
        .map(|r| resources::partition_key_range(&def, r, share))
        .collect();
    Ok(Reply::new(200, 1.0)
        .etag(Some(&etag))
        .header("x-ms-item-count", docs.len().to_string())
        .json(
            resources::feed(&resources::container_rid(&def), "PartitionKeyRanges", docs)
                .to_string(),
        ))
}

/// Names, in a container request's answer, a range that exists: the one holding the partition
/// key the request named, else the one it named, else the first. The Python SDK reads the
/// answer's `x-ms-documentdb-partitionkeyrangeid` and refreshes its whole routing map when the
/// range is not one it knows (after a split, the old `0`); the session token names it too.
pub(crate) fn name_the_range(ctx: &Ctx, db: &str, c: &str, response: &mut HttpResponse) {
    let h = ctx.headers();
    let Ok((_, def)) = ctx.container(db, c) else {
        return;
    };
    if def.partition_key().placement != Placement::Cosmos {
        return;
    }
    let by_key = headers::partition_key(h)
        .ok()
        .flatten()
        .and_then(|pk| def.range_id_of(&pk));
    let named = headers::get(h, headers::PK_RANGE_ID)
        .and_then(|id| id.parse::<u32>().ok())
        .filter(|id| def.range_ids().any(|r| r == *id));
    let Some(id) = by_key.or(named).or_else(|| def.range_ids().next()) else {
        return;
    };
    let id = id.to_string();
    let out = response.headers_mut();
    let session = out
        .get("x-ms-session-token")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(':'))
        .map(|(_, rest)| format!("{id}:{rest}"));
    for (name, value) in [
        (headers::PK_RANGE_ID, Some(id.clone())),
        ("x-ms-session-token", session),
    ] {
        if let Some(v) = value.and_then(|v| HeaderValue::from_str(&v).ok()) {
            out.insert(HeaderName::from_static(name), v);
        }
    }
}
