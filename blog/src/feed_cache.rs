//! The V1 and V2 feeds cost hundreds to thousands of RU (the article's point); anonymous
//! visitors would let anyone spend them at will. For anonymous visitors those pages are served
//! from a few-second cache, labelled as such with what the request that filled it cost, and a
//! cache miss takes from the address's [`sitekit::accounts::throttle::ExpensiveLimit`]. V3's feed (17 RU)
//! and signed-in visitors are served live.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::model::PostShort;

/// How long a cached feed is served.
pub const FRESH_FOR: Duration = Duration::from_secs(5);

#[derive(Clone)]
struct Entry {
    at: Instant,
    posts: Vec<PostShort>,
    request_charge: f64,
}

/// What a page says about a cached answer.
#[derive(Debug, Clone)]
pub struct Cached {
    pub age_secs: u64,
    pub request_charge: f64,
}

/// One cached feed per model.
#[derive(Default)]
pub struct FeedCache(Mutex<HashMap<&'static str, Entry>>);

impl FeedCache {
    pub fn get(&self, model: &'static str) -> Option<(Vec<PostShort>, Cached)> {
        let map = self.0.lock();
        let e = map.get(model)?;
        let age = e.at.elapsed();
        (age < FRESH_FOR).then(|| {
            (
                e.posts.clone(),
                Cached {
                    age_secs: age.as_secs(),
                    request_charge: e.request_charge,
                },
            )
        })
    }

    pub fn put(&self, model: &'static str, posts: Vec<PostShort>, request_charge: f64) {
        self.0.lock().insert(
            model,
            Entry {
                at: Instant::now(),
                posts,
                request_charge,
            },
        );
    }
}
