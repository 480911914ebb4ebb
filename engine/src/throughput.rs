//! Provisioned throughput: a token bucket per physical partition holding that partition's even
//! share of the container's RU/s (as `001_*` describes), plus the load metrics people watch.
//! A container without RU/s of its own draws from its database's shared budget
//! ([`SharedBudget`], Cosmos DB's database-level throughput), when the database has one.
//!
//! The charge of a request is only known after its work, so requests are admitted while the
//! bucket is non-negative, charged afterwards, and refused with 429 while it is in debt.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};
use serde::Serialize;

use crate::error::{Error, Result};
use crate::partition::PartitionMap;

/// The RU/s one physical partition serves: Azure Cosmos DB's "Maximum RUs per partition
/// (logical & physical): 10,000" (service quotas). Throughput raised past what a container's
/// partitions serve splits them, as the service does (`writer::split_if_needed`).
pub const RU_PER_PARTITION: u32 = 10_000;

/// The physical partitions `ru_per_s` needs at most [`RU_PER_PARTITION`] each.
pub fn partitions_for(ru_per_s: u32) -> usize {
    ru_per_s.div_ceil(RU_PER_PARTITION).max(1) as usize
}

/// Seconds of per-second RU history kept for metrics.
const HISTORY: usize = 60;

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    refilled: Instant,
    throttled: u64,
    ru_total: f64,
    /// Requests charged (a fan-out query counts once per partition it visited).
    requests: u64,
    /// RU consumed per second, a ring indexed by second since `epoch`.
    seconds: [f64; HISTORY],
    /// 429s answered per second, the same ring.
    throttled_seconds: [u32; HISTORY],
    current_second: u64,
}

/// Load of one physical partition, for `stats` and the explorer.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PartitionLoad {
    pub partition: u32,
    /// RU/s budget of this partition (`None` = unlimited).
    pub budget_ru_per_s: Option<f64>,
    /// RU consumed during the last complete second.
    pub ru_last_second: f64,
    /// Average RU/s over the last 10 complete seconds.
    pub ru_per_s_10s: f64,
    pub ru_total: f64,
    pub throttled: u64,
    /// Requests charged to this partition since the engine opened.
    pub requests: u64,
    /// RU consumed in each complete second of the last minute (59 of them), oldest first.
    pub ru_per_second: Vec<f64>,
    /// Average RU/s over those seconds.
    pub ru_per_s_last_minute: f64,
    /// 429s answered during the last 60 seconds.
    pub throttled_last_minute: u64,
}

impl PartitionLoad {
    /// A partition no request has been charged to yet.
    pub fn idle(partition: u32) -> Self {
        PartitionLoad {
            partition,
            budget_ru_per_s: None,
            ru_last_second: 0.0,
            ru_per_s_10s: 0.0,
            ru_total: 0.0,
            throttled: 0,
            requests: 0,
            ru_per_second: Vec::new(),
            ru_per_s_last_minute: 0.0,
            throttled_last_minute: 0,
        }
    }
}

/// A database's shared RU/s: one bucket that every container of the database without RU/s of
/// its own draws from, whatever its partitions (the service spreads a shared budget over the
/// database's partitions as load needs; one bucket is the simplest model that keeps the total).
#[derive(Default)]
pub struct SharedBudget {
    ru_per_s: RwLock<Option<f64>>,
    /// Tokens and when they were last refilled.
    bucket: Mutex<Option<(f64, Instant)>>,
}

impl SharedBudget {
    /// (Re)sets the budget; `None` = unlimited.
    pub fn configure(&self, ru_per_s: Option<u32>) {
        let ru = ru_per_s.map(f64::from);
        *self.ru_per_s.write() = ru;
        let mut b = self.bucket.lock();
        *b = ru.map(|r| {
            let tokens = b.map_or(r, |(t, _)| t.min(r));
            (tokens, Instant::now())
        });
    }

    fn ru_per_s(&self) -> Option<f64> {
        *self.ru_per_s.read()
    }

    /// The tokens after refilling; `None` when unlimited.
    fn refilled(&self, take: f64) -> Option<(f64, f64)> {
        let ru = self.ru_per_s()?;
        let mut b = self.bucket.lock();
        let (tokens, at) = b.get_or_insert((ru, Instant::now()));
        let now = Instant::now();
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * ru).min(ru) - take;
        *at = now;
        Some((*tokens, ru))
    }
}

