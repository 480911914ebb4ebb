//! Autoscale throughput (the header `x-ms-cosmos-offer-autopilot-settings`, an offer's
//! `content.offerAutopilotSettings`). Cosmos DB scales an autoscale resource between 10% of its
//! max RU/s and the max, the max being 1000 to 1000000 RU/s in steps of 1000
//! (learn.microsoft.com/azure/cosmos-db/autoscale-faq; the Python SDK's `ThroughputProperties`).
//! The engine's budget is the max (engine/RU.md); the settings the offer reports (max, increment
//! percent) are the gateway's, kept in `DATA/gateway-autoscale.json` keyed by offer id, as the
//! scripts are (`script_store`). An entry applies only while the engine's throughput is its max:
//! throughput changed another way (the CLI) reads back as manual, never as a stale autoscale.
//! An entry goes when its database or container is deleted (`forget_deleted`, after a DELETE
//! through the gateway and when the store opens, for deletes made another way), so the file
//! holds only live offers.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::resources::Provisioned;

pub const FILE: &str = "gateway-autoscale.json";

/// The lowest autoscale max the service takes.
const MIN_MAX: i64 = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Autoscale {
    pub max: u32,
    pub increment_percent: u32,
}

impl Autoscale {
    /// `{"maxThroughput": N, "autoUpgradePolicy": {"throughputPolicy": {"incrementPercent": P}}}`
    /// (the header's JSON and the offer's), the policy optional (0%: the Python SDK sends none
    /// for 0 and reads 0 back).
    pub fn from_settings(v: &Value) -> Result<Self, String> {
        let max = v
            .get("maxThroughput")
            .and_then(Value::as_i64)
            .ok_or("The autoscale settings need a number 'maxThroughput'.")?;
        // The service's words (test_auto_scale.py looks for them).
        if max < MIN_MAX {
            return Err(format!(
                "Requested throughput {max} is less than required minimum throughput {MIN_MAX}."
            ));
        }
        if max % 1000 != 0 || max > u32::MAX as i64 {
            return Err(format!(
                "Requested autoscale max throughput {max} is not a multiple of 1000 RU/s."
            ));
        }
        let increment = match v.pointer("/autoUpgradePolicy/throughputPolicy/incrementPercent") {
            None | Some(Value::Null) => 0,
            Some(p) => p
                .as_u64()
                .filter(|p| *p <= u32::MAX as u64)
                .ok_or("incrementPercent must be a number greater than or equal to zero.")?,
        };
        Ok(Autoscale {
            max: max as u32,
            increment_percent: increment as u32,
        })
    }

    /// The offer's `content`: `offerThroughput` is where the service scales down to, 10% of max.
    pub fn content(&self) -> Value {
        json!({
            "offerThroughput": self.max / 10,
            "offerIsRUPerMinuteThroughputEnabled": false,
            "offerAutopilotSettings": {
                "maxThroughput": self.max,
                "autoUpgradePolicy": {
                    "throughputPolicy": {"incrementPercent": self.increment_percent},
                },
            },
        })
    }
}

/// The autoscale settings by offer id, written through to the data directory.
pub struct AutoscaleStore {
    path: PathBuf,
    all: Mutex<BTreeMap<String, Autoscale>>,
}

impl AutoscaleStore {
    pub fn open(engine: &engine::Engine) -> Result<Self, String> {
        let path = engine.path().join(FILE);
        let all = crate::json_file::read_or_default(&path)?;
        let store = AutoscaleStore {
            path,
            all: Mutex::new(all),
        };
        store
            .forget_deleted(engine)
            .map_err(|e| format!("{}: {e}", store.path.display()))?;
        Ok(store)
    }

    /// Drops the entries of offers whose database or container no longer exists (offer ids are
    /// never reused: `engine::rid::offer` of a number from the catalog's counter), rewriting the
    /// file only when one went.
    pub fn forget_deleted(&self, engine: &engine::Engine) -> std::io::Result<()> {
        let mut live = std::collections::BTreeSet::new();
        for db in engine.databases() {
            live.insert(Provisioned::Database(&db).offer_id());
            for c in engine.database(&db.id).containers() {
                live.insert(Provisioned::Container(&c).offer_id());
            }
        }
        let mut all = self.all.lock().unwrap_or_else(|p| p.into_inner());
        let before = all.len();
        all.retain(|offer, _| live.contains(offer));
        if all.len() == before {
            return Ok(());
        }
        crate::json_file::write_atomically(&self.path, &*all)
    }

    /// The settings of `offer` if it is autoscale with the engine's `throughput` as its max.
    pub fn get(&self, offer: &str, throughput: u32) -> Option<Autoscale> {
        let all = self.all.lock().unwrap_or_else(|p| p.into_inner());
        all.get(offer).copied().filter(|a| a.max == throughput)
    }

    /// Records `offer` as autoscale (`Some`) or manual (`None`).
    pub fn set(&self, offer: &str, settings: Option<Autoscale>) -> std::io::Result<()> {
        let mut all = self.all.lock().unwrap_or_else(|p| p.into_inner());
        let changed = match settings {
            Some(a) => all.insert(offer.to_string(), a) != Some(a),
            None => all.remove(offer).is_some(),
        };
        if !changed {
            return Ok(());
        }
        crate::json_file::write_atomically(&self.path, &*all)
    }
}

/// After a DELETE answered `segments` (names): a database's or a container's autoscale entry
/// goes with it. The delete has happened; a file that cannot be rewritten is logged (the entry
/// is harmless meanwhile, its offer id is never given again) and dropped at the next open.
pub(crate) fn after_delete(store: &AutoscaleStore, engine: &engine::Engine, segments: &[&str]) {
    if !matches!(segments, ["dbs", _] | ["dbs", _, "colls", _]) {
        return;
    }
    if let Err(e) = store.forget_deleted(engine) {
        tracing::warn!(target: "gateway", "{FILE}: a deleted resource's entry stays: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_below_the_minimum_are_refused_in_the_services_words() {
        let e = Autoscale::from_settings(&json!({"maxThroughput": -200})).unwrap_err();
        assert!(
            e.contains("Requested throughput -200 is less than required minimum throughput 1000")
        );
        assert!(Autoscale::from_settings(&json!({"maxThroughput": 1500})).is_err());
        let a = Autoscale::from_settings(&json!({"maxThroughput": 7000})).unwrap();
        assert_eq!((a.max, a.increment_percent), (7000, 0));
        let c = Autoscale::from_settings(&a.content()["offerAutopilotSettings"]).unwrap();
        assert_eq!(c, a);
        assert_eq!(a.content()["offerThroughput"], 700);
    }
}
