//! Master-key authorization, as Cosmos DB checks it: the gateway signs the text the client
//! signed (`masterkey::payload`, the one implementation the `cosmos` client signs with too)
//! and compares in constant time; the date must be within 15 minutes of the gateway's clock.
//! (Resource tokens are `resource_token`'s.)

use subtle::ConstantTimeEq;

pub use masterkey::{payload, MasterKey, EMULATOR_KEY};

use crate::error::GatewayError;

/// How far `x-ms-date` may be from the gateway's clock (Cosmos DB allows 15 minutes).
pub const MAX_CLOCK_SKEW: std::time::Duration = std::time::Duration::from_secs(15 * 60);

/// What the gateway needs of a request to check its signature.
pub struct Signed<'a> {
    pub verb: &'a str,
    pub resource_type: &'a str,
    pub link: &'a str,
    pub authorization: Option<&'a str>,
    pub x_ms_date: Option<&'a str>,
    pub date: Option<&'a str>,
}

/// Checks a request's signature and date; the error carries Cosmos DB's message.
pub fn verify(
    key: &MasterKey,
    req: &Signed,
    now: std::time::SystemTime,
) -> Result<(), GatewayError> {
    let header = req.authorization.ok_or_else(|| {
        GatewayError::Unauthorized(
            "Required Header authorization is missing. Ensure a valid Authorization token is \
             passed."
                .into(),
        )
    })?;
    let decoded = percent_encoding::percent_decode_str(header)
        .decode_utf8()
        .map_err(|_| malformed())?;
    let mut kind = None;
    let mut version = None;
    let mut sig = None;
    for part in decoded.split('&') {
        match part.split_once('=') {
            Some(("type", v)) => kind = Some(v),
            Some(("ver", v)) => version = Some(v),
            Some(("sig", v)) => sig = Some(v),
            _ => {}
        }
    }
    if kind != Some("master") || version != Some("1.0") {
        return Err(GatewayError::Unauthorized(
            "The authorization token is neither a master-key token (type=master&ver=1.0&sig=...) \
             nor a resource token (type=resource&...): Microsoft Entra ID is not supported by \
             this gateway."
                .into(),
        ));
    }
    let sig = sig.ok_or_else(malformed)?;
    // Cosmos DB signs x-ms-date when present, else Date (the Python SDK fills both slots).
    let (x_date, date) = match (req.x_ms_date, req.date) {
        (Some(x), d) => (x, d.unwrap_or("")),
        (None, Some(d)) => ("", d),
        (None, None) => {
            return Err(GatewayError::Unauthorized(
                "The input date header is invalid format. Please pass in RFC 1123 style date \
                 format (x-ms-date)."
                    .into(),
            ))
        }
    };
    check_date(if x_date.is_empty() { date } else { x_date }, now)?;
    let mut candidates = vec![payload(req.verb, req.resource_type, req.link, x_date, date)];
    if !date.is_empty() && !x_date.is_empty() {
        candidates.push(payload(req.verb, req.resource_type, req.link, x_date, ""));
    }
    if x_date.is_empty() {
        candidates.push(payload(req.verb, req.resource_type, req.link, date, ""));
    }
    let mut ok = subtle::Choice::from(0);
    for c in &candidates {
        ok |= key.sign(c).as_bytes().ct_eq(sig.as_bytes());
    }
    if bool::from(ok) {
        Ok(())
    } else {
        Err(GatewayError::Unauthorized(format!(
            "The input authorization token can't serve the request. The wrong key is being used \
             or the expected payload is not built as per the protocol. Server used the following \
             payload to sign: '{}'",
            candidates[0]
        )))
    }
}

fn malformed() -> GatewayError {
    GatewayError::Unauthorized(
        "The authorization header is malformed: expected type=master&ver=1.0&sig=SIGNATURE, \
         URL-encoded."
            .into(),
    )
}

/// A date more than 15 minutes from the gateway's clock is refused, as Cosmos DB refuses it:
/// a captured request cannot be replayed later.
fn check_date(text: &str, now: std::time::SystemTime) -> Result<(), GatewayError> {
    let when = httpdate::parse_http_date(text).map_err(|_| {
        GatewayError::Unauthorized(format!(
            "The input date header is invalid format. Please pass in RFC 1123 style date format \
             (got '{text}')."
        ))
    })?;
    let skew = match now.duration_since(when) {
        Ok(d) => d,
        Err(e) => e.duration(),
    };
    if skew > MAX_CLOCK_SKEW {
        let expiry = when
            .checked_add(MAX_CLOCK_SKEW)
            .map_or_else(|| "never".to_owned(), show_date);
        return Err(GatewayError::Unauthorized(format!(
            "The authorization token is not valid at the current time. Please create another \
             token and retry (token start time: {}, token expiry time: {expiry}, current time: \
             {}).",
            show_date(when),
            show_date(now)
        )));
    }
    Ok(())
}

/// A time as an HTTP date; past the last one HTTP can write (31 Dec 9999 23:59:59, where
/// `httpdate` panics) as seconds since 1970.
fn show_date(t: std::time::SystemTime) -> String {
    const LAST: u64 = 253_402_300_799;
    match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) if d.as_secs() <= LAST => httpdate::fmt_http_date(t),
        Ok(d) => format!("{} s after 1970", d.as_secs()),
        Err(_) => "before 1970".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_stale_dates_and_wrong_signatures() {
        let key = MasterKey::emulator();
        let now = std::time::SystemTime::now();
        let date = httpdate::fmt_http_date(now);
        let auth = key.authorization("get", "dbs", "dbs/x", &date);
        let ok = Signed {
            verb: "GET",
            resource_type: "dbs",
            link: "dbs/x",
            authorization: Some(&auth),
            x_ms_date: Some(&date),
            date: None,
        };
        assert!(verify(&key, &ok, now).is_ok());
        let other = Signed {
            link: "dbs/y",
            ..ok
        };
        assert!(verify(&key, &other, now).is_err());
        let later = now + std::time::Duration::from_secs(16 * 60);
        let ok_again = Signed {
            link: "dbs/x",
            ..other
        };
        assert!(verify(&key, &ok_again, later).is_err());
    }

    #[test]
    fn any_date_is_a_401_never_a_panic() {
        let now = std::time::SystemTime::now();
        for text in [
            "Fri, 31 Dec 9999 23:59:59 GMT",
            "Fri, 31 Dec 9999 23:50:00 GMT",
            "Thu, 01 Jan 1970 00:00:00 GMT",
            "Sat, 01 Jan 0000 00:00:00 GMT",
            "Fri, 31 Dec 99999 23:59:59 GMT",
        ] {
            let e = check_date(text, now).unwrap_err();
            assert!(matches!(e, GatewayError::Unauthorized(_)), "{text}: {e}");
        }
        let far = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1 << 40);
        assert!(show_date(far).ends_with("s after 1970"));
    }
}
