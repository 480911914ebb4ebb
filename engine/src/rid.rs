//! Resource ids (`_rid`) in Cosmos DB's form, because the SDKs parse them: .NET's
//! `Microsoft.Azure.Documents.ResourceId.TryParse` (azure-cosmos-dotnet-v3, `ResourceId.cs`) and
//! Java's `ResourceId` read base64 (`-` for `/`) of at most 20 bytes: a database's 4; then 4
//! for a collection, the first of them with its top bit set (clear, it is a user); then 8 for a
//! child of the collection, a little-endian number whose last byte's top 4 bits name its kind.
//! A child's id therefore names its collection and database too, which is what lets a
//! signature over the last id of a `_self` link (the SDKs sign resource-id links so) cover
//! the whole link. Offers have 3 bytes of their own.

use base64::Engine as _;

/// The kinds of a collection's children (`CollectionChildResourceType` in `ResourceId.cs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildKind {
    Document = 0,
    PartitionKeyRange = 5,
    UserDefinedFunction = 6,
    Trigger = 7,
    StoredProcedure = 8,
}

impl ChildKind {
    /// The kind a REST path segment (`docs`, `sprocs`, …) names.
    pub fn of_segment(segment: &str) -> Option<ChildKind> {
        Some(match segment {
            "docs" => ChildKind::Document,
            "pkranges" => ChildKind::PartitionKeyRange,
            "udfs" => ChildKind::UserDefinedFunction,
            "triggers" => ChildKind::Trigger,
            "sprocs" => ChildKind::StoredProcedure,
            _ => return None,
        })
    }
}

/// Base64 with `-` for `/`, as the service writes ids (they travel in URL paths).
pub fn encode(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD
        .encode(bytes)
        .replace('/', "-")
}

/// The bytes of a resource id; `None` unless it is padded base64 of at most 20 bytes (the
/// parsers' first checks).
pub fn decode(rid: &str) -> Option<Vec<u8>> {
    if rid.is_empty() || !rid.len().is_multiple_of(4) {
        return None;
    }
    let b = base64::engine::general_purpose::STANDARD
        .decode(rid.replace('-', "/"))
        .ok()?;
    (b.len() <= 20).then_some(b)
}

/// A database's 4 bytes.
pub fn database_bytes(number: u32) -> [u8; 4] {
    number.to_le_bytes()
}

/// A collection's 8 bytes: its database's, then its own number (below 2^31) spread so that the
/// first byte's top bit is set and distinct numbers stay distinct.
pub fn collection_bytes(database: u32, number: u32) -> [u8; 8] {
    let own = 0x80 | (number & 0x7f) | ((number >> 7) << 8);
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&database_bytes(database));
    b[4..].copy_from_slice(&own.to_le_bytes());
    b
}

/// Whether `bytes` are a collection's (8 bytes, the collection marker bit set).
pub fn is_collection(bytes: &[u8]) -> bool {
    bytes.len() == 8 && bytes[4] & 0x80 != 0
}

/// A child's 16 bytes: its collection's 8, then `number` (below 2^60) with `kind` in the top
/// 4 bits of the last byte.
pub fn child_bytes(collection: &[u8; 8], kind: ChildKind, number: u64) -> [u8; 16] {
    let value = (number & ((1 << 60) - 1)) | ((kind as u64) << 60);
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(collection);
    b[8..].copy_from_slice(&value.to_le_bytes());
    b
}

/// The kind of a child id's 16 bytes; `None` for another length or an unknown kind.
pub fn child_kind(bytes: &[u8]) -> Option<ChildKind> {
    if bytes.len() != 16 || !is_collection(&bytes[..8]) {
        return None;
    }
    [
        ChildKind::Document,
        ChildKind::PartitionKeyRange,
        ChildKind::UserDefinedFunction,
        ChildKind::Trigger,
        ChildKind::StoredProcedure,
    ]
    .into_iter()
    .find(|k| *k as u8 == bytes[15] >> 4)
}

/// A child's number from a hash of its identity: 53 bits, so `DOCUMENTID()` (the number, as a
/// JSON number) is exact, and never 0 (the parsers read 0 as "no child").
pub fn hashed_number(identity: &[u8]) -> u64 {
    (xxhash_rust::xxh3::xxh3_64(identity) >> 11).max(1)
}

/// A collection child's id: the collection's bytes, then the hashed number of `identity`.
pub fn child(collection: &[u8; 8], kind: ChildKind, identity: &[u8]) -> String {
    encode(&child_bytes(collection, kind, hashed_number(identity)))
}

/// An offer's 3 bytes (the service's offer ids are 4 characters): the low 3 bytes of the
/// number of the resource it provisions.
pub fn offer(number: u32) -> String {
    encode(&number.to_le_bytes()[..3])
}

/// Stable 32 bits from a name (FNV-1a): the number of a database created before databases were
/// numbered (their ids were this hash, so links handed out then still resolve).
pub fn legacy_database_number(id: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in id.bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    // The old ids were these 4 bytes big-endian; as a little-endian number they read back so.
    u32::from_le_bytes(h.to_be_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_parse_as_the_sdks_parse_them() {
        let db = encode(&database_bytes(1));
        assert_eq!(db, "AQAAAA==");
        let coll = collection_bytes(1, 2);
        assert!(is_collection(&coll));
        let coll_rid = encode(&coll);
        assert_eq!(coll_rid.len(), 12);
        assert_eq!(decode(&coll_rid).unwrap(), coll);
        let doc = child(&coll, ChildKind::Document, b"key");
        let bytes = decode(&doc).unwrap();
        assert_eq!(bytes.len(), 16);
        assert_eq!(&bytes[..8], &coll);
        assert_eq!(child_kind(&bytes), Some(ChildKind::Document));
        // DOCUMENTID() reads bytes 8..16 as a little-endian number: exact below 2^53.
        let n = u64::from_le_bytes(bytes[8..].try_into().unwrap());
        assert!(n > 0 && n < 1 << 53);
        let sproc = decode(&child(&coll, ChildKind::StoredProcedure, b"s")).unwrap();
        assert_eq!(child_kind(&sproc), Some(ChildKind::StoredProcedure));
        assert_eq!(offer(7).len(), 4);
        assert!(decode("AQAAAA=").is_none(), "unpadded");
    }

    #[test]
    fn distinct_collections_get_distinct_ids() {
        let mut seen = std::collections::HashSet::new();
        for n in (0..1000).chain([1 << 20, (1 << 31) - 1]) {
            let b = collection_bytes(3, n);
            assert!(is_collection(&b));
            assert!(seen.insert(b), "{n}");
        }
    }
}
