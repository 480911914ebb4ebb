//! Resource paths (`/dbs/{db}/colls/{coll}/docs/{id}`) and what a client signs for them.

use engine::rid::{self, ChildKind};

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
    if is_rid_path(&segments) {
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

/// A resource-id path (`dbs/{rid}/colls/{rid}/docs/{rid}`, the `_self` links) is signed with
/// its last id alone (the SDKs' `GetResourceIdOrFullNameFromLink`): that id must name everything
/// before it, as Cosmos DB's ids do (`engine::rid`: a container's id holds its database's, an
/// item's or a script's holds its container's), or a signature for one resource would serve for
/// the same last id under any other database or container. `routes::links` then resolves each
/// id to exactly the resource it names.
fn check_rid_path(segments: &[String]) -> Result<(), GatewayError> {
    let refused = |why: &str| {
        GatewayError::Forbidden(format!(
            "The resource-id path /{} is refused: {why}. Its signature covers only its last id \
             (as Cosmos DB signs resource-id links), which must name the resources before it.",
            segments.join("/")
        ))
    };
    let db = rid::decode(&segments[1]).unwrap_or_default();
    let [colls, coll, rest @ ..] = &segments[2..] else {
        return Ok(()); // the database, or a feed of it
    };
    if colls == "users" {
        return check_user_path(&db, coll, rest).map_err(|why| refused(&why));
    }
    if colls != "colls" {
        return Err(refused("only containers are named below a database"));
    }
    let coll_bytes = rid::decode(coll)
        .filter(|c| rid::is_collection(c) && c[..4] == db[..])
        .ok_or_else(|| {
            refused(&format!(
                "'{coll}' is not the resource id of a container of database {}",
                segments[1]
            ))
        })?;
    match rest {
        [] | [_] => Ok(()),
        [ops, pkd] if ops == "operations" && pkd == "partitionkeydelete" => Ok(()),
        [kind, child] => match ChildKind::of_segment(kind) {
            Some(k) if k != ChildKind::PartitionKeyRange => {
                let bytes = rid::decode(child).unwrap_or_default();
                if rid::child_kind(&bytes) == Some(k) && bytes[..8] == coll_bytes[..] {
                    Ok(())
                } else {
                    Err(refused(&format!(
                        "'{child}' is not the resource id of one of the {kind} of container {coll}"
                    )))
                }
            }
            _ => Err(refused(&format!(
                "{kind} are not named by resource id here"
            ))),
        },
        _ => Err(refused(
            "nothing below an item or a script is named by resource id",
        )),
    }
}

/// `dbs/{rid}/users/{rid}[/permissions[/{rid}]]`: a user's id holds its database's 4 bytes (then
/// 4 of its own, not a container's: `engine::UserDef::resource_id`), a permission's its user's 8
/// (`engine::PermissionDef::resource_id`), as the service's do (a `_self` such as
/// `dbs/AAAAAA==/users/AAAAAHcmAAA=/permissions/AAAAAHcmAAAAAAAAAAAAAA==/`).
fn check_user_path(db: &[u8], user: &str, rest: &[String]) -> Result<(), String> {
    let user_bytes = rid::decode(user)
        .filter(|u| u.len() == 8 && !rid::is_collection(u) && u[..4] == db[..])
        .ok_or_else(|| format!("'{user}' is not the resource id of a user of this database"))?;
    match rest {
        [] => Ok(()),
        [p] if p == "permissions" => Ok(()),
        [p, permission] if p == "permissions" => rid::decode(permission)
            .filter(|b| b.len() == 16 && b[..8] == user_bytes[..])
            .map(|_| ())
            .ok_or_else(|| {
                format!("'{permission}' is not the resource id of a permission of user {user}")
            }),
        _ => Err("only permissions are named by resource id below a user".into()),
    }
}

/// Whether the path names its resources by resource id (the SDKs' rule, `_base.IsNameBased`):
/// under `dbs/`, an id that is an 8-character base64 resource id of 4 bytes.
pub fn is_rid_path(segments: &[String]) -> bool {
    segments.len() >= 2 && segments[0].eq_ignore_ascii_case("dbs") && !is_name_based(segments)
}

fn is_name_based(segments: &[String]) -> bool {
    match segments {
        [first, db, ..] if first.eq_ignore_ascii_case("dbs") => {
            db.len() != 8 || rid::decode(db).is_none_or(|b| b.len() != 4)
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
        let db = rid::encode(&rid::database_bytes(1));
        let coll_bytes = rid::collection_bytes(1, 2);
        let coll = rid::encode(&coll_bytes);
        let doc = rid::child(&coll_bytes, ChildKind::Document, b"item");
        let sproc = rid::child(&coll_bytes, ChildKind::StoredProcedure, b"sp");
        let other_db_coll = rid::encode(&rid::collection_bytes(2, 2));
        let other_coll_doc = rid::child(&rid::collection_bytes(1, 3), ChildKind::Document, b"x");
        let base = format!("/dbs/{db}/colls/{coll}");
        // A user's 8 bytes: its database's, then its own (the container bit clear); a
        // permission's 16: its user's, then its own number.
        let user_bytes = [1, 0, 0, 0, 5, 0, 0, 0];
        let user = rid::encode(&user_bytes);
        let mut permission = [0u8; 16];
        permission[..8].copy_from_slice(&user_bytes);
        permission[8] = 3;
        let other_permission =
            rid::encode(&[[2, 0, 0, 0, 5, 0, 0, 0], [3, 0, 0, 0, 0, 0, 0, 0]].concat());
        let permission = rid::encode(&permission);
        let other_db = rid::encode(&rid::database_bytes(2));
        for ok in [
            format!("/dbs/{db}"),
            format!("/dbs/{db}/colls"),
            base.clone(),
            format!("{base}/docs"),
            format!("{base}/pkranges"),
            format!("{base}/operations/partitionkeydelete"),
            format!("{base}/docs/{doc}"),
            format!("{base}/sprocs/{sproc}"),
            format!("/dbs/{db}/users"),
            format!("/dbs/{db}/users/{user}"),
            format!("/dbs/{db}/users/{user}/permissions"),
            format!("/dbs/{db}/users/{user}/permissions/{permission}"),
        ] {
            let t = parse(&ok).unwrap();
            assert!(!t.link.contains('/'), "{ok}: {}", t.link);
        }
        let t = parse(&format!("{base}/docs/{doc}/")).unwrap();
        assert_eq!(
            (t.resource_type.as_str(), t.link),
            ("docs", doc.to_lowercase())
        );
        for refused in [
            // Another database's container, a container by name, an item by name, a script's
            // id as an item's, an item of another container, an item's id as a script's, below
            // an item, users.
            format!("/dbs/{db}/colls/{other_db_coll}"),
            format!("/dbs/{db}/colls/c"),
            format!("{base}/docs/probe"),
            format!("{base}/docs/{sproc}"),
            format!("{base}/docs/{other_coll_doc}"),
            format!("{base}/sprocs/{doc}"),
            format!("{base}/docs/{doc}/attachments/a"),
            format!("{base}/pkranges/{doc}"),
            format!("/dbs/{db}/users/u"),
            format!("/dbs/{db}/users/{other_db_coll}"),
            format!("/dbs/{db}/users/{user}/permissions/{other_permission}"),
            format!("/dbs/{db}/users/{user}/permissions/p"),
            format!("/dbs/{db}/users/{user}/docs"),
            format!("/dbs/{other_db}/users/{user}"),
        ] {
            let e = parse(&refused).unwrap_err();
            assert!(matches!(e, GatewayError::Forbidden(_)), "{refused}: {e}");
        }
        let t = parse(&format!("/dbs/{db}/users/{user}/permissions/{permission}/")).unwrap();
        assert_eq!(
            (t.resource_type.as_str(), t.link),
            ("permissions", permission.to_lowercase())
        );
        assert!(parse("/dbs/d/colls/c/docs/probe").is_ok());
    }
}
