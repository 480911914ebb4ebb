//! Time to live, as Cosmos DB defines it: an item expires `ttl` seconds after its last write
//! (`_ts`). The container's `default_ttl` turns the feature on (`None` = off, items' own `ttl`
//! ignored; `-1` = on, nothing expires by default); an item's `ttl` overrides it (`-1` = never).

use crate::storage::keys::DocHeader;

pub fn is_expired(header: &DocHeader, default_ttl: Option<i64>, now: u64) -> bool {
    let Some(default) = default_ttl else {
        return false;
    };
    let ttl = header.ttl.unwrap_or(default);
    ttl > 0 && header.ts.saturating_add(ttl as u64) <= now
}

/// When an item written at `ts` with its own `ttl` expires, if it ever does.
pub fn expires_at(ts: u64, item_ttl: Option<i64>, default_ttl: Option<i64>) -> Option<u64> {
    let default = default_ttl?;
    let ttl = item_ttl.unwrap_or(default);
    (ttl > 0).then(|| ts.saturating_add(ttl as u64))
}

/// Seconds since the Unix epoch.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(ts: u64, ttl: Option<i64>) -> DocHeader {
        DocHeader { lsn: 1, ts, ttl }
    }

    #[test]
    fn rules() {
        assert!(
            !is_expired(&h(0, Some(5)), None, 100),
            "TTL off ignores item ttl"
        );
        assert!(!is_expired(&h(0, None), Some(-1), 100));
        assert!(is_expired(&h(0, Some(5)), Some(-1), 100));
        assert!(is_expired(&h(0, None), Some(10), 10));
        assert!(!is_expired(&h(0, None), Some(10), 9));
        assert!(!is_expired(&h(0, Some(-1)), Some(10), 1000));
    }
}
