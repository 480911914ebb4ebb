//! The host names a server answers to: loopback (`localhost`, `127.0.0.1`, `[::1]`, any port)
//! and the names given to it (`--explorer-host`, `--gateway-host`). A web page that rebinds its
//! own name to 127.0.0.1 reaches the server under that name, so its requests carry the name in
//! `Host` (and, on anything but a plain GET, in `Origin`): both are checked here.

use std::net::{IpAddr, SocketAddr};

/// Answered whatever the options say.
pub const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// A name given on the command line: its host part, lower case (`Box.lan:8082` allows
/// `box.lan` on any port; IPv6 in brackets).
pub fn parse_host_name(name: &str) -> Result<String, String> {
    host_part(name.trim())
        .filter(|h| {
            h.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._[]:".contains(c))
        })
        .map(|h| h.to_ascii_lowercase())
        .ok_or_else(|| format!("{name:?} is not a host name (e.g. box.lan or [fe80::1])"))
}

/// The host of a `Host` header value (`host`, `host:port`, `[v6]`, `[v6]:port`), or `None` if it
/// is not one.
pub fn host_part(authority: &str) -> Option<&str> {
    let (host, port) = match authority.strip_prefix('[') {
        Some(rest) => {
            let end = rest.find(']')? + 2;
            (&authority[..end], &authority[end..])
        }
        None => match authority.find(':') {
            Some(i) => (&authority[..i], &authority[i..]),
            None => (authority, ""),
        },
    };
    let port_ok = port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|p| p.bytes().all(|b| b.is_ascii_digit()));
    (!host.is_empty() && port_ok).then_some(host)
}

/// The host name of a server bound to `ip`, when that is a particular address other than
/// loopback (`10.0.0.5`, `[fe80::1]`): clients that connect by address send it as their `Host`.
pub fn bound_name(ip: IpAddr) -> Option<String> {
    (!ip.is_loopback() && !ip.is_unspecified()).then(|| match ip {
        IpAddr::V4(ip) => ip.to_string(),
        IpAddr::V6(ip) => format!("[{ip}]"),
    })
}

/// Why a request's host was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Neither a `Host` header nor a host in the request target.
    Missing,
    /// This name (the whole header value, port included) is not answered.
    Foreign(String),
}

/// The names a server answers to.
#[derive(Debug, Clone)]
pub struct AllowedHosts {
    hosts: Vec<String>,
}

impl AllowedHosts {
    /// Loopback and `extra` (names as [`parse_host_name`] gives them).
    pub fn new(extra: &[String]) -> AllowedHosts {
        let hosts = LOOPBACK_HOSTS
            .iter()
            .map(|h| h.to_string())
            .chain(extra.iter().map(|h| h.to_ascii_lowercase()))
            .collect();
        AllowedHosts { hosts }
    }

    /// Also the address the server is bound to, when it is a particular one (a client that
    /// connects by address sends it as its `Host`).
    pub fn and_bound(mut self, addr: SocketAddr) -> AllowedHosts {
        self.hosts.extend(bound_name(addr.ip()));
        self
    }

    /// Whether a `Host`-style authority (`name`, `name:port`) names an allowed host.
    pub fn allows(&self, authority: &str) -> bool {
        host_part(authority).is_some_and(|h| self.hosts.iter().any(|a| a.eq_ignore_ascii_case(h)))
    }

    /// Checks a request's `Host` header (`None` when absent or not text) and the host of its
    /// target when the target is in absolute form (HTTP/2's `:authority`): both must be allowed,
    /// and at least one must be there.
    pub fn check(&self, host: Option<&str>, target: Option<&str>) -> Result<(), Refused> {
        let mut seen = false;
        for name in host.into_iter().chain(target) {
            seen = true;
            if !self.allows(name) {
                return Err(Refused::Foreign(name.to_owned()));
            }
        }
        if seen {
            Ok(())
        } else {
            Err(Refused::Missing)
        }
    }

    /// Whether an `Origin` header (`scheme://host[:port]`) names an allowed host; `null` and
    /// anything else do not.
    pub fn allows_origin(&self, origin: &str) -> bool {
        origin.split_once("://").is_some_and(|(scheme, authority)| {
            matches!(scheme, "http" | "https") && self.allows(authority)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_parts() {
        for (authority, host) in [
            ("localhost", Some("localhost")),
            ("LocalHost:8082", Some("LocalHost")),
            ("127.0.0.1:1", Some("127.0.0.1")),
            ("[::1]:8082", Some("[::1]")),
            ("[::1]", Some("[::1]")),
            ("::1", None),
            ("localhost:80:80", None),
            ("localhost:x", None),
            ("[::1]x", None),
            ("", None),
            (":8082", None),
        ] {
            assert_eq!(host_part(authority), host, "{authority}");
        }
    }

    #[test]
    fn host_names_are_checked() {
        assert_eq!(parse_host_name("Box.LAN:8082").unwrap(), "box.lan");
        assert_eq!(parse_host_name("[FE80::1]").unwrap(), "[fe80::1]");
        assert!(parse_host_name("http://x/").is_err());
        assert!(parse_host_name("").is_err());
    }

    #[test]
    fn loopback_given_and_bound_names_are_allowed() {
        let hosts =
            AllowedHosts::new(&["box.lan".into()]).and_bound("10.0.0.5:8083".parse().unwrap());
        for ok in [
            "localhost:8083",
            "127.0.0.1",
            "[::1]:1",
            "Box.Lan:9",
            "10.0.0.5:8083",
        ] {
            assert!(hosts.allows(ok), "{ok}");
        }
        for no in [
            "evil.example",
            "localhost.evil.example",
            "127.0.0.2",
            "box.lan:x",
            "",
        ] {
            assert!(!hosts.allows(no), "{no}");
        }
        let loopback_only = AllowedHosts::new(&[]).and_bound("0.0.0.0:8083".parse().unwrap());
        assert!(!loopback_only.allows("0.0.0.0:8083"));
        assert_eq!(hosts.check(Some("localhost"), Some("localhost:1")), Ok(()));
        assert_eq!(hosts.check(None, Some("127.0.0.1:8083")), Ok(()));
        assert_eq!(
            hosts.check(Some("localhost"), Some("evil.example")),
            Err(Refused::Foreign("evil.example".into()))
        );
        assert_eq!(hosts.check(None, None), Err(Refused::Missing));
        assert!(hosts.allows_origin("http://localhost:3000"));
        assert!(!hosts.allows_origin("http://evil.example"));
        assert!(!hosts.allows_origin("null"));
        assert!(!hosts.allows_origin("file://localhost"));
    }
}
