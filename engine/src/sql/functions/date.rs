//! Date and time functions. Date-times are ISO 8601 UTC strings `YYYY-MM-DDThh:mm:ss.fffffffZ`.

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, TimeZone, Timelike, Utc};
use serde_json::Value;

use super::args::{boolean, int, int64, s, string};
use crate::sql::value::{number, Val};

/// .NET ticks (100 ns) per second; Cosmos DB counts ticks from the Unix epoch.
const TICKS_PER_SECOND: i64 = 10_000_000;

/// The current-time functions at `now`. The `*Static` forms are evaluated once, when the query
/// is parsed, so every item of the query sees the same value.
pub fn current(name: &str, now: &DateTime<Utc>) -> Value {
    match name.trim_end_matches("STATIC") {
        "GETCURRENTDATETIME" => Value::String(format_datetime(now)),
        "GETCURRENTTIMESTAMP" => Value::from(now.timestamp_millis()),
        _ => Value::from(ticks(now)),
    }
}

pub(super) fn call(name: &str, a: &[Val]) -> Val {
    match name {
        "GETCURRENTDATETIME" | "GETCURRENTTIMESTAMP" | "GETCURRENTTICKS" => {
            Some(current(name, &Utc::now()))
        }
        // NOW() is the current time; NOW(part, n) and AGO(part, n) add or subtract `n` parts
        // of it, as DATETIMEADD does.
        "NOW" if a.is_empty() => Some(current("GETCURRENTDATETIME", &Utc::now())),
        "NOW" | "AGO" if a.len() == 2 => {
            let n = super::args::int(&a[1])?;
            let n = if name == "AGO" { n.checked_neg()? } else { n };
            let now = current("GETCURRENTDATETIME", &Utc::now());
            call(
                "DATETIMEADD",
                &[a[0].clone(), Some(Value::from(n)), Some(now)],
            )
        }
        "NOW" => None,
        "DATETIMETOTICKS" => Some(Value::from(ticks(&parse_datetime(s(&a[0])?)?))),
        "DATETIMETOTIMESTAMP" => Some(Value::from(parse_datetime(s(&a[0])?)?.timestamp_millis())),
        // Fractional counts are truncated.
        "TICKSTODATETIME" => {
            let t = whole(&a[0])?;
            let dt = DateTime::from_timestamp(
                t.div_euclid(TICKS_PER_SECOND),
                (t.rem_euclid(TICKS_PER_SECOND) * 100) as u32,
            )?;
            string(format_datetime(&in_range(dt)?))
        }
        "TIMESTAMPTODATETIME" => {
            let ms = whole(&a[0])?;
            string(format_datetime(&in_range(
                DateTime::from_timestamp_millis(ms)?,
            )?))
        }
        // Year, month, day and optionally hour, minute, second and the fraction of a second
        // in ticks (7 digits); every part must be an integer in its range.
        "DATETIMEFROMPARTS" => {
            let mut p = [0i64; 7];
            for (i, v) in a.iter().enumerate() {
                p[i] = int(v)?;
            }
            let (y, mo, d) = (
                i32::try_from(p[0]).ok()?,
                u32::try_from(p[1]).ok()?,
                u32::try_from(p[2]).ok()?,
            );
            let (h, mi, sec) = (
                u32::try_from(p[3]).ok()?,
                u32::try_from(p[4]).ok()?,
                u32::try_from(p[5]).ok()?,
            );
            let frac = u32::try_from(p[6]).ok().filter(|f| *f < 10_000_000)?;
            let date = NaiveDate::from_ymd_opt(y, mo, d)?;
            let time = chrono::NaiveTime::from_hms_nano_opt(h, mi, sec, frac * 100)?;
            string(format_datetime(&in_range(
                Utc.from_utc_datetime(&date.and_time(time)),
            )?))
        }
        // The start of the bin of `bin_size` parts (days down to nanoseconds), counted from the
        // origin (the Unix epoch unless given), that holds the date-time.
        "DATETIMEBIN" => {
            let dt = parse_datetime(s(&a[0])?)?;
            let unit: i128 = match part(s(&a[1])?)? {
                Part::Day => 86_400_000_000_000,
                Part::Hour => 3_600_000_000_000,
                Part::Minute => 60_000_000_000,
                Part::Second => 1_000_000_000,
                Part::Millisecond => 1_000_000,
                Part::Microsecond => 1_000,
                Part::Nanosecond => 1,
                Part::Year | Part::Month => return None,
            };
            let size = a.get(2).map_or(Some(1), int)?;
            if size <= 0 {
                return None;
            }
            let origin = match a.get(3) {
                Some(o) => parse_datetime(s(o)?)?,
                None => DateTime::UNIX_EPOCH,
            };
            let nanos = |t: &DateTime<Utc>| {
                t.timestamp() as i128 * 1_000_000_000 + t.timestamp_subsec_nanos() as i128
            };
            let width = unit.checked_mul(size as i128)?;
            let from_origin = nanos(&dt) - nanos(&origin);
            let start = nanos(&origin) + from_origin.div_euclid(width) * width;
            let out = DateTime::from_timestamp(
                i64::try_from(start.div_euclid(1_000_000_000)).ok()?,
                start.rem_euclid(1_000_000_000) as u32,
            )?;
            string(format_datetime(&in_range(out)?))
        }
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
        "YEAR" => Some(Value::from(parse_datetime(s(&a[0])?)?.year())),
        "MONTH" => Some(Value::from(parse_datetime(s(&a[0])?)?.month())),
        "DAY" => Some(Value::from(parse_datetime(s(&a[0])?)?.day())),
        "IS_DATETIME" => boolean(s(&a[0]).is_some_and(is_datetime)),
        "DATETIMEFORMAT" => string(format_custom(&parse_datetime(s(&a[0])?)?, s(&a[1])?)?),
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

/// IS_DATETIME's grammar: `YYYY-MM-DD`, then optionally `T` or a space and `hh:mm:ss` with 1 to
/// 7 fraction digits after a `.`, then optionally `Z` (also right after the date).
fn is_datetime(x: &str) -> bool {
    let b = x.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    if !(digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10))
    {
        return false;
    }
    let mut rest = &x[10..];
    if let Some(time) = rest.strip_prefix('T').or_else(|| rest.strip_prefix(' ')) {
        let t = time.as_bytes();
        let two = |i: usize| {
            t.get(i..i + 2)
                .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
        };
        if !(two(0) && t.get(2) == Some(&b':') && two(3) && t.get(5) == Some(&b':') && two(6)) {
            return false;
        }
        rest = &time[8..];
        if let Some(frac) = rest.strip_prefix('.') {
            let n = frac.bytes().take_while(u8::is_ascii_digit).count();
            if !(1..=7).contains(&n) {
                return false;
            }
            rest = &frac[n..];
        }
    }
    (rest.is_empty() || rest == "Z") && parse_datetime(x).is_some()
}

/// .NET custom date-time format strings: `yyyy yy MM M dd d HH H hh h mm m ss s tt`, `f`..`fffffff`
/// (fraction digits), `F`..`FFFFFFF` (the same without trailing zeros), `\x` and quoted text
/// taken literally; any other character is copied.
fn format_custom(dt: &DateTime<Utc>, f: &str) -> Option<String> {
    let chars: Vec<char> = f.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let run = chars[i..].iter().take_while(|&&x| x == c).count();
        let mut take = run;
        match c {
            'y' => {
                take = run.min(5);
                let y = dt.year();
                out += &match take {
                    1 => format!("{}", y % 100),
                    2 => format!("{:02}", y % 100),
                    n => format!("{y:0n$}"),
                };
            }
            'M' | 'd' | 'H' | 'h' | 'm' | 's' => {
                take = run.min(2);
                if c == 'd' && run > 2 {
                    return None; // day names need a culture
                }
                if c == 'M' && run > 2 {
                    return None; // month names need a culture
                }
                let v = match c {
                    'M' => dt.month(),
                    'd' => dt.day(),
                    'H' => dt.hour(),
                    'h' => (dt.hour() + 11) % 12 + 1,
                    'm' => dt.minute(),
                    _ => dt.second(),
                };
                out += &if take == 2 {
                    format!("{v:02}")
                } else {
                    v.to_string()
                };
            }
            'f' | 'F' => {
                if run > 7 {
                    return None;
                }
                let digits = format!("{:07}", dt.nanosecond() / 100);
                let part = &digits[..run];
                out += if c == 'F' {
                    part.trim_end_matches('0')
                } else {
                    part
                };
            }
            't' => {
                take = run.min(2);
                let ampm = if dt.hour() < 12 { "AM" } else { "PM" };
                out += &ampm[..take];
            }
            '\\' => {
                out.extend(chars.get(i + 1));
                take = 2;
            }
            '\'' | '"' => {
                let end = chars[i + 1..].iter().position(|&x| x == c)?;
                out.extend(&chars[i + 1..i + 1 + end]);
                take = end + 2;
            }
            _ => {
                out.push(c);
                take = 1;
            }
        }
        i += take;
    }
    Some(out)
}

