//! Throttles, in memory (a restart forgets, which only ever helps a legitimate user).
//!
//! [`SignInThrottle`] slows password guessing with separate counters: one per account, one per
//! client address (a name like `127.0.0.30` and the address 127.0.0.30 are different keys in
//! different maps), and one per device cookie ([`crate::accounts::device`]). After a few free failures each
//! further failure doubles the wait, up to a cap. An attempt is counted as a failure *before* its
//! password is verified ([`SignInThrottle::begin`], one lock per counter), and given back only
//! when the password was right: sixty simultaneous guesses get five verified, not sixty, and a
//! request abandoned half-way stays counted. A browser that signed in to the account before
//! (OWASP's device cookie) is counted on its own counter instead of the account's, so failures
//! from anywhere else cannot keep the owner out. A successful sign-in resets only its own
//! account's (or device's) counter and gives its own attempt back to the address, never more (a
//! guesser must not clear their slate by signing in to their own account between guesses).
//!
//! [`RateLimit`] bounds how often one address (or account) may do something costly (sign up: an
//! argon2id hash; a fan-out page: hundreds of RU; a post: a Markdown render).

use std::collections::{HashMap, VecDeque};
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

    #[cfg(test)]
    fn wait(&self, key: &str) -> Option<Duration> {
        let keys = self.keys.lock();
        let f = keys.get(key)?;
        let now = Instant::now();
        (f.blocked_until > now).then(|| f.blocked_until - now)
    }

    /// Counts one attempt of `key` as failed, unless the key must wait: then the wait, and
    /// nothing counted. Check and count are one step under one lock.
    fn take(&self, key: &str) -> Result<(), Duration> {
        let now = Instant::now();
        let mut keys = self.keys.lock();
        if let Some(f) = keys.get(key) {
            if f.blocked_until > now {
                return Err(f.blocked_until - now);
            }
        }
        self.count(&mut keys, key, now);
        Ok(())
    }

    /// Gives back one attempt counted by [`take`](Self::take) (its password was right).
    fn refund(&self, key: &str) {
        let now = Instant::now();
        let mut keys = self.keys.lock();
        if let Some(f) = keys.get_mut(key) {
            f.count = f.count.saturating_sub(1);
            if f.count < self.free {
                f.blocked_until = f.blocked_until.min(now);
            }
        }
    }

    fn count(&self, keys: &mut HashMap<String, Failures>, key: &str, now: Instant) {
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
        if let Some(wait) = self.wait_after(f.count) {
            f.blocked_until = now + wait;
        }
    }

    /// The wait after `count` failures, if any.
    fn wait_after(&self, count: u32) -> Option<Duration> {
        (count >= self.free).then(|| {
            let doublings = (count - self.free).min(20);
            self.first_wait
                .saturating_mul(1 << doublings)
                .min(self.max_wait)
        })
    }

    /// The attempt counted by [`take`](Self::take) turned out wrong: its wait runs from now
    /// (the verdict), not from when it was counted (a slow verification would eat the wait).
    fn confirm(&self, key: &str) {
        let now = Instant::now();
        let mut keys = self.keys.lock();
        if let Some(f) = keys.get_mut(key) {
            if let Some(wait) = self.wait_after(f.count) {
                f.blocked_until = f.blocked_until.max(now + wait);
            }
        }
    }

    fn reset(&self, key: &str) {
        self.keys.lock().remove(key);
    }
}

/// How many failures are free and how long the waits after them get.
#[derive(Debug, Clone)]
pub struct SignInPolicy {
    /// Free failures per account from browsers it does not recognise, and per device cookie.
    pub account_free: u32,
    /// Free failures per client address (one address may hold many accounts' users: an office).
    pub address_free: u32,
    /// The wait after the last free failure, doubled by each further one.
    pub first_wait: Duration,
    pub account_max_wait: Duration,
    pub address_max_wait: Duration,
}

impl Default for SignInPolicy {
    /// Accounts and devices: 5 free failures, then 1 s doubling up to 5 minutes. Addresses: 20
    /// free, then 1 s doubling up to 15 minutes.
    fn default() -> Self {
        SignInPolicy {
            account_free: 5,
            address_free: 20,
            first_wait: Duration::from_secs(1),
            account_max_wait: Duration::from_secs(300),
            address_max_wait: Duration::from_secs(900),
        }
    }
}

pub struct SignInThrottle {
    /// Attempts from browsers the account does not recognise.
    accounts: Backoff,
    addresses: Backoff,
    /// Attempts from a browser holding a device cookie of the account, by the cookie's id.
    devices: Backoff,
}