pub struct Throughput {
    epoch: Instant,
    per_partition: RwLock<Option<f64>>,
    buckets: RwLock<HashMap<u32, Mutex<Bucket>>>,
    /// The database's shared budget, used while the container has no RU/s of its own.
    shared: RwLock<Option<Arc<SharedBudget>>>,
}

impl Throughput {
    pub fn new(ru_per_s: Option<u32>, map: &PartitionMap) -> Self {
        let t = Throughput {
            epoch: Instant::now(),
            per_partition: RwLock::new(None),
            buckets: RwLock::default(),
            shared: RwLock::default(),
        };
        t.configure(ru_per_s, map);
        t
    }

    /// (Re)splits the container's RU/s across its partitions, after creation, a split or a change.
    pub fn configure(&self, ru_per_s: Option<u32>, map: &PartitionMap) {
        let share = ru_per_s.map(|r| r as f64 / map.len().max(1) as f64);
        *self.per_partition.write() = share;
        let mut buckets = self.buckets.write();
        buckets.retain(|id, _| map.partitions.iter().any(|p| p.id == *id));
        for p in &map.partitions {
            let b = buckets.entry(p.id).or_insert_with(|| {
                Mutex::new(Bucket {
                    tokens: share.unwrap_or(0.0),
                    refilled: Instant::now(),
                    throttled: 0,
                    ru_total: 0.0,
                    requests: 0,
                    seconds: [0.0; HISTORY],
                    throttled_seconds: [0; HISTORY],
                    current_second: 0,
                })
            });
            let mut b = b.lock();
            if let Some(s) = share {
                b.tokens = b.tokens.min(s);
            }
        }
    }

    /// Draws on `budget` (its database's) while the container has no RU/s of its own.
    pub fn share(&self, budget: Option<Arc<SharedBudget>>) {
        *self.shared.write() = budget;
    }

    fn shared_budget(&self) -> Option<Arc<SharedBudget>> {
        self.shared.read().clone()
    }

    /// The RU/s that limit partition `pp`: its own share, else the database's whole budget.
    fn budget(&self) -> Option<f64> {
        let own = *self.per_partition.read();
        own.or_else(|| self.shared_budget().and_then(|b| b.ru_per_s()))
    }

    fn refill(b: &mut Bucket, share: f64) {
        let now = Instant::now();
        let dt = now.duration_since(b.refilled).as_secs_f64();
        b.refilled = now;
        // One second of budget is the most a partition can bank: bursts are bounded.
        b.tokens = (b.tokens + dt * share).min(share);
    }

    /// Refuses with 429 while partition `pp` is in debt.
    pub fn admit(&self, pp: u32) -> Result<()> {
        let buckets = self.buckets.read();
        let Some(b) = buckets.get(&pp) else {
            return Ok(());
        };
        let mut b = b.lock();
        let (tokens, budget) = match *self.per_partition.read() {
            Some(share) => {
                Self::refill(&mut b, share);
                (b.tokens, share)
            }
            None => match self.shared_budget().and_then(|s| s.refilled(0.0)) {
                Some(shared) => shared,
                None => return Ok(()),
            },
        };
        if tokens < 0.0 {
            b.throttled += 1;
            let sec = self.epoch.elapsed().as_secs();
            Self::advance(&mut b, sec);
            b.throttled_seconds[(sec as usize) % HISTORY] += 1;
            let wait = Duration::from_secs_f64(-tokens / budget).max(Duration::from_millis(1));
            return Err(Error::TooManyRequests {
                partition: pp,
                budget_ru_per_s: budget,
                retry_after: wait,
            });
        }
        Ok(())
    }

    /// Takes `ru` from partition `pp`'s budget and records it.
    pub fn charge(&self, pp: u32, ru: f64) {
        let share = *self.per_partition.read();
        let buckets = self.buckets.read();
        let Some(b) = buckets.get(&pp) else { return };
        let mut b = b.lock();
        if let Some(share) = share {
            Self::refill(&mut b, share);
            b.tokens -= ru;
        } else if let Some(shared) = self.shared_budget() {
            shared.refilled(ru);
        }
        b.ru_total += ru;
        b.requests += 1;
        let sec = self.epoch.elapsed().as_secs();
        Self::advance(&mut b, sec);
        b.seconds[(sec as usize) % HISTORY] += ru;
    }

