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
    if segments.len() >= 2 && segments[0].eq_ignore_ascii_case("dbs") && !is_name_based(&segments) {
        check_rid_path(&segments)?;
    }
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

/// A resource-id path (`dbs/{rid}/colls/{rid}/…`) is signed with its last id alone (the SDKs'
/// `GetResourceIdOrFullNameFromLink`): that id must name everything before it, as Cosmos DB's
/// ids do, or a signature for one resource would serve for the same last id under any other
/// database or container. A container's id holds its database's, so the path may end at a
/// database, a container or a feed of one; an item, a script or a range is named by an id of its
/// own that names no container here, so below a container only the name-based path is answered.
fn check_rid_path(segments: &[String]) -> Result<(), GatewayError> {
    let refused = |why: &str| {
        GatewayError::Forbidden(format!(
            "The resource-id path /{} is refused: {why}. Its signature covers only its last id \
             (as Cosmos DB signs resource-id links), which must name the resources before it; \
             use the name-based path (dbs/{{db}}/colls/{{container}}/docs/{{id}}).",
            segments.join("/")
        ))
    };
    let db = rid_bytes(&segments[1]).unwrap_or_default();
    match &segments[2..] {
        [] | [_] => Ok(()),
        [colls, coll, rest @ ..] if colls == "colls" => {
            if !rid_bytes(coll).is_some_and(|c| c.len() == 8 && c[..4] == db[..]) {
                return Err(refused(&format!(
                    "'{coll}' is not the resource id of a container of database {}",
                    segments[1]
                )));
            }
            match rest {
                [] | [_] => Ok(()),
                [ops, pkd] if ops == "operations" && pkd == "partitionkeydelete" => Ok(()),
                _ => Err(refused("below a container, resources are named by name")),
            }
        }
        _ => Err(refused("only containers are named below a database")),
    }
}

/// The bytes of a Cosmos DB resource id (base64 with `-` for `/`).
fn rid_bytes(segment: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::STANDARD
        .decode(segment.replace('-', "/"))
        .ok()
}

/// The SDKs' rule (`_base.IsNameBased`): under `dbs/`, an id that is not an 8-character
/// base64 resource id of 4 bytes is a name.
fn is_name_based(segments: &[String]) -> bool {
    match segments {
        [first, db, ..] if first.eq_ignore_ascii_case("dbs") => {
            db.len() != 8 || rid_bytes(db).is_none_or(|b| b.len() != 4)
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

    #[test]
    fn a_resource_id_path_is_named_by_its_last_id() {
        // Database AAAAAQ== (bytes 0 0 0 1); its container AAAAAQAAAAI= (then 0 0 0 2).
        for ok in [
            "/dbs/AAAAAQ==",
            "/dbs/AAAAAQ==/colls",
            "/dbs/AAAAAQ==/colls/AAAAAQAAAAI=",
            "/dbs/AAAAAQ==/colls/AAAAAQAAAAI=/docs",
            "/dbs/AAAAAQ==/colls/AAAAAQAAAAI=/pkranges",
            "/dbs/AAAAAQ==/colls/AAAAAQAAAAI=/operations/partitionkeydelete",
        ] {
            let t = parse(ok).unwrap();
            assert!(!t.link.contains('/'), "{ok}: {}", t.link);
        }
        assert_eq!(
            parse("/dbs/AAAAAQ==/colls/AAAAAQAAAAI=/docs").unwrap().link,
            "aaaaaqaaaai="
        );
        for refused in [
            // Another database's container, a container by name, an item or a script below.
            "/dbs/AAAAAg==/colls/AAAAAQAAAAI=",
            "/dbs/AAAAAQ==/colls/c",
            "/dbs/AAAAAQ==/colls/AAAAAQAAAAI=/docs/probe",
            "/dbs/AAAAAQ==/colls/AAAAAQAAAAI=/sprocs/s",
            "/dbs/AAAAAQ==/users/u",
        ] {
            let e = parse(refused).unwrap_err();
            assert!(matches!(e, GatewayError::Forbidden(_)), "{refused}: {e}");
        }
        assert!(parse("/dbs/d/colls/c/docs/probe").is_ok());
    }
}
