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

#[cfg(test)]
mod tests {
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