impl Default for SignInThrottle {
    fn default() -> Self {
        SignInThrottle::with_policy(&SignInPolicy::default())
    }
}

/// A sign-in attempt, counted as a failure until [`SignInThrottle::succeeded`] says otherwise.
#[must_use = "an attempt stays counted as a failure unless it succeeded"]
pub struct Attempt {
    account: String,
    address: String,
    device: Option<String>,
}

impl SignInThrottle {
    pub fn with_policy(p: &SignInPolicy) -> Self {
        SignInThrottle {
            accounts: Backoff::new(p.account_free, p.first_wait, p.account_max_wait),
            addresses: Backoff::new(p.address_free, p.first_wait, p.address_max_wait),
            devices: Backoff::new(p.account_free, p.first_wait, p.account_max_wait),
        }
    }

    /// For tests: `free` failures per account, device and address, then `first_wait` doubling.
    pub fn new(free: u32, first_wait: Duration, max_wait: Duration) -> Self {
        SignInThrottle::with_policy(&SignInPolicy {
            account_free: free,
            address_free: free,
            first_wait,
            account_max_wait: max_wait,
            address_max_wait: max_wait,
        })
    }

    /// Counts an attempt on `account` from `address` as failed before its password is checked,
    /// or a 429 with the wait (nothing counted) when the account or the address must wait.
    /// `device` is the id of the account's device cookie the browser holds, if any: its own
    /// counter is used instead of the account's.
    pub fn begin(
        &self,
        account: &str,
        address: &str,
        device: Option<&str>,
    ) -> Result<Attempt, WebError> {
        let (counter, key) = match device {
            Some(d) => (&self.devices, d),
            None => (&self.accounts, account),
        };
        counter.take(key).map_err(WebError::TooManyAttempts)?;
        if let Err(wait) = self.addresses.take(address) {
            counter.refund(key);
            return Err(WebError::TooManyAttempts(wait));
        }
        Ok(Attempt {
            account: account.to_owned(),
            address: address.to_owned(),
            device: device.map(str::to_owned),
        })
    }

    /// The attempt's password was wrong (or it had no account): it stays counted, and the waits
    /// it started run from now.
    pub fn failed(&self, attempt: Attempt) {
        match &attempt.device {
            Some(d) => self.devices.confirm(d),
            None => self.accounts.confirm(&attempt.account),
        }
        self.addresses.confirm(&attempt.address);
    }

