//! Numbers as people read them: money with thousands separators, byte counts in KB/MB/GB.
//! Templates call them by path: `{{ sitekit::pages::format::money(p.price) }}`.

/// `1234567.5` → `1,234,567.50` (two decimals, comma thousands).
pub fn money(amount: impl std::borrow::Borrow<f64>) -> String {
    let amount = amount.borrow();
    let cents = (amount.abs() * 100.0).round() as u64;
    let (whole, frac) = (cents / 100, cents % 100);
    let sign = if *amount < 0.0 && cents > 0 { "-" } else { "" };
    format!("{sign}{}.{frac:02}", thousands(whole))
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `532` → `532 B`, `1536` → `1.5 KB`, `3_221_225_472` → `3.0 GB` (powers of 1024).
pub fn bytes(n: impl std::borrow::Borrow<u64>) -> String {
    let n = n.borrow();
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut v = *n as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_and_bytes_read_as_people_write_them() {
        assert_eq!(money(1234567.5), "1,234,567.50");
        assert_eq!(money(0.0), "0.00");
        assert_eq!(money(999.999), "1,000.00");
        assert_eq!(money(-12.3), "-12.30");
        assert_eq!(thousands(100), "100");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(bytes(532u64), "532 B");
        assert_eq!(bytes(1536u64), "1.5 KB");
        assert_eq!(bytes(3u64 << 30), "3.0 GB");
    }
}
