//! Listings paged by continuation, as the Cosmos DB SDKs page queries: the engine's continuation
//! token travels in the `?page=` parameter of the "next page" link, and the tokens of the pages
//! before it in `?trail=` (so "previous page" works without the server keeping anything).

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

/// Most earlier pages a link remembers: past that, "previous" stops and "first page" remains.
const TRAIL: usize = 20;

/// Separates the tokens in `?trail=`. Not '.': the Rust SDK's tokens are `c1.<base64>`; the
/// engine's are URL-safe base64. '~' is in neither and needs no escaping in a URL.
const SEP: char = '~';

/// Stands for the first page (which has no token) in a trail.
const FIRST: &str = "-";

/// The links of one page of a listing: first, previous and next (each `None` where it has no
/// meaning). Templates include `pager.html`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pager {
    pub first: Option<String>,
    pub previous: Option<String>,
    pub next: Option<String>,
}

impl Pager {
    /// `page` and `trail` are this request's parameters, `continuation` the engine's token for
    /// the page after this one.
    pub fn new(
        base: &str,
        page: Option<&str>,
        trail: Option<&str>,
        continuation: &Option<String>,
    ) -> Pager {
        let page = page.filter(|p| !p.is_empty());
        let mut earlier: Vec<&str> = trail
            .unwrap_or("")
            .split(SEP)
            .filter(|t| !t.is_empty())
            .collect();
        let link = |page: Option<&str>, trail: &[&str]| {
            let mut url = base.to_owned();
            let mut sep = if base.contains('?') { '&' } else { '?' };
            if let Some(p) = page {
                url.push_str(&format!("{sep}page={}", url_escape(p)));
                sep = '&';
            }
            if !trail.is_empty() {
                let joined = trail.join(&SEP.to_string());
                url.push_str(&format!("{sep}trail={}", url_escape(&joined)));
            }
            url
        };
        let next = continuation.as_deref().map(|c| {
            let mut t = earlier.clone();
            match page {
                // A token holding the separator cannot be remembered: "previous" stops there.
                Some(p) if p.contains(SEP) => t.clear(),
                p => t.push(p.unwrap_or(FIRST)),
            }
            let skip = t.len().saturating_sub(TRAIL);
            link(Some(c), &t[skip..])
        });
        let previous = page.and_then(|_| {
            let before = earlier.pop()?;
            Some(link((before != FIRST).then_some(before), &earlier))
        });
        Pager {
            first: page.map(|_| base.to_owned()),
            previous,
            next,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_link_first_previous_and_next() {
        let next = Some("T2".to_owned());
        // Page 1: only next, which remembers page 1.
        let p1 = Pager::new("/c/x?sort=name", None, None, &Some("T1".into()));
        assert_eq!(p1.first, None);
        assert_eq!(p1.previous, None);
        assert_eq!(p1.next.as_deref(), Some("/c/x?sort=name&page=T1&trail=-"));
        // Page 2: previous is page 1 (no token), first is the base.
        let p2 = Pager::new("/c/x?sort=name", Some("T1"), Some("-"), &next);
        assert_eq!(p2.first.as_deref(), Some("/c/x?sort=name"));
        assert_eq!(p2.previous.as_deref(), Some("/c/x?sort=name"));
        assert_eq!(
            p2.next.as_deref(),
            Some("/c/x?sort=name&page=T2&trail=-~T1")
        );
        // Page 3: previous is page 2 with its own trail.
        let p3 = Pager::new("/c/x", Some("T2"), Some("-~T1"), &None);
        assert_eq!(p3.previous.as_deref(), Some("/c/x?page=T1&trail=-"));
        assert_eq!(p3.next, None);
        // A link without a trail (an old bookmark) still has first, not previous.
        let old = Pager::new("/c/x", Some("T9"), None, &None);
        assert_eq!((old.first.as_deref(), old.previous), (Some("/c/x"), None));
    }

    #[test]
    fn tokens_with_dots_as_the_sdk_writes_them_come_back_whole() {
        let (t1, t2) = ("c1.eyJhIjoxfQ", "c1.eyJiIjoyfQ");
        let p2 = Pager::new("/u", Some(t1), Some("-"), &Some(t2.into()));
        assert_eq!(
            p2.next.as_deref(),
            Some("/u?page=c1.eyJiIjoyfQ&trail=-~c1.eyJhIjoxfQ")
        );
        let p3 = Pager::new("/u", Some(t2), Some("-~c1.eyJhIjoxfQ"), &None);
        assert_eq!(
            p3.previous.as_deref(),
            Some("/u?page=c1.eyJhIjoxfQ&trail=-")
        );
        // A token holding the separator is not remembered: no "previous" after it.
        let odd = Pager::new("/u", Some("a~b"), Some("-"), &Some(t2.into()));
        let next = odd.next.unwrap();
        assert!(!next.contains("trail="), "{next}");
    }

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
