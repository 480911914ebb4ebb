//! The throughput a create asks for, in its headers: manual RU/s (`x-ms-offer-throughput`) or
//! autoscale (`x-ms-cosmos-offer-autopilot-settings`), the same for a database (shared) and a
//! container (its own).

use serde_json::Value;

use crate::error::{GatewayError, Result};
use crate::headers;
use crate::request::Ctx;
use crate::resources;

fn bad(msg: impl Into<String>) -> GatewayError {
    GatewayError::BadRequest(msg.into())
}

/// `x-ms-offer-throughput` (manual RU/s, at least 400, as the service asks) or autoscale
/// (`autoscale`: the engine's budget is its max).
pub fn throughput(ctx: &Ctx) -> Result<Option<u32>> {
    if let Some(a) = autoscale(ctx)? {
        return Ok(Some(a.max));
    }
    match headers::get(ctx.headers(), headers::OFFER_THROUGHPUT) {
        None => Ok(None),
        Some(v) => match v.parse::<u32>() {
            Ok(n) if n >= 400 => Ok(Some(n)),
            _ => Err(bad(format!(
                "The offer throughput '{v}' is invalid: at least 400 RU/s."
            ))),
        },
    }
}

/// `x-ms-cosmos-offer-autopilot-settings`: `{"maxThroughput": N, "autoUpgradePolicy": …}`.
pub fn autoscale(ctx: &Ctx) -> Result<Option<crate::autoscale::Autoscale>> {
    let Some(v) = headers::get(ctx.headers(), headers::AUTOPILOT) else {
        return Ok(None);
    };
    if headers::get(ctx.headers(), headers::OFFER_THROUGHPUT).is_some() {
        return Err(bad(
            "Provision either manual throughput (x-ms-offer-throughput) or autoscale \
             (x-ms-cosmos-offer-autopilot-settings), not both.",
        ));
    }
    let settings: Value = serde_json::from_str(v)
        .map_err(|e| bad(format!("The autoscale settings are not JSON: {e}")))?;
    crate::autoscale::Autoscale::from_settings(&settings)
        .map(Some)
        .map_err(bad)
}

/// Records the offer of a resource just created with autoscale (a no-op without).
pub fn record_autoscale(ctx: &Ctx, of: &resources::Provisioned) -> Result<()> {
    if let Some(a) = autoscale(ctx)? {
        ctx.state
            .autoscale
            .set(&of.offer_id(), Some(a))
            .map_err(|e| GatewayError::Internal(format!("saving the autoscale settings: {e}")))?;
    }
    Ok(())
}
