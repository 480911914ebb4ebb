//! Listings paged by continuation, as the Cosmos DB SDKs page queries: the engine's continuation
//! token travels in the `?page=` parameter of the "next page" link.

/// Percent-encodes everything but unreserved characters (RFC 3986), for a query-string value.
pub fn url_escape(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The link to the page after this one (`base` plus `page=<continuation>`), or `None` on the last.
pub fn next_page_link(base: &str, continuation: &Option<String>) -> Option<String> {
    continuation.as_ref().map(|c| {
        let sep = if base.contains('?') { '&' } else { '?' };
        format!("{base}{sep}page={}", url_escape(c))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_carry_the_continuation_escaped() {
        let c = Some("a+b/c=".to_owned());
        assert_eq!(
            next_page_link("/tags/t", &c).unwrap(),
            "/tags/t?page=a%2Bb%2Fc%3D"
        );
        assert_eq!(
            next_page_link("/c/x?sort=name", &c).unwrap(),
            "/c/x?sort=name&page=a%2Bb%2Fc%3D"
        );
        assert_eq!(next_page_link("/c/x", &None), None);
        assert_eq!(url_escape("Ünï code"), "%C3%9Cn%C3%AF%20code");
    }
}
