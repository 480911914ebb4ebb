//! Items: id rules, system properties, size limits and the index terms a write touches.

pub mod patch;

use serde_json::Value;

use crate::error::{Error, Result};

pub use patch::PatchOperation;

/// Cosmos DB's item size limit (the stored JSON, system properties included).
pub const MAX_ITEM_BYTES: usize = 2 * 1024 * 1024;
/// Cosmos DB's limit on an item's id: 1,023 bytes ("Service quotas and default limits",
/// learn.microsoft.com: "Maximum length of id 1,023 bytes"). Databases and containers have 255
/// characters (`catalog::validate_resource_id`).
pub const MAX_ID_BYTES: usize = 1023;

/// System properties the engine owns: a client-supplied value is dropped and replaced.
pub const SYSTEM_PROPERTIES: [&str; 6] = ["_rid", "_self", "_etag", "_attachments", "_ts", "_lsn"];

pub fn validate_id(id: &str) -> Result<()> {
    if id.is_empty() {
        return Err(Error::bad("id", "id must not be empty"));
    }
    if id.len() > MAX_ID_BYTES {
        // The service's words (azure-cosmos 4.17.1's test_resource_id.py asserts them).
        return Err(Error::bad(
            "id",
            format!(
                "The input name '{id}' is invalid. Ensure to provide a unique non-empty string \
                 less than '1024' characters. (An item id is at most {MAX_ID_BYTES} bytes; \
                 this one is {}.)",
                id.len()
            ),
        ));
    }
    if let Some(c) = id.chars().find(|c| matches!(c, '/' | '\\' | '?' | '#')) {
        return Err(Error::bad(
            "id",
            format!("id '{id}' contains '{c}'; ids may not contain / \\ ? #"),
        ));
    }
    if id.ends_with(' ') {
        return Err(Error::bad("id", "id must not end with a space"));
    }
    Ok(())
}

/// Checks that `doc` is an object with a valid string `id` and returns its id.
pub fn id_of(doc: &Value) -> Result<&str> {
    let obj = doc
        .as_object()
        .ok_or_else(|| Error::bad("item", "an item must be a JSON object"))?;
    let id = match obj.get("id") {
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return Err(Error::bad("id", "id must be a string")),
        None => return Err(Error::bad("id", "the item has no 'id' property")),
    };
    validate_id(id)?;
    Ok(id)
}

/// The item's own `ttl`: absent, -1 (never expires) or a positive number of seconds. `null` is
/// refused as the service refuses it (the Python SDK's `test_ttl.py` expects a 400).
pub fn ttl_of(doc: &Value) -> Result<Option<i64>> {
    match doc.get("ttl") {
        None => Ok(None),
        Some(Value::Null) => Err(Error::bad(
            "ttl",
            "ttl must be -1 or a positive integer number of seconds, not null (leave it out for the container's default)",
        )),
        Some(Value::Number(n)) => match n.as_i64() {
            Some(t) if t == -1 || t > 0 => Ok(Some(t)),
            _ => Err(Error::bad(
                "ttl",
                "ttl must be -1 or a positive integer number of seconds",
            )),
        },
        Some(_) => Err(Error::bad("ttl", "ttl must be a number")),
    }
}

/// System properties written into a stored item.
pub struct SystemProperties {
    pub rid: String,
    /// `_self`: `dbs/{database rid}/colls/{container rid}/docs/{rid}/`.
    pub self_link: String,
    pub etag: String,
    pub ts: u64,
    pub lsn: u64,
}

/// Strips client-supplied system properties, appends the engine's, serializes. Returns the
/// sealed item and its bytes.
pub fn seal(doc: Value, sys: &SystemProperties) -> Result<(Value, Vec<u8>)> {
    if nests_deeper_than(&doc, MAX_DEPTH) {
        return Err(Error::bad(
            "item",
            format!("the item nests deeper than {MAX_DEPTH} levels of objects and arrays"),
        ));
    }
    let Value::Object(mut obj) = doc else {
        return Err(Error::bad("item", "an item must be a JSON object"));
    };
    for p in SYSTEM_PROPERTIES {
        obj.shift_remove(p);
    }
    obj.insert("_rid".into(), Value::String(sys.rid.clone()));
    obj.insert("_self".into(), Value::String(sys.self_link.clone()));
    obj.insert("_etag".into(), Value::String(sys.etag.clone()));
    obj.insert("_attachments".into(), Value::String("attachments/".into()));
    obj.insert("_ts".into(), Value::from(sys.ts));
    obj.insert("_lsn".into(), Value::from(sys.lsn));
    let sealed = Value::Object(obj);
    let bytes = serde_json::to_vec(&sealed).map_err(|e| Error::Corrupt(e.to_string()))?;
    if bytes.len() > MAX_ITEM_BYTES {
        return Err(Error::TooLarge {
            size: bytes.len(),
            limit: MAX_ITEM_BYTES,
        });
    }
    Ok((sealed, bytes))
}