    /// The attempt's password was right: its account's (or device's) counter starts over, and
    /// the address gets this one attempt back (only this one).
    pub fn succeeded(&self, attempt: Attempt) {
        match &attempt.device {
            Some(d) => self.devices.reset(d),
            None => self.accounts.reset(&attempt.account),
        }
        self.addresses.refund(&attempt.address);
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

/// At most `n` events per key in any minute: the times of the last `n` are kept, so the
/// `n + 1`-th within a minute is refused however they were spread (0: no limit).
pub struct WindowLimit {
    n: usize,
    keys: Mutex<HashMap<String, VecDeque<Instant>>>,
}

impl WindowLimit {
    const WINDOW: Duration = Duration::from_secs(60);

    pub fn per_minute(n: u32) -> WindowLimit {
        WindowLimit {
            n: n as usize,
            keys: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one event for `key`, or a 429 with the time until one is available.
    pub fn take(&self, key: &str) -> Result<(), WebError> {
        if self.n == 0 {
            return Ok(());
        }
        let now = Instant::now();
        let mut keys = self.keys.lock();
        if keys.len() > 100_000 {
            keys.retain(|_, times| times.back().is_some_and(|t| now - *t < Self::WINDOW));
        }
        let times = keys.entry(key.to_owned()).or_default();
        while times.front().is_some_and(|t| now - *t >= Self::WINDOW) {
            times.pop_front();
        }
        if times.len() < self.n {
            times.push_back(now);
            return Ok(());
        }
        let oldest = times.front().copied().unwrap_or(now);
        Err(WebError::TooManyAttempts(oldest + Self::WINDOW - now))
    }
}

/// Pages that cost hundreds of RU (the blog's V1 and V2 feeds and fan-outs, the `/models`
/// measurement, WebStore's search and tag fan-outs), metered per signed-in account, and per
/// client address for anonymous visitors: an account is not a way around the limit.
pub struct ExpensiveLimit(pub WindowLimit);

impl ExpensiveLimit {
    /// Takes one expensive page for `user` if signed in, else for the client's address.
    pub fn take_for(
        &self,
        user: Option<&crate::accounts::auth::SignedIn>,
        req: &actix_web::HttpRequest,
    ) -> Result<(), WebError> {
        match user {
            Some(u) => self.0.take(&format!("account:{}", u.id)),
            None => self.0.take(&format!(
                "address:{}",
                crate::http::proxy::client_address(req)
            )),
        }
    }
}

/// Posts, edits and comments per signed-in account (each may cost a Markdown render and a few
/// writes), keyed by the account's id.
pub struct WriteLimit(pub RateLimit);

#[cfg(test)]
mod tests {
    use super::*;

    fn waits(r: Result<(), WebError>) -> bool {
        matches!(r, Err(WebError::TooManyAttempts(_)))
    }

    /// `n` attempts that failed.
    fn fail(t: &SignInThrottle, n: usize, account: &str, address: &str, device: Option<&str>) {
        for _ in 0..n {
            drop(t.begin(account, address, device).unwrap());
        }
    }

    #[test]
    fn accounts_and_addresses_are_separate_key_spaces() {
        let t = SignInThrottle::new(3, Duration::from_secs(60), Duration::from_secs(600));
        fail(&t, 3, "127.0.0.30", "10.0.0.1", None);
        // The account named like an address is slowed; the address itself is not.
        assert!(waits(t.begin("127.0.0.30", "10.0.0.2", None).map(drop)));
        assert!(t.begin("someone", "127.0.0.30", None).is_ok());
    }

    #[test]
    fn attempts_are_counted_before_their_outcome() {
        let t = SignInThrottle::new(5, Duration::from_secs(60), Duration::from_secs(600));
        // Sixty at once: five get through to a password check, the rest wait.
        let attempts: Vec<_> = (0..60).map(|_| t.begin("victim", "a", None)).collect();
        assert_eq!(attempts.iter().filter(|a| a.is_ok()).count(), 5);
    }

    #[test]
    fn success_resets_only_its_own_account() {
        let t = SignInThrottle::new(3, Duration::from_secs(60), Duration::from_secs(600));
        fail(&t, 3, "victim", "attacker", None);
        // The attacker's own account: refused too (the address waits), nothing reset.
        assert!(waits(t.begin("attackers-own", "attacker", None).map(drop)));
        let right = t.begin("victim", "elsewhere", None);
        assert!(waits(right.map(drop)), "the account waits");
        // Success gives back its own attempt, never the address's earlier failures.
        let t = SignInThrottle::new(3, Duration::from_secs(60), Duration::from_secs(600));
        fail(&t, 2, "victim", "attacker", None);
        t.succeeded(t.begin("attackers-own", "attacker", None).unwrap());
        fail(&t, 1, "victim2", "attacker", None);
        assert!(waits(t.begin("other", "attacker", None).map(drop)));
    }

    #[test]
    fn a_recognised_device_is_not_kept_out_by_others_failures() {
        let t = SignInThrottle::new(3, Duration::from_secs(60), Duration::from_secs(600));
        for i in 0..12 {
            let _ = t.begin("owner", &format!("10.0.0.{i}"), None);
        }
        assert!(waits(t.begin("owner", "10.9.9.9", None).map(drop)));
        let a = t.begin("owner", "10.9.9.9", Some("device-1")).unwrap();
        t.succeeded(a);
        // A stolen device cookie gets its own few guesses, no more.
        fail(&t, 3, "owner", "10.0.1.1", Some("device-1"));
        assert!(waits(
            t.begin("owner", "10.0.1.2", Some("device-1")).map(drop)
        ));
    }

    #[test]
    fn waits_double_up_to_the_cap() {
        let b = Backoff::new(2, Duration::from_secs(1), Duration::from_secs(5));
        let mut seen = Vec::new();
        for _ in 0..6 {
            let now = Instant::now();
            b.count(&mut b.keys.lock(), "k", now);
            seen.push(b.wait("k").map(|d| d.as_secs_f64().round() as u64));
        }
        assert_eq!(
            seen,
            vec![None, Some(1), Some(2), Some(4), Some(5), Some(5)]
        );
    }

    #[test]
    fn a_window_limit_refuses_the_next_within_the_minute() {
        let w = WindowLimit::per_minute(30);
        assert!((0..30).all(|_| w.take("a").is_ok()));
        assert!(waits(w.take("a")));
        assert!(w.take("b").is_ok());
        let off = WindowLimit::per_minute(0);
        assert!((0..1000).all(|_| off.take("a").is_ok()));
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