    fn advance(b: &mut Bucket, sec: u64) {
        if sec > b.current_second {
            for s in (b.current_second + 1)..=sec.min(b.current_second + HISTORY as u64) {
                b.seconds[(s as usize) % HISTORY] = 0.0;
                b.throttled_seconds[(s as usize) % HISTORY] = 0;
            }
            b.current_second = sec;
        }
    }

    pub fn loads(&self) -> Vec<PartitionLoad> {
        let share = self.budget();
        let sec = self.epoch.elapsed().as_secs();
        let buckets = self.buckets.read();
        let mut v: Vec<_> = buckets
            .iter()
            .map(|(id, b)| {
                let mut b = b.lock();
                Self::advance(&mut b, sec);
                let back = |n: u64| {
                    if sec >= n {
                        b.seconds[((sec - n) as usize) % HISTORY]
                    } else {
                        0.0
                    }
                };
                let ru_per_second: Vec<f64> = (1..HISTORY as u64).rev().map(back).collect();
                PartitionLoad {
                    partition: *id,
                    budget_ru_per_s: share,
                    ru_last_second: back(1),
                    ru_per_s_10s: (1..=10).map(back).sum::<f64>() / 10.0,
                    ru_total: b.ru_total,
                    throttled: b.throttled,
                    requests: b.requests,
                    ru_per_s_last_minute: ru_per_second.iter().sum::<f64>()
                        / ru_per_second.len() as f64,
                    ru_per_second,
                    throttled_last_minute: b.throttled_seconds.iter().map(|&n| n as u64).sum(),
                }
            })
            .collect();
        v.sort_by_key(|l| l.partition);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debt_gives_429_with_retry_after() {
        let t = Throughput::new(Some(100), &PartitionMap::evenly(2)); // 50 RU/s each
        t.admit(0).unwrap();
        t.charge(0, 60.0); // 50 banked - 60 = -10 → about 200 ms of debt
        let e = t.admit(0).unwrap_err();
        assert_eq!(e.status_code(), 429);
        let wait = e.retry_after().unwrap();
        assert!(
            wait > Duration::from_millis(50) && wait <= Duration::from_millis(210),
            "{wait:?}"
        );
        t.admit(1).unwrap(); // the other partition is unaffected
        let loads = t.loads();
        assert_eq!(loads[0].throttled, 1);
        assert_eq!(loads[0].throttled_last_minute, 1);
        assert_eq!(loads[0].requests, 1);
        assert_eq!(loads[1].throttled_last_minute, 0);
    }

    #[test]
    fn containers_without_their_own_budget_share_their_database_s() {
        let db = Arc::new(SharedBudget::default());
        db.configure(Some(100));
        let (a, b) = (
            Throughput::new(None, &PartitionMap::evenly(1)),
            Throughput::new(None, &PartitionMap::evenly(2)),
        );
        let own = Throughput::new(Some(1000), &PartitionMap::evenly(1));
        for t in [&a, &b, &own] {
            t.share(Some(db.clone()));
        }
        a.admit(0).unwrap();
        a.charge(0, 70.0);
        b.admit(1).unwrap();
        b.charge(1, 50.0); // 100 - 120 = -20: the database's budget is spent, for both
        for (t, pp) in [(&a, 0), (&b, 0), (&b, 1)] {
            let e = t.admit(pp).unwrap_err();
            assert_eq!(e.status_code(), 429);
            assert!(e.retry_after().unwrap() <= Duration::from_millis(210));
        }
        // A container with RU/s of its own keeps them.
        own.admit(0).unwrap();
        assert_eq!(a.loads()[0].budget_ru_per_s, Some(100.0));
        // Raised, the shared budget serves again once its debt is paid.
        db.configure(None);
        a.admit(0).unwrap();
    }

    #[test]
    fn unlimited_never_throttles() {
        let t = Throughput::new(None, &PartitionMap::evenly(1));
        t.charge(0, 1e9);
        t.admit(0).unwrap();
    }
}
