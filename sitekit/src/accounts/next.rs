//! Where to go after signing in: the page that sent the visitor to the sign-in form, carried as
//! `?next=` and a hidden field. Only a path on this site is followed — anything a browser could
//! read as another host (`//evil`, `/\evil`, `https://…`, their percent-encoded forms) is
//! dropped, so the sign-in form is never an open redirect.

use serde::Deserialize;

/// The longest `next` followed (a post's URL is well under it).
const MAX_LEN: usize = 512;

/// `raw` if it is a path on this site, else `None`. `raw` is already percent-decoded once (a
/// query or form value): an encoded `/`, `\` or `%` left in it is refused too, because a
/// browser or proxy may decode it again.
pub fn local_path(raw: &str) -> Option<&str> {
    let ok = raw.len() <= MAX_LEN
        && raw.starts_with('/')
        && !raw.starts_with("//")
        // Printable ASCII only: no backslash (browsers read it as `/`), no control characters
        // (browsers drop tabs and newlines, so `/\t/evil` is `//evil`), no spaces.
        && raw.bytes().all(|b| b.is_ascii_graphic() && b != b'\\')
        && !has_encoded_separator(raw);
    ok.then_some(raw)
}

/// `%2f`, `%5c` or `%25` in any case.
fn has_encoded_separator(raw: &str) -> bool {
    raw.as_bytes().windows(3).any(|w| {
        w[0] == b'%'
            && matches!(
                (w[1].to_ascii_lowercase(), w[2].to_ascii_lowercase()),
                (b'2', b'f') | (b'5', b'c') | (b'2', b'5')
            )
    })
}

/// Where a signed-in visitor goes: `next` if it is local, else `fallback`.
pub fn or<'a>(next: Option<&'a str>, fallback: &'a str) -> &'a str {
    next.and_then(local_path).unwrap_or(fallback)
}

/// The sign-in page of the mount at `base`, returning to `next` (dropped if not local).
pub fn signin_url(base: &str, next: Option<&str>) -> String {
    match next.and_then(local_path) {
        Some(next) => {
            let query: String = form_urlencoded::Serializer::new(String::new())
                .append_pair("next", next)
                .finish();
            format!("{base}/signin?{query}")
        }
        None => format!("{base}/signin"),
    }
}

/// `?next=` on the sign-in form's GET, and the hidden field of its POST.
#[derive(Debug, Default, Deserialize)]
pub struct NextQuery {
    #[serde(default)]
    pub next: Option<String>,
}

impl NextQuery {
    /// The local path to return to, or "" (the form's hidden field is then empty).
    pub fn local(&self) -> String {
        self.next
            .as_deref()
            .and_then(local_path)
            .unwrap_or_default()
            .to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_on_this_site_are_followed() {
        for ok in [
            "/",
            "/cart",
            "/posts/post-1?x=1#c",
            "/v1/posts/a:b",
            "/search?q=a%20b",
        ] {
            assert_eq!(local_path(ok), Some(ok), "{ok}");
        }
    }

    #[test]
    fn anything_that_can_leave_the_site_is_refused() {
        for bad in [
            "",
            "cart",
            "//evil.example",
            "///evil.example",
            "/\\evil.example",
            "\\\\evil.example",
            "https://evil.example/",
            "javascript:alert(1)",
            "/%2fevil.example",
            "/%2F%2Fevil.example",
            "/%5cevil.example",
            "%2F%2Fevil.example",
            "/%252f%252fevil.example",
            "/\t/evil.example",
            "/\n/evil.example",
            "/ /evil.example",
            "/caf\u{e9}",
        ] {
            assert_eq!(local_path(bad), None, "{bad:?}");
        }
        assert_eq!(local_path(&format!("/{}", "a".repeat(MAX_LEN))), None);
    }

    #[test]
    fn the_signin_url_encodes_next_and_drops_a_foreign_one() {
        assert_eq!(
            signin_url("/v1", Some("/posts/p?x=1&y=2")),
            "/v1/signin?next=%2Fposts%2Fp%3Fx%3D1%26y%3D2"
        );
        assert_eq!(signin_url("", Some("//evil")), "/signin");
        assert_eq!(signin_url("", None), "/signin");
        assert_eq!(or(Some("https://evil"), "/"), "/");
        assert_eq!(or(Some("/cart"), "/"), "/cart");
    }
}
