//! Dates as Cosmos DB stores them: ISO 8601 UTC with seven fractional digits (100 ns ticks).

use chrono::Timelike;

pub fn iso(t: chrono::NaiveDateTime) -> String {
    format!(
        "{}.{:07}Z",
        t.format("%Y-%m-%dT%H:%M:%S"),
        t.nanosecond() / 100
    )
}

pub fn now() -> String {
    iso(chrono::Utc::now().naive_utc())
}

/// The date part of a stored date-time, for display.
pub fn day(iso: &str) -> &str {
    iso.get(..10).unwrap_or(iso)
}

/// Now in Unix seconds, the unit of the service's `_ts`.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A Unix time (a `_ts`, a checkpoint) as a reader takes it: `2026-11-27 13:05:09 UTC`. Pages
/// keep the raw seconds beside it (a `title`), the value a query compares `_ts` with. By
/// reference: templates pass their values so.
pub fn utc(secs: &u64) -> String {
    let secs = *secs;
    chrono::DateTime::from_timestamp(i64::try_from(secs).unwrap_or(i64::MAX), 0)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string())
        .unwrap_or_else(|| secs.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn unix_seconds_read_as_utc() {
        assert_eq!(super::utc(&0), "1970-01-01 00:00:00 UTC");
        assert_eq!(super::utc(&1_764_248_709), "2025-11-27 13:05:09 UTC");
        assert_eq!(super::utc(&u64::MAX), u64::MAX.to_string());
    }

    #[test]
    fn seven_fractional_digits() {
        let t = chrono::NaiveDate::from_ymd_opt(2026, 11, 23)
            .unwrap()
            .and_hms_nano_opt(6, 5, 4, 123_456_789)
            .unwrap();
        assert_eq!(super::iso(t), "2026-11-23T06:05:04.1234567Z");
        assert_eq!(super::day("2026-11-23T06:05:04.1234567Z"), "2026-11-23");
    }
}
