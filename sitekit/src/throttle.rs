//! Throttles, in memory (a restart forgets, which only ever helps a legitimate user).
//!
//! [`SignInThrottle`] slows password guessing with two separate counters: one per account, one
//! per client address (a name like `127.0.0.30` and the address 127.0.0.30 are different keys in
//! different maps). After a few free failures each further failure doubles the wait, up to a
//! cap: an attacker is slowed to a crawl while the real user, from another address, waits
//! seconds instead of being locked out for 15 minutes. A successful sign-in resets only its own
//! account's counter, never the address's (a guesser must not clear their slate by signing in to
//! their own account between guesses).
//!
//! [`RateLimit`] bounds how often one address may do something costly (sign up: an argon2id
//! hash; an anonymous fan-out page: hundreds of RU).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::WebError;

/// Failures of one key: how many, and when the next attempt is allowed.
#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    last: Instant,
    blocked_until: Instant,
}

/// Exponential back-off per key.
struct Backoff {
    free: u32,
    first_wait: Duration,
    max_wait: Duration,
    /// A key without failures for this long starts over.
    forget_after: Duration,
    keys: Mutex<HashMap<String, Failures>>,
}

impl Backoff {
    fn new(free: u32, first_wait: Duration, max_wait: Duration) -> Backoff {
        Backoff {
            free,
            first_wait,
            max_wait,
            forget_after: Duration::from_secs(3600),
            keys: Mutex::new(HashMap::new()),
        }
    }

    fn wait(&self, key: &str) -> Option<Duration> {
        let keys = self.keys.lock();
        let f = keys.get(key)?;
        let now = Instant::now();
        (f.blocked_until > now).then(|| f.blocked_until - now)
    }

    fn failed(&self, key: &str) {
        let now = Instant::now();
        let mut keys = self.keys.lock();
        if keys.len() > 100_000 {
            let forget = self.forget_after;
            keys.retain(|_, f| now.duration_since(f.last) < forget);
        }
        let f = keys.entry(key.to_owned()).or_insert(Failures {
            count: 0,
            last: now,
            blocked_until: now,
        });
        if now.duration_since(f.last) >= self.forget_after {
            f.count = 0;
        }
        f.count += 1;
        f.last = now;
        if f.count >= self.free {
            let doublings = (f.count - self.free).min(20);
            let wait = self
                .first_wait
                .saturating_mul(1 << doublings)
                .min(self.max_wait);
            f.blocked_until = now + wait;
        }
    }

    fn reset(&self, key: &str) {
        self.keys.lock().remove(key);
    }
}

pub struct SignInThrottle {
    accounts: Backoff,
    addresses: Backoff,
}

impl Default for SignInThrottle {
    /// Accounts: 5 free failures, then 1 s doubling up to 5 minutes. Addresses: 20 free, then
    /// 1 s doubling up to 15 minutes (one address may hold many accounts' users: an office).
    fn default() -> Self {
        SignInThrottle {
            accounts: Backoff::new(5, Duration::from_secs(1), Duration::from_secs(300)),
            addresses: Backoff::new(20, Duration::from_secs(1), Duration::from_secs(900)),
        }
    }
}

impl SignInThrottle {
    /// For tests: `free` failures per account and per address, then `first_wait` doubling.
    pub fn new(free: u32, first_wait: Duration, max_wait: Duration) -> Self {
        SignInThrottle {
            accounts: Backoff::new(free, first_wait, max_wait),
            addresses: Backoff::new(free, first_wait, max_wait),
        }
    }

    /// A 429 with the wait when the account or the address must wait.
    pub fn check(&self, account: &str, address: &str) -> Result<(), WebError> {
        let wait = self
            .accounts
            .wait(account)
            .into_iter()
            .chain(self.addresses.wait(address))
            .max();
        match wait {
            Some(w) => Err(WebError::TooManyAttempts(w)),
            None => Ok(()),
        }
    }

