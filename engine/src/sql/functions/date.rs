//! Date and time functions. Date-times are ISO 8601 UTC strings `YYYY-MM-DDThh:mm:ss.fffffffZ`.

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, TimeZone, Timelike, Utc};
use serde_json::Value;

use super::{int, s, string};
use crate::sql::value::Val;

pub(super) fn call(name: &str, a: &[Val]) -> Val {
    match name {
        "GETCURRENTDATETIME" => string(format_datetime(&Utc::now())),
        "GETCURRENTTIMESTAMP" => Some(Value::from(Utc::now().timestamp_millis())),
        "DATETIMEADD" => {
            let n = int(&a[1])?;
            let dt = parse_datetime(s(&a[2])?)?;
            let out = match part(s(&a[0])?)? {
                Part::Year => add_months(dt, n.checked_mul(12)?)?,
                Part::Month => add_months(dt, n)?,
                Part::Day => dt + Duration::try_days(n)?,
                Part::Hour => dt + Duration::try_hours(n)?,
                Part::Minute => dt + Duration::try_minutes(n)?,
                Part::Second => dt + Duration::try_seconds(n)?,
                Part::Millisecond => dt + Duration::try_milliseconds(n)?,
                Part::Microsecond => dt + Duration::microseconds(n),
                Part::Nanosecond => dt + Duration::nanoseconds(n),
            };
            string(format_datetime(&out))
        }
        "DATETIMEPART" => {
            let dt = parse_datetime(s(&a[1])?)?;
            Some(Value::from(match part(s(&a[0])?)? {
                Part::Year => dt.year() as i64,
                Part::Month => dt.month() as i64,
                Part::Day => dt.day() as i64,
                Part::Hour => dt.hour() as i64,
                Part::Minute => dt.minute() as i64,
                Part::Second => dt.second() as i64,
                Part::Millisecond => (dt.nanosecond() / 1_000_000) as i64,
                Part::Microsecond => (dt.nanosecond() / 1_000) as i64,
                Part::Nanosecond => dt.nanosecond() as i64,
            }))
        }
        "DATETIMEDIFF" => {
            let (x, y) = (parse_datetime(s(&a[1])?)?, parse_datetime(s(&a[2])?)?);
            // Boundaries crossed, as SQL's DATEDIFF counts them.
            Some(Value::from(match part(s(&a[0])?)? {
                Part::Year => (y.year() - x.year()) as i64,
                Part::Month => {
                    (y.year() - x.year()) as i64 * 12 + y.month() as i64 - x.month() as i64
                }
                Part::Day => (y.date_naive() - x.date_naive()).num_days(),
                Part::Hour => y.timestamp() / 3600 - x.timestamp() / 3600,
                Part::Minute => y.timestamp() / 60 - x.timestamp() / 60,
                Part::Second => y.timestamp() - x.timestamp(),
                Part::Millisecond => y.timestamp_millis() - x.timestamp_millis(),
                Part::Microsecond => y.timestamp_micros() - x.timestamp_micros(),
                Part::Nanosecond => y.timestamp_nanos_opt()? - x.timestamp_nanos_opt()?,
            }))
        }
        _ => None,
    }
}

enum Part {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Millisecond,
    Microsecond,
    Nanosecond,
}

fn part(p: &str) -> Option<Part> {
    Some(match p.to_ascii_lowercase().as_str() {
        "year" | "yyyy" | "yy" => Part::Year,
        "month" | "mm" | "m" => Part::Month,
        "day" | "dd" | "d" => Part::Day,
        "hour" | "hh" => Part::Hour,
        "minute" | "mi" | "n" => Part::Minute,
        "second" | "ss" | "s" => Part::Second,
        "millisecond" | "ms" => Part::Millisecond,
        "microsecond" | "mcs" => Part::Microsecond,
        "nanosecond" | "ns" => Part::Nanosecond,
        _ => return None,
    })
}

/// Cosmos DB's date-time strings: `YYYY-MM-DDThh:mm:ss.fffffffZ` (date-only accepted).
fn parse_datetime(x: &str) -> Option<DateTime<Utc>> {
    if let Ok(dt) = DateTime::parse_from_rfc3339(x) {
        return Some(dt.with_timezone(&Utc));
    }
    if let Ok(n) = NaiveDateTime::parse_from_str(x.trim_end_matches('Z'), "%Y-%m-%dT%H:%M:%S%.f") {
        return Some(Utc.from_utc_datetime(&n));
    }
    let d = NaiveDate::parse_from_str(x, "%Y-%m-%d").ok()?;
    Some(Utc.from_utc_datetime(&d.and_hms_opt(0, 0, 0)?))
}

fn format_datetime(dt: &DateTime<Utc>) -> String {
    format!(
        "{}.{:07}Z",
        dt.format("%Y-%m-%dT%H:%M:%S"),
        dt.nanosecond() / 100
    )
}

fn add_months(dt: DateTime<Utc>, months: i64) -> Option<DateTime<Utc>> {
    let total = dt.year() as i64 * 12 + dt.month0() as i64 + months;
    let (year, month0) = (total.div_euclid(12) as i32, total.rem_euclid(12) as u32);
    let last_day = (28..=31)
        .rev()
        .find(|d| NaiveDate::from_ymd_opt(year, month0 + 1, *d).is_some())?;
    let date = NaiveDate::from_ymd_opt(year, month0 + 1, dt.day().min(last_day))?;
    Some(Utc.from_utc_datetime(&date.and_time(dt.time())))
}