/// Cosmos DB's date-time strings: `YYYY-MM-DDThh:mm:ss.fffffffZ` (a space for the `T`, no `Z`,
/// or the date alone accepted).
fn parse_datetime(x: &str) -> Option<DateTime<Utc>> {
    if let Ok(dt) = DateTime::parse_from_rfc3339(x) {
        return Some(dt.with_timezone(&Utc));
    }
    let x = x.strip_suffix('Z').unwrap_or(x);
    if let Ok(n) = NaiveDateTime::parse_from_str(x, "%Y-%m-%d %H:%M:%S%.f") {
        return Some(Utc.from_utc_datetime(&n));
    }
    if let Ok(n) = NaiveDateTime::parse_from_str(x.trim_end_matches('Z'), "%Y-%m-%dT%H:%M:%S%.f") {
        return Some(Utc.from_utc_datetime(&n));
    }
    let d = NaiveDate::parse_from_str(x, "%Y-%m-%d").ok()?;
    Some(Utc.from_utc_datetime(&d.and_hms_opt(0, 0, 0)?))
}

/// A count of ticks or milliseconds: an integer exactly, a fraction truncated.
fn whole(v: &Val) -> Option<i64> {
    int64(v).or_else(|| {
        let x = number(v)?.trunc();
        (x.abs() < 9.2e18).then_some(x as i64)
    })
}

/// Ticks (100 ns) since the Unix epoch.
fn ticks(dt: &DateTime<Utc>) -> i64 {
    dt.timestamp() * TICKS_PER_SECOND + (dt.timestamp_subsec_nanos() / 100) as i64
}

/// Cosmos DB's date-times run from year 1 to year 9999.
fn in_range(dt: DateTime<Utc>) -> Option<DateTime<Utc>> {
    (1..=9999).contains(&dt.year()).then_some(dt)
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
