//! What each request cost on this instance, per model: every successful request the pages make
//! is recorded (RU from the request's ledger, latency of its engine calls), so `/models` shows
//! averages over real traffic (a k6 model run, people browsing, or the page's own sample run).

use std::collections::BTreeMap;
use std::time::Duration;

use parking_lot::Mutex;

use super::Request;

/// Running figures of one request on one model.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stat {
    pub count: u64,
    pub ru_sum: f64,
    pub ms_sum: f64,
    pub ru_max: f64,
}

impl Stat {
    pub fn ru_mean(&self) -> f64 {
        self.ru_sum / self.count.max(1) as f64
    }
    pub fn ms_mean(&self) -> f64 {
        self.ms_sum / self.count.max(1) as f64
    }
}

#[derive(Debug, Default)]
pub struct Measurements {
    stats: Mutex<BTreeMap<(&'static str, Request), Stat>>,
    sampled: std::sync::atomic::AtomicBool,
}

impl Measurements {
    /// True once, for the caller that should run the first sample (the first view of an empty
    /// `/models`), false for everyone after.
    pub fn claim_first_sample(&self) -> bool {
        self.stats.lock().is_empty()
            && !self.sampled.swap(true, std::sync::atomic::Ordering::SeqCst)
    }

    pub fn record(&self, version: &'static str, request: Request, ru: f64, took: Duration) {
        let mut stats = self.stats.lock();
        let s = stats.entry((version, request)).or_default();
        s.count += 1;
        s.ru_sum += ru;
        s.ms_sum += took.as_secs_f64() * 1000.0;
        s.ru_max = s.ru_max.max(ru);
    }

    pub fn get(&self, version: &str, request: Request) -> Option<Stat> {
        self.stats
            .lock()
            .iter()
            .find(|((v, r), _)| *v == version && *r == request)
            .map(|(_, s)| *s)
    }

    pub fn clear(&self) {
        self.stats.lock().clear();
    }
}
