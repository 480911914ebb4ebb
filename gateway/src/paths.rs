//! Resource paths (`/dbs/{db}/colls/{coll}/docs/{id}`) and what a client signs for them.

use base64::Engine as _;

use crate::error::GatewayError;

/// A request path, its segments percent-decoded (ids may hold spaces and other characters the
/// SDKs escape), and the resource type and link of the signature.
#[derive(Debug)]
pub struct Target {
    pub segments: Vec<String>,
    pub resource_type: String,
    pub link: String,
}

pub fn parse(raw: &str) -> Result<Target, GatewayError> {
    let segments = raw
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8()
                .map(|c| c.into_owned())
                .map_err(|_| GatewayError::BadRequest(format!("the path {raw} is not UTF-8")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    // "Delete all items of a partition key" is signed as an operation on its container
    // (resource type `colls`, as the service expects), not as the path reads.
    if let [db, _, colls, _, ops, pkd] = segments.as_slice() {
        if db == "dbs" && colls == "colls" && ops == "operations" && pkd == "partitionkeydelete" {
            let link = if is_name_based(&segments) {
                segments[..4].join("/")
            } else {
                segments[3].to_lowercase()
            };
            return Ok(Target {
                segments,
                resource_type: "colls".into(),
                link,
            });
        }
    }
    let n = segments.len();
    let resource_type = match n {
        0 => String::new(),
        n if n % 2 == 1 => segments[n - 1].clone(),
        n => segments[n - 2].clone(),
    };
    // A feed (odd count) is signed with its parent's link, a resource with its own.
    let own = if n % 2 == 1 { n - 1 } else { n };
    let link = if is_name_based(&segments) {
        segments[..own].join("/")
    } else if own >= 2 {
        // Resource-id links (offers, `_self` links) are signed with the last id, lower-cased.
        segments[own - 1].to_lowercase()
    } else {
        String::new()
    };
    Ok(Target {
        segments,
        resource_type: resource_type.to_lowercase(),
        link,
    })
}

/// The SDKs' rule (`_base.IsNameBased`): under `dbs/`, an id that is not an 8-character
/// base64 resource id of 4 bytes is a name.
fn is_name_based(segments: &[String]) -> bool {
    match segments {
        [first, db, ..] if first.eq_ignore_ascii_case("dbs") => {
            db.len() != 8
                || base64::engine::general_purpose::STANDARD
                    .decode(db.replace('-', "/"))
                    .map(|b| b.len() != 4)
                    .unwrap_or(true)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_what_the_sdks_sign() {
        let t = parse("/dbs/db1/colls/c1/docs").unwrap();
        assert_eq!(
            (t.resource_type.as_str(), t.link.as_str()),
            ("docs", "dbs/db1/colls/c1")
        );
        let t = parse("/dbs/db1/colls/c1/docs/a%20b/").unwrap();
        assert_eq!(t.link, "dbs/db1/colls/c1/docs/a b");
        let t = parse("/offers/AbCd").unwrap();
        assert_eq!(
            (t.resource_type.as_str(), t.link.as_str()),
            ("offers", "abcd")
        );
        let t = parse("/").unwrap();
        assert_eq!((t.resource_type.as_str(), t.link.as_str()), ("", ""));
        let t = parse("/dbs").unwrap();
        assert_eq!((t.resource_type.as_str(), t.link.as_str()), ("dbs", ""));
    }
}
