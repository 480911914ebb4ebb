//! Resource tokens: what a permission is read with (`_token`), and what a client holding one may
//! do. Cosmos DB creates a token "every time a GET, PUT, or POST is performed on a permission",
//! valid one hour unless `x-ms-documentdb-expiry-seconds` says otherwise, at most 18000 s (REST
//! API, "Permissions", "Create a Permission"); .NET's `RequestOptions.ResourceTokenExpirySeconds`
//! gives the range "from 10 seconds, to 5 hours". The SDKs send it as the authorization header,
//! URL-encoded, unchanged (Python `auth.py`, `__get_authorization_token_using_resource_token`).
//!
//! Here a token is `type=resource&ver=1.0&sig=SIG;DB.USER.PERMISSION.VERSION.EXPIRY`: the
//! numbers of the database, user and permission, the permission's version (every write of it
//! changes it) and the expiry (seconds since 1970), signed with the master key (HMAC-SHA256), so
//! no one without the key can make or alter one. It names the permission rather than carrying
//! its scope, so deleting the permission, its user or its database, or rewriting the
//! permission, ends every token issued for it.

use engine::{PermissionDef, PermissionMode, UserDef};
use serde_json::Value;

use crate::auth::MasterKey;
use crate::error::{GatewayError, Result};
use crate::headers;

/// Default and bounds of `x-ms-documentdb-expiry-seconds`.
pub const DEFAULT_EXPIRY_SECONDS: u64 = 3600;
pub const MIN_EXPIRY_SECONDS: u64 = 10;
pub const MAX_EXPIRY_SECONDS: u64 = 18_000;

/// What a verified token lets its holder do.
#[derive(Debug, Clone)]
pub struct Grant {
    /// The permission's resource, as names (`["dbs", "db", "colls", "c"]`).
    pub resource: Vec<String>,
    pub mode: PermissionMode,
    pub partition_key: Option<Value>,
}

struct Claims {
    database: u32,
    user: u32,
    permission: u64,
    version: u64,
    expiry: u64,
}

impl Claims {
    fn text(&self) -> String {
        format!(
            "{}.{}.{}.{}.{}",
            self.database, self.user, self.permission, self.version, self.expiry
        )
    }

    /// The signed text; its first line is no verb, so it is never a request's payload.
    fn payload(&self) -> String {
        format!("resource-token\n{}\n", self.text())
    }

    fn parse(text: &str) -> Option<Claims> {
        let mut n = text.split('.');
        let c = Claims {
            database: n.next()?.parse().ok()?,
            user: n.next()?.parse().ok()?,
            permission: n.next()?.parse().ok()?,
            version: n.next()?.parse().ok()?,
            expiry: n.next()?.parse().ok()?,
        };
        n.next().is_none().then_some(c)
    }
}

fn now_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The validity a request asks for (`x-ms-documentdb-expiry-seconds`), within the service's
/// bounds; outside them a 400.
pub fn expiry_seconds(h: &actix_web::http::header::HeaderMap) -> Result<u64> {
    let Some(v) = headers::get(h, "x-ms-documentdb-expiry-seconds") else {
        return Ok(DEFAULT_EXPIRY_SECONDS);
    };
    match v.trim().parse::<u64>() {
        Ok(s) if (MIN_EXPIRY_SECONDS..=MAX_EXPIRY_SECONDS).contains(&s) => Ok(s),
        _ => Err(GatewayError::BadRequest(format!(
            "x-ms-documentdb-expiry-seconds is '{v}': a resource token is valid from \
             {MIN_EXPIRY_SECONDS} to {MAX_EXPIRY_SECONDS} seconds (default {DEFAULT_EXPIRY_SECONDS})."
        ))),
    }
}

/// A token for permission `p` of user `u` in database number `database`, valid `seconds`.
pub fn issue(
    key: &MasterKey,
    database: u32,
    u: &UserDef,
    p: &PermissionDef,
    seconds: u64,
) -> String {
    let c = Claims {
        database,
        user: u.number,
        permission: p.number,
        version: p.version,
        expiry: now_seconds() + seconds,
    };
    format!(
        "type=resource&ver=1.0&sig={};{}",
        key.sign(&c.payload()),
        c.text()
    )
}

/// Whether the authorization header holds a resource token (else it is a master-key one).
pub fn is_resource_token(authorization: Option<&str>) -> bool {
    authorization.is_some_and(|a| {
        let decoded = percent_encoding::percent_decode_str(a).decode_utf8_lossy();
        decoded.split('&').any(|p| p == "type=resource")
    })
}

fn unauthorized(why: &str) -> GatewayError {
    GatewayError::Unauthorized(format!(
        "The resource token in the authorization header {why}."
    ))
}

/// Checks a resource token: signed with this key, not expired, its permission still there and
/// unchanged. Answers what it grants.
pub fn verify(engine: &engine::Engine, key: &MasterKey, authorization: &str) -> Result<Grant> {
    let decoded = percent_encoding::percent_decode_str(authorization)
        .decode_utf8()
        .map_err(|_| unauthorized("is not UTF-8"))?;
    let sig_and_claims = decoded
        .split('&')
        .find_map(|p| p.strip_prefix("sig="))
        .ok_or_else(|| unauthorized("has no sig"))?;
    let (sig, text) = sig_and_claims
        .split_once(';')
        .ok_or_else(|| unauthorized("is malformed"))?;
    let claims = Claims::parse(text).ok_or_else(|| unauthorized("is malformed"))?;
    let expected = key.sign(&claims.payload());
    if !bool::from(subtle::ConstantTimeEq::ct_eq(
        expected.as_bytes(),
        sig.as_bytes(),
    )) {
        return Err(unauthorized(
            "was not issued by this account (its signature does not match)",
        ));
    }
    if claims.expiry <= now_seconds() {
        return Err(GatewayError::Unauthorized(
            "The resource token has expired: read the permission again for a new one.".into(),
        ));
    }
    let revoked = || unauthorized("names a permission that was deleted or changed");
    let db = engine
        .databases()
        .into_iter()
        .find(|d| d.number() == claims.database)
        .ok_or_else(revoked)?;
    let (_, p) = engine
        .database(&db.id)
        .users()
        .permission_by_number(claims.user, claims.permission)?
        .ok_or_else(revoked)?;
    if p.version != claims.version {
        return Err(revoked());
    }
    Ok(Grant {
        resource: resource_names(engine, &p.spec.resource),
        mode: p.spec.mode,
        partition_key: p.spec.resource_partition_key,
    })
}