    pub fn failed(&self, account: &str, address: &str) {
        self.accounts.failed(account);
        self.addresses.failed(address);
    }

    /// A correct password for `account`: its counter starts over (the address's does not).
    pub fn succeeded(&self, account: &str) {
        self.accounts.reset(account);
    }
}

/// At most `burst` events per address, refilled at `per_minute` (a token bucket); a rate of
/// 0 means no limit (load tests sign many users up from one address).
pub struct RateLimit {
    burst: f64,
    per_second: f64,
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

impl RateLimit {
    pub fn per_minute(per_minute: u32, burst: u32) -> RateLimit {
        RateLimit {
            burst: burst.max(1) as f64,
            per_second: per_minute as f64 / 60.0,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one event for `address`, or a 429 with the time until one is available.
    pub fn take(&self, address: &str) -> Result<(), WebError> {
        if self.per_second <= 0.0 {
            return Ok(());
        }
        let now = Instant::now();
        let mut buckets = self.buckets.lock();
        if buckets.len() > 100_000 {
            let (burst, rate) = (self.burst, self.per_second);
            buckets.retain(|_, (tokens, at)| {
                *tokens + now.duration_since(*at).as_secs_f64() * rate < burst
            });
        }
        let (tokens, at) = buckets
            .entry(address.to_owned())
            .or_insert((self.burst, now));
        *tokens =
            (*tokens + now.duration_since(*at).as_secs_f64() * self.per_second).min(self.burst);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            let wait = (1.0 - *tokens) / self.per_second;
            Err(WebError::TooManyAttempts(Duration::from_secs_f64(wait)))
        }
    }
}

/// Sign-ups per client address (each costs an argon2id hash and two writes).
pub struct SignUpLimit(pub RateLimit);

/// Anonymous requests per client address to pages that cost hundreds of RU (the blog's V1 and
/// V2 demo feeds, the `/models` measurement).
pub struct ExpensiveLimit(pub RateLimit);

#[cfg(test)]
mod tests {
    use super::*;

    fn waits(r: Result<(), WebError>) -> bool {
        matches!(r, Err(WebError::TooManyAttempts(_)))
    }

    #[test]
    fn accounts_and_addresses_are_separate_key_spaces() {
        let t = SignInThrottle::new(3, Duration::from_secs(60), Duration::from_secs(600));
        for _ in 0..3 {
            t.failed("127.0.0.30", "10.0.0.1");
        }
        // The account named like an address is slowed; the address itself is not.
        assert!(waits(t.check("127.0.0.30", "10.0.0.2")));
        assert!(t.check("someone", "127.0.0.30").is_ok());
    }

    #[test]
    fn success_resets_only_its_own_account() {
        let t = SignInThrottle::new(3, Duration::from_secs(60), Duration::from_secs(600));
        for _ in 0..3 {
            t.failed("victim", "attacker");
        }
        t.succeeded("attackers-own");
        assert!(waits(t.check("other", "attacker")), "address still slowed");
        t.succeeded("victim");
        assert!(t.check("victim", "elsewhere").is_ok());
    }

    #[test]
    fn waits_double_up_to_the_cap() {
        let b = Backoff::new(2, Duration::from_secs(1), Duration::from_secs(5));
        let mut seen = Vec::new();
        for _ in 0..6 {
            b.failed("k");
            seen.push(b.wait("k").map(|d| d.as_secs_f64().round() as u64));
        }
        assert_eq!(
            seen,
            vec![None, Some(1), Some(2), Some(4), Some(5), Some(5)]
        );
    }

    #[test]
    fn rate_limit_allows_a_burst_then_refuses() {
        let r = RateLimit::per_minute(1, 3);
        for _ in 0..3 {
            assert!(r.take("a").is_ok());
        }
        assert!(waits(r.take("a")));
        assert!(r.take("b").is_ok(), "per address");
        let off = RateLimit::per_minute(0, 0);
        assert!((0..1000).all(|_| off.take("a").is_ok()));
    }
}
