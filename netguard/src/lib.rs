//! What every server of the workspace checks at its door, shared by the sites (`sitekit`, the
//! explorer) and the gateway, which do not depend on each other:
//!
//! - [`hosts`]: the host names a server answers to. A DNS-rebinding page reaches 127.0.0.1 under
//!   a name of its own, so its requests carry that name in `Host` (and `Origin`): refused.
//! - [`PerAddress`]: a count per client address (requests in flight for the sites, open
//!   connections for the gateway), so one address cannot take the whole process.

pub mod hosts;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};

pub use hosts::AllowedHosts;

/// How many of something each client address holds, shared by a server's workers.
#[derive(Debug, Default)]
pub struct PerAddress(Mutex<HashMap<IpAddr, usize>>);

/// One of an address's count, until dropped.
#[derive(Debug)]
pub struct Slot {
    table: Arc<PerAddress>,
    ip: IpAddr,
}

impl PerAddress {
    /// One more for `ip`, unless it already holds `max`.
    pub fn take(self: &Arc<Self>, ip: IpAddr, max: usize) -> Option<Slot> {
        let mut map = self.lock();
        let n = map.entry(ip).or_insert(0);
        if *n >= max {
            return None;
        }
        *n += 1;
        Some(Slot {
            table: self.clone(),
            ip,
        })
    }

    /// What `ip` holds now.
    pub fn count(&self, ip: IpAddr) -> usize {
        self.lock().get(&ip).copied().unwrap_or(0)
    }

    /// The map, even after a panic elsewhere while it was held (counts stay meaningful).
    fn lock(&self) -> MutexGuard<'_, HashMap<IpAddr, usize>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut map = self.table.lock();
        if let Some(n) = map.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_holds_at_most_max_until_a_slot_is_dropped() {
        let table = Arc::new(PerAddress::default());
        let a: IpAddr = "127.0.0.1".parse().unwrap();
        let b: IpAddr = "127.0.0.2".parse().unwrap();
        let first = table.take(a, 2).unwrap();
        let _second = table.take(a, 2).unwrap();
        assert!(table.take(a, 2).is_none());
        assert!(
            table.take(b, 2).is_some(),
            "other addresses are not affected"
        );
        drop(first);
        assert_eq!(table.count(a), 1);
        assert!(table.take(a, 2).is_some());
    }
}