/// A permission's resource link as names: a link of resource ids names its database and
/// container by their `_rid`s; one that names nothing stays as it is (and so matches nothing).
fn resource_names(engine: &engine::Engine, link: &str) -> Vec<String> {
    let mut segs: Vec<String> = link
        .split('/')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    if let Some(db) = segs.get(1).and_then(|rid| {
        engine
            .databases()
            .into_iter()
            .find(|d| d.resource_id() == *rid)
    }) {
        if let Some(c) = segs.get(3).and_then(|rid| {
            engine
                .database(&db.id)
                .containers()
                .into_iter()
                .find(|c| c.resource_id() == *rid)
        }) {
            segs[3] = c.id().to_owned();
        }
        segs[1] = db.id;
    }
    segs
}

/// The service's answer to a request its token does not cover.
fn forbidden() -> GatewayError {
    GatewayError::Forbidden(
        "Insufficient permissions provided in the authorization header for the corresponding \
         request. Please retry with another authorization header."
            .into(),
    )
}

/// Whether the request (`method` on the path `segs`, of names) is within the grant: the
/// permission's resource or below it; a read unless the mode is `All`; within its partition key
/// when it has one. The account (`GET /`) is readable with any valid token, as the SDKs read it
/// when a client starts.
pub fn authorize(
    grant: &Grant,
    method: &str,
    segs: &[&str],
    is_query: bool,
    h: &actix_web::http::header::HeaderMap,
) -> Result<()> {
    if segs.is_empty() && method == "GET" {
        return Ok(());
    }
    let within =
        segs.len() >= grant.resource.len() && grant.resource.iter().zip(segs).all(|(a, b)| a == b);
    if !within {
        return if reads_what_contains(grant, method, segs) {
            Ok(())
        } else {
            Err(forbidden())
        };
    }
    // A query is a POST to a feed (an odd number of segments); a POST to one resource (a
    // stored procedure's execution) is a write whatever its headers say.
    let query = method == "POST" && is_query && !segs.len().is_multiple_of(2);
    let reads = matches!(method, "GET" | "HEAD") || query;
    if grant.mode == PermissionMode::Read && !reads {
        return Err(forbidden());
    }
    if let Some(key) = &grant.partition_key {
        // Everything below the container's items is in a logical partition; the container
        // itself and its partition key ranges are what a client reads to reach it.
        let in_partitions = matches!(segs, ["dbs", _, "colls", _, kind, ..] if *kind != "pkranges");
        if in_partitions {
            let sent = headers::get(h, headers::PARTITION_KEY)
                .and_then(|v| serde_json::from_str::<Value>(v).ok());
            if !sent.is_some_and(|s| same_key(&s, key)) {
                return Err(forbidden());
            }
        }
    }
    Ok(())
}

/// A token for a resource also reads the resources that contain it (never their feeds or
/// siblings) and the ranges of its container: what an SDK reads to address it (the Python SDK
/// reads the container's partition key definition, and signs that read with the token of any
/// resource whose link contains the container's, `auth.py`), and what the service allows, since
/// the SDK's own `test_authorization` reads an item with an item's token so.
fn reads_what_contains(grant: &Grant, method: &str, segs: &[&str]) -> bool {
    if method != "GET" {
        return false;
    }
    let below = |n: usize| {
        segs.len() >= n
            && grant.resource.len() > n
            && grant.resource.iter().zip(&segs[..n]).all(|(a, b)| a == b)
    };
    match segs {
        ["dbs", _, "colls", _, "pkranges"] => below(4),
        _ => segs.len().is_multiple_of(2) && segs.len() < grant.resource.len() && below(segs.len()),
    }
}

/// Partition key values compared as the service does: `[1]` and `1`, and `1` and `1.0`, are
/// one key.
fn same_key(a: &Value, b: &Value) -> bool {
    fn parts(v: &Value) -> Vec<Value> {
        match v {
            Value::Array(a) => a.iter().map(norm).collect(),
            other => vec![norm(other)],
        }
    }
    fn norm(v: &Value) -> Value {
        match v.as_f64() {
            Some(f) if v.is_number() => serde_json::json!(f),
            _ => v.clone(),
        }
    }
    parts(a) == parts(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_compare_as_values() {
        assert!(same_key(&serde_json::json!([1]), &serde_json::json!(1.0)));
        assert!(!same_key(&serde_json::json!([1]), &serde_json::json!([2])));
        assert!(!same_key(
            &serde_json::json!(["1"]),
            &serde_json::json!([1])
        ));
    }

    #[test]
    fn claims_round_trip_and_refuse_extra_fields() {
        let c = Claims {
            database: 1,
            user: 2,
            permission: 3,
            version: 4,
            expiry: 5,
        };
        let back = Claims::parse(&c.text()).unwrap();
        assert_eq!(back.payload(), c.payload());
        assert!(Claims::parse("1.2.3.4.5.6").is_none());
        assert!(Claims::parse("1.2.3.4").is_none());
    }
}