/// Most levels of objects and arrays an item may nest: serde_json's parsing limit, enforced by the
/// engine itself too (items built in code, and builds where a dependency lifts serde_json's).
pub const MAX_DEPTH: usize = 128;

/// Whether `v` nests deeper than `max` levels, without recursion.
fn nests_deeper_than(v: &Value, max: usize) -> bool {
    let mut stack = vec![(v, 1usize)];
    while let Some((v, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(a) => Box::new(a.iter()),
            Value::Object(o) => Box::new(o.values()),
            _ => continue,
        };
        if depth > max {
            return true;
        }
        stack.extend(children.map(|c| (c, depth + 1)));
    }
    false
}

/// The etag of version `lsn` of an item in container `rid`: opaque and quoted, as Cosmos DB's.
pub fn etag(rid: u32, lsn: u64) -> String {
    // By hand: `format!` of the same text was a fifth of a point read's own instructions.
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut b = [0u8; 36];
    b[0] = b'"';
    for i in 0..8 {
        b[1 + i] = HEX[(rid >> (28 - 4 * i)) as usize & 15];
    }
    b[9..19].copy_from_slice(b"-0000-0000");
    b[19] = b'-';
    for i in 0..16 {
        b[20 + i] = HEX[(lsn >> (60 - 4 * i)) as usize & 15];
    }
    let mut s = String::with_capacity(38);
    s.push_str(std::str::from_utf8(&b).expect("ASCII"));
    s.push('"');
    s
}

/// An item's `_rid` (Cosmos DB's form, `rid.rs`: its container's, then a hash of its key, so it
/// stays the same across replaces) and its `_self`, from its container's resource id bytes and
/// `_self` (`ContainerDef::resource_bytes`, `self_link`: the catalog is a layer above items).
pub fn item_links(container: &[u8; 8], container_self: &str, doc_key: &[u8]) -> (String, String) {
    let rid = crate::rid::child(container, crate::rid::ChildKind::Document, doc_key);
    let link = format!("{container_self}docs/{rid}/");
    (rid, link)
}

/// Parses stored JSON (written by this engine) into `T`: the bytes are validated as UTF-8 once,
/// then parsed as text, which is cheaper than validating string by string.
pub fn parse_stored<T: serde::de::DeserializeOwned>(json: &[u8]) -> Result<T> {
    let text = std::str::from_utf8(json)
        .map_err(|e| Error::Corrupt(format!("stored item is not UTF-8: {e}")))?;
    serde_json::from_str(text).map_err(|e| Error::Corrupt(e.to_string()))
}

#[cfg(test)]
mod depth_tests {
    use serde_json::json;

    #[test]
    fn depth_is_measured_without_recursion() {
        let mut v = json!(1);
        for _ in 0..128 {
            v = json!([v]);
        }
        assert!(!super::nests_deeper_than(&v, 128));
        let deeper = json!({"a": v});
        assert!(super::nests_deeper_than(&deeper, 128));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids() {
        assert!(validate_id("a-b_c.d").is_ok());
        for bad in ["", "a/b", "a\\b", "a?b", "a#b", "trailing "] {
            assert_eq!(validate_id(bad).unwrap_err().status_code(), 400, "{bad:?}");
        }
        assert!(validate_id(&"x".repeat(1023)).is_ok());
        assert!(validate_id(&"x".repeat(1024)).is_err());
        // Bytes, not characters: 256 four-byte characters are 1,024 bytes.
        assert!(validate_id(&"😀".repeat(256)).is_err());
        assert!(id_of(&json!({"id": 5})).is_err());
        assert!(id_of(&json!([1])).is_err());
    }

    /// The hand-written etag is the text `format!` made before it.
    #[test]
    fn etags_keep_their_text() {
        for (rid, lsn) in [
            (0, 0),
            (1, 7),
            (0xdead_beef, u64::MAX),
            (42, 0x0123_4567_89ab_cdef),
        ] {
            assert_eq!(
                etag(rid, lsn),
                format!("\"{rid:08x}-0000-0000-{lsn:016x}\"")
            );
        }
    }
}
