//! Offers: the provisioned throughput of a container (its own) or of a database (shared by its
//! containers that have none of their own), read and replaced, manual or autoscale
//! (`crate::autoscale`). A resource without throughput is served as on a serverless account:
//! asking for its offer is the service's 400.

use actix_web::HttpResponse;
use engine::{ContainerDef, DatabaseDef};
use serde_json::Value;

use crate::error::{GatewayError, Result};
use crate::headers::Reply;
use crate::request::Ctx;
use crate::resources::{self, Provisioned};

/// A resource with provisioned throughput, owned so the offer outlives the catalog read.
enum Owner {
    Container(std::sync::Arc<ContainerDef>),
    Database(DatabaseDef),
}

impl Owner {
    fn provisioned(&self) -> Provisioned<'_> {
        match self {
            Owner::Container(c) => Provisioned::Container(c),
            Owner::Database(d) => Provisioned::Database(d),
        }
    }

    /// The offer of the engine's `throughput`: autoscale when the gateway recorded it so.
    fn offer(&self, ctx: &Ctx, throughput: u32) -> Value {
        let of = self.provisioned();
        let mut offer = resources::offer(&of, throughput);
        if let Some(a) = ctx.state.autoscale.get(&of.offer_id(), throughput) {
            offer["content"] = a.content();
            // The increment alone can change: the etag must too.
            offer["_etag"] =
                format!("\"{}-{throughput}-{}\"", of.offer_id(), a.increment_percent).into();
        }
        offer
    }
}

fn provisioned(ctx: &Ctx) -> Vec<(Owner, u32)> {
    let mut all = Vec::new();
    for d in ctx.engine().databases() {
        for c in ctx.engine().database(&d.id).containers() {
            if let Some(t) = c.throughput() {
                all.push((Owner::Container(c), t));
            }
        }
        if let Some(t) = d.throughput {
            all.push((Owner::Database(d), t));
        }
    }
    all
}

/// What has no throughput here and would have an offer on a provisioned account: a container
/// without its own in a database without shared throughput (the service gives it 400 RU/s), and
/// such a database. Their would-be offers, only to see whether a query names one of them.
fn unprovisioned(ctx: &Ctx) -> Vec<Value> {
    let mut all = Vec::new();
    for d in ctx.engine().databases() {
        if d.throughput.is_some() {
            continue;
        }
        for c in ctx.engine().database(&d.id).containers() {
            if c.throughput().is_none() {
                all.push(resources::offer(&Provisioned::Container(&c), 0));
            }
        }
        all.push(resources::offer(&Provisioned::Database(&d), 0));
    }
    all
}

/// The service's answer to an offer read on a serverless account (PROTOCOL.md, "Offers of
/// resources without throughput").
pub const SERVERLESS: &str =
    "Reading or replacing offers is not supported for serverless accounts.";

fn page(offers: Vec<Value>) -> HttpResponse {
    let n = offers.len();
    Reply::new(200, 1.0)
        .header("x-ms-item-count", n.to_string())
        .json(resources::feed("", "Offers", offers).to_string())
}

pub fn list(ctx: &Ctx) -> Result<HttpResponse> {
    Ok(page(
        provisioned(ctx)
            .iter()
            .map(|(o, t)| o.offer(ctx, *t))
            .collect(),
    ))
}

/// The SDKs query offers by their resource: the Python SDK as `SELECT * FROM root r WHERE
/// r.resource=@link`, the JavaScript SDK with the link in the text (`… where root.resource =
/// "dbs/…/colls/…/"`). The query runs over the offers as it would over documents, so it selects
/// the offers it names and no other (answering every offer let the JavaScript SDK take another
/// container's for its own, and change it).
pub fn query(ctx: &Ctx) -> Result<HttpResponse> {
    let offers = provisioned(ctx)
        .iter()
        .map(|(o, t)| o.offer(ctx, *t))
        .collect();
    let selected = super::resource_query::select(ctx, offers)?;
    // A query that names only resources without throughput asks what a serverless account has
    // not: the JavaScript SDK's `readOffer` would otherwise take "no offer" as its answer.
    if selected.is_empty() && !super::resource_query::select(ctx, unprovisioned(ctx))?.is_empty() {
        return Err(GatewayError::BadRequest(SERVERLESS.into()));
    }
    Ok(page(selected))
}

/// The offer `id` names, compared exactly: offer ids are base64, where case matters. Two offers
/// with one id (a database numbered before databases were, whose hashed number shares its low
/// bytes with another resource's) are refused rather than one changed for the other.
fn find(ctx: &Ctx, id: &str) -> Result<(Owner, u32)> {
    let mut found = provisioned(ctx)
        .into_iter()
        .filter(|(o, _)| o.provisioned().offer_id() == id);
    match (found.next(), found.next()) {
        (Some(one), None) => Ok(one),
        (Some(_), Some(_)) => Err(GatewayError::Conflict(format!(
            "Offer '{id}' names two resources; replace their throughput through the engine's CLI."
        ))),
        _ => Err(GatewayError::NotFound(format!(
            "Resource Not Found. Offer '{id}' does not exist."
        ))),
    }
}

pub fn read(ctx: &Ctx, id: &str) -> Result<HttpResponse> {
    let (o, t) = find(ctx, id)?;
    Ok(Reply::new(200, 1.0).json(o.offer(ctx, t).to_string()))
}

pub async fn replace(ctx: &Ctx<'_>, id: &str) -> Result<HttpResponse> {
    let (owner, _) = find(ctx, id)?;
    let body = ctx.json()?;
    // Autoscale when the body says so (the SDKs send back the offer they read, changed).
    let autoscale = match body
        .pointer("/content/offerAutopilotSettings")
        .filter(|v| !v.is_null())
    {
        Some(v) => {
            Some(crate::autoscale::Autoscale::from_settings(v).map_err(GatewayError::BadRequest)?)
        }
        None => None,
    };
    let ru = match autoscale {
        Some(a) => a.max,
        None => body
            .pointer("/content/offerThroughput")
            .and_then(Value::as_u64)
            .filter(|n| (400..=u32::MAX as u64).contains(n))
            .ok_or_else(|| {
                GatewayError::BadRequest(
                    "content.offerThroughput must be a number of RU/s, at least 400.".into(),
                )
            })? as u32,
    };
    let replaced = match owner {
        Owner::Container(c) => Owner::Container(std::sync::Arc::new(
            ctx.engine()
                .database(c.database())
                .replace_throughput(c.id(), Some(ru))
                .await?,
        )),
        Owner::Database(d) => Owner::Database(
            ctx.engine()
                .database(&d.id)
                .replace_database_throughput(Some(ru))
                .await?,
        ),
    };
    ctx.state
        .autoscale
        .set(&replaced.provisioned().offer_id(), autoscale)
        .map_err(|e| GatewayError::Internal(format!("saving the autoscale settings: {e}")))?;
    Ok(Reply::new(200, 1.0).json(replaced.offer(ctx, ru).to_string()))
}
