//! Cosmos DB's effective partition key (hash v2), as the SDKs compute it: MurmurHash3 x64 128
//! over each value's binary form, as 32 upper-case hex digits per value (a hierarchical key's
//! values one after the other, so a prefix's EPK is where its range starts and `P‖FF` where it
//! ends). Containers are placed by it (`Placement::Cosmos`), so a physical partition's range is
//! a range of these EPKs: the partition key ranges the REST API shows, and the address space it
//! speaks (`x-ms-start-epk`, `x-ms-documentdb-partitionkeyrangeid`).

// The hashing itself lives with the key it hashes (`key.rs`) and in `hash.rs`.
use super::hash::hex;
use super::key::{below, level_bits, value_hash};
use super::{PartitionKey, PartitionKeyDefinition, PartitionMap, PhysicalPartition};
use crate::error::{Error, Result};

/// The part of coordinate `c` that level `level` (1-based) of a `levels`-deep key fills, and
/// its width in bits.
fn level_part(c: u64, levels: usize, level: usize) -> (u64, u32) {
    let before = level_bits(levels, level - 1);
    let width = level_bits(levels, level) - before;
    let part = (c << before) >> (64 - width);
    (part, width)
}

/// The deepest level (1-based) whose part of coordinate `c` is not zero (1 for zero).
pub(crate) fn deepest_level(c: u64, levels: usize) -> usize {
    (1..=levels)
        .rev()
        .find(|&l| level_part(c, levels, l).0 != 0)
        .unwrap_or(1)
}

/// The Cosmos EPK at which coordinate `c` starts, for keys whose first values are those of `key`
/// down to the level before `c`'s deepest non-zero part. A level's part `v` of width `w` holds
/// the bits of the value's hash below the two clear ones, so the values it holds are the
/// hashes at or above `v << (126 - w)`; the levels above it must be named in full (a split
/// inside one prefix's share makes sure only that prefix has keys there).
pub(crate) fn boundary(pkd: &PartitionKeyDefinition, c: u64, key: &PartitionKey) -> String {
    let levels = pkd.paths.len();
    let k = deepest_level(c, levels);
    let (part, width) = level_part(c, levels, k);
    let mut out: String = key.components()[..k - 1]
        .iter()
        .map(|v| hex(value_hash(v)))
        .collect();
    out.push_str(&hex((part as u128) << (126 - width)));
    out
}

/// Where partition `p` starts as a Cosmos EPK (`""` for the first). Its coordinate says so
/// unless a split recorded it (`cosmos_start`): a plain key's coordinate `c` is the EPK
/// `c << 62`, and a hierarchical key's partitions start on its first level's bits.
pub fn start_of(pkd: &PartitionKeyDefinition, p: &PhysicalPartition) -> String {
    match &p.cosmos_start {
        _ if p.start == 0 => String::new(),
        Some(start) => start.clone(),
        // Hash v1: the keys of hash `c >> 32` start at the number alone (`v1.rs`).
        None if pkd.is_v1() => super::v1::epk_of_hash((p.start >> 32) as u32),
        None => {
            let levels = pkd.paths.len();
            let (part, width) = level_part(p.start, levels, 1);
            hex((part as u128) << (126 - width))
        }
    }
}

/// The coordinates, inclusive, that hold every key whose Cosmos EPK is in `range`, for a
/// container placed by Cosmos's hash: exact at a plain key's 32-digit bounds, the whole share
/// of the first level's bits for a hierarchical key (its items are then told apart by EPK).
pub(crate) fn cover(pkd: &PartitionKeyDefinition, range: &EpkRange) -> (u64, u64) {
    if pkd.is_v1() {
        return cover_v1(range);
    }
    let levels = pkd.paths.len();
    let width = level_bits(levels, 1);
    // The first value's 32 digits, short ones padded with zeros. Bounds are checked where a
    // client sends them (`check_epk`); should one reach here unchecked, it is read up to its
    // first non-hex digit, never as the end of the key space.
    let first = |epk: &str| -> u128 {
        let digits: String = epk
            .chars()
            .take_while(char::is_ascii_hexdigit)
            .take(32)
            .collect();
        u128::from_str_radix(&format!("{digits:0<32}"), 16).unwrap_or(0)
    };
    let part = |h: u128| ((h >> (126 - width)).min(u64::MAX as u128) as u64) << (64 - width);
    let low = below(width);
    let lo = if range.start.is_empty() {
        0
    } else {
        part(first(&range.start))
    };
    let hi = if range.start == range.end {
        part(first(&range.start)) | low
    } else if range.end.is_empty() || range.end.as_str() >= "FF" {
        u64::MAX
    } else if levels == 1 && range.end.len() <= 32 {
        // The last EPK below the end, exactly.
        part(first(&range.end).saturating_sub(1))
    } else {
        part(first(&range.end)) | low
    };
    (lo, hi.max(lo))
}

/// `cover` for hash v1: the coordinates of the hashes the range spans (`hash << 32` each),
/// whole at both ends unless a bound is where a hash's keys start; the items are then told
/// apart by their EPK.
fn cover_v1(range: &EpkRange) -> (u64, u64) {
    use super::v1::{position, Position};
    const LOW: u64 = u32::MAX as u64;
    let at = |h: u32| u64::from(h) << 32;
    let lo = match position(&range.start) {
        Position::Below => 0,
        Position::At { hash, .. } => at(hash),
        Position::Above => u64::MAX,
    };
    let hi = if range.start == range.end {
        lo | LOW
    } else if range.end.is_empty() {
        u64::MAX
    } else {
        match position(&range.end) {
            Position::Below => 0,
            Position::At { hash, exact: true } => at(hash).saturating_sub(1),
            Position::At { hash, .. } => at(hash) | LOW,
            Position::Above => u64::MAX,
        }
    };
    (lo, hi.max(lo))
}

/// The Cosmos EPK range of the partition at `index` of `map`: `[start, end)`, the last one
/// ending at `"FF"`.
pub fn range_of(pkd: &PartitionKeyDefinition, map: &PartitionMap, index: usize) -> EpkRange {
    let start = start_of(pkd, &map.partitions[index]);
    let end = map
        .partitions
        .get(index + 1)
        .map_or_else(|| "FF".to_owned(), |next| start_of(pkd, next));
    EpkRange { start, end }
}

/// How much of a refused EPK an error quotes back (a hierarchical key's is 96 digits).
const QUOTED: usize = 40;

/// Checks an EPK a client sent (`field` names where: a header, a continuation's bound). Cosmos
/// DB's EPKs are the hex of a binary encoding (hash v2: 32 digits per value of the key, a
/// hierarchical prefix's range ending at `P‖FF`; hash v1: the encoded hash and value, `v1.rs`):
/// whole bytes, so an even count of hex digits, `""` the lowest and `"FF"` the highest. The
/// service writes them upper-case and the SDKs pass on what it wrote or what they computed
/// (azure-cosmos's `partition_key.py`, `_get_epk_range_for_prefix_partition_key`; its change
/// feed sends a feed range's `min`/`max` as they are, `change_feed_state.py`): either case is
/// taken. Anything else would be misread (a non-hex digit dropped or read as the top of the
/// key space), so it is a 400 that names the field and the value.
pub fn check_epk(field: &str, epk: &str) -> Result<()> {
    let why = if let Some((at, c)) = epk.char_indices().find(|(_, c)| !c.is_ascii_hexdigit()) {
        format!("{c:?} at offset {at} is not a hex digit")
    } else if epk.len() % 2 == 1 {
        format!("it has an odd number of hex digits ({})", epk.len())
    } else {
        return Ok(());
    };
    let mut quoted: String = epk.chars().take(QUOTED).collect();
    if quoted.len() < epk.len() {
        quoted.push('…');
    }
    Err(Error::bad(
        field,
        format!(
            "{field} {quoted:?} is not an effective partition key: {why} (EPKs are whole bytes \
             in hex, \"\" the lowest and \"FF\" the highest)"
        ),
    ))
}

/// A range of Cosmos EPKs, `[start, end)` as the SDKs send it (`x-ms-start-epk`,
/// `x-ms-end-epk`): upper-case hex compared as strings; `start == end` is that one EPK.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct EpkRange {
    pub start: String,
    pub end: String,
}

impl EpkRange {
    /// A range the engine made (its own partitions' bounds): not checked.
    pub fn new(start: &str, end: &str) -> Self {
        EpkRange {
            start: start.to_ascii_uppercase(),
            end: end.to_ascii_uppercase(),
        }
    }

    /// A range from bounds a client sent, each checked by [`check_epk`]; `fields` name the
    /// start and the end in errors (`x-ms-start-epk`, a continuation's `range.min`).
    pub fn parse(start: &str, end: &str, fields: [&str; 2]) -> Result<Self> {
        check_epk(fields[0], start)?;
        check_epk(fields[1], end)?;
        Ok(EpkRange::new(start, end))
    }

    /// Whether the whole key space is covered (`["", "FF")`).
    pub fn is_everything(&self) -> bool {
        self.start.is_empty() && (self.end.is_empty() || self.end == "FF")
    }

    pub fn contains(&self, epk: &str) -> bool {
        if self.start == self.end {
            epk == self.start
        } else {
            epk >= self.start.as_str() && (self.end.is_empty() || epk < self.end.as_str())
        }
    }

    /// Whether some EPK is in both ranges (`other` a range or a point).
    pub(crate) fn overlaps(&self, other: &EpkRange) -> bool {
        if other.start == other.end {
            return self.contains(&other.start);
        }
        let end = |r: &EpkRange| {
            if r.end.is_empty() {
                "FF".to_owned()
            } else {
                r.end.clone()
            }
        };
        self.start < end(other) && other.start < end(self)
    }
}

#[cfg(test)]
mod tests {
    use super::super::key::epk;
    use super::*;

    #[test]
    fn matches_the_python_sdk() {
        // azure-cosmos 4.17.1: PartitionKey('/pk', version=2)._get_epk_range_for_partition_key(v).min
        let cases: [(PartitionKey, &str); 10] = [
            ("p3".into(), "271119C968E6C80FA31EC9F0033A0CBB"),
            ("".into(), "32E9366E637A71B4E710384B2F4970A0"),
            ("hello world".into(), "2C181533A556D4AADF82641BC02C2B46"),
            (
                PartitionKey::Number(7.0),
                "36ECBAF0D9CC21F10F0938014BB52739",
            ),
            (
                PartitionKey::Number(1.5),
                "35C5DDEB6C795D16A9963C73C54E97BC",
            ),
            (PartitionKey::Bool(true), "0E711127C5B5A8E4726AC6DD306A3E59"),
            (
                PartitionKey::Bool(false),
                "2FE1BE91E90A3439635E0E9E37361EF2",
            ),
            (PartitionKey::Null, "378867E4430E67857ACE5C908374FE16"),
            ("é中".into(), "1B030A4A5FB97420A2DC77E625D809E6"),
            // NonePartitionKeyValue (Undefined).
            (PartitionKey::None, "11622DAA78F835834610ABE56EFF5CB5"),
        ];
        for (pk, want) in cases {
            assert_eq!(epk(&pk), want, "{pk:?}");
        }
    }

    #[test]
    fn hierarchical_keys_match_the_python_sdk() {
        // azure-cosmos 4.17.1: PartitionKey(path=["/a","/b","/c"], kind="MultiHash")
        //   ._get_epk_range_for_partition_key(key): a point for a full key, [P, P+"FF") for a prefix.
        let h = |parts: Vec<PartitionKey>| PartitionKey::Hierarchical(parts);
        let cases = [
            (
                h(vec!["x".into(), "y".into(), "z".into()]),
                "11E3F358618BE9AA5BAFF4C7C74F07161880C5B898FDA99DA53B2ABCC61E625C0A35DCD01A675F45B7B7D0CFCE672B6B",
            ),
            (
                h(vec!["x".into(), "y".into()]),
                "11E3F358618BE9AA5BAFF4C7C74F07161880C5B898FDA99DA53B2ABCC61E625C",
            ),
            (
                h(vec![PartitionKey::Number(7.0), PartitionKey::Number(1.5), true.into()]),
                "36ECBAF0D9CC21F10F0938014BB5273935C5DDEB6C795D16A9963C73C54E97BC0E711127C5B5A8E4726AC6DD306A3E59",
            ),
            (
                h(vec![false.into(), PartitionKey::Null, "z".into()]),
                "2FE1BE91E90A3439635E0E9E37361EF2378867E4430E67857ACE5C908374FE160A35DCD01A675F45B7B7D0CFCE672B6B",
            ),
            (
                h(vec!["x".into(), PartitionKey::None, "z".into()]),
                "11E3F358618BE9AA5BAFF4C7C74F071611622DAA78F835834610ABE56EFF5CB50A35DCD01A675F45B7B7D0CFCE672B6B",
            ),
            (
                h(vec![
                    "é中".into(),
                    "a-string-longer-than-sixteen-bytes".into(),
                    PartitionKey::Number(9_007_199_254_740_992.0),
                ]),
                "1B030A4A5FB97420A2DC77E625D809E60926F3C52A9C3EA9E191AB6FA73C79E715335910D01122E3D99DA5DE569B065D",
            ),
        ];
        for (pk, want) in cases {
            assert_eq!(epk(&pk), want, "{pk:?}");
        }
        // A prefix's range holds the full keys under it and no other.
        let prefix = epk(&h(vec!["x".into()]));
        let range = EpkRange::new(&prefix, &format!("{prefix}FF"));
        assert!(range.contains(&epk(&h(vec!["x".into(), "y".into(), "z".into()]))));
        assert!(!range.contains(&epk(&h(vec!["y".into(), "y".into(), "z".into()]))));
    }

    #[test]
    fn a_range_of_cosmos_epks_is_covered_by_its_coordinates() {
        for paths in ["/pk", "/a,/b", "/a,/b,/c"] {
            let pkd = PartitionKeyDefinition::new(paths).unwrap();
            let levels = pkd.paths.len();
            let keys: Vec<PartitionKey> = (0..400)
                .map(|i| {
                    let v = PartitionKey::from(format!("k{i}"));
                    match levels {
                        1 => v,
                        n => PartitionKey::Hierarchical(
                            std::iter::once(v)
                                .chain((1..n).map(|l| format!("v{}", i % (l + 2)).into()))
                                .collect(),
                        ),
                    }
                })
                .collect();
            let mut epks: Vec<String> = keys.iter().map(epk).collect();
            epks.sort();
            let ranges = [
                EpkRange::new("", "FF"),
                EpkRange::new(&epks[10], &epks[200]),
                EpkRange::new(&epks[37], &epks[37]),
                EpkRange::new("", &epks[100]),
                EpkRange::new(&epks[300], "FF"),
            ];
            for range in &ranges {
                let (lo, hi) = cover(&pkd, range);
                for key in &keys {
                    if range.contains(&epk(key)) {
                        let c = pkd.epk(key).coordinate();
                        assert!(
                            lo <= c && c <= hi,
                            "{paths} {key} in {range:?}: {c:x} not in {lo:x}..={hi:x}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn epks_a_client_sends_are_checked() {
        let f = ["x-ms-start-epk", "x-ms-end-epk"];
        // What the SDKs send: the bounds of the key space, a range's bounds as the service or
        // this engine writes them, a key's EPK (v2, v1), a hierarchical prefix's `[P, P‖FF)`,
        // in either case (the range keeps them upper-case).
        let prefix = epk(&PartitionKey::Hierarchical(vec!["x".into(), "y".into()]));
        let v1 = super::super::v1::epk(&PartitionKey::from("p3"));
        for (start, end) in [
            ("", "FF"),
            ("", ""),
            ("00", "FF"),
            (
                "1FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF",
                "3FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF",
            ),
            (prefix.as_str(), &format!("{prefix}FF")),
            (v1.as_str(), v1.as_str()),
            ("05C1D9D533F364", "05C1D9F59FF5A0"),
            ("3fffffffffffffff", "bfffffffffffffff"),
        ] {
            let r = EpkRange::parse(start, end, f).unwrap();
            assert_eq!(r, EpkRange::new(start, end), "{start} {end}");
            assert_eq!(r.start, start.to_ascii_uppercase());
        }
        assert_eq!(
            EpkRange::parse("3f", "bf", f).unwrap(),
            EpkRange::parse("3F", "BF", f).unwrap()
        );
        // A non-hex digit, an odd count of digits, a character that is not ASCII: refused,
        // naming the bound and quoting the value (cut when long).
        let long = format!("{}Z", "A".repeat(99));
        for (start, end, field, quoted, why) in [
            ("05ZZ", "FF", f[0], "\"05ZZ\"", "'Z' at offset 2"),
            ("", "F", f[1], "\"F\"", "odd number of hex digits (1)"),
            ("ABC", "FF", f[0], "\"ABC\"", "odd number"),
            ("", "0x10", f[1], "\"0x10\"", "'x' at offset 1"),
            ("-1", "FF", f[0], "\"-1\"", "'-' at offset 0"),
            (" 00", "FF", f[0], "\" 00\"", "' ' at offset 0"),
            ("00", "é0", f[1], "\"é0\"", "'é' at offset 0"),
            (
                "",
                &long,
                f[1],
                &format!("\"{}…\"", "A".repeat(40)),
                "'Z' at offset 99",
            ),
        ] {
            let e = EpkRange::parse(start, end, f).unwrap_err();
            assert_eq!(e.status_code(), 400);
            let Error::BadRequest {
                field: Some(named),
                message,
            } = &e
            else {
                panic!("{e:?}")
            };
            assert_eq!(named, field);
            assert!(
                message.starts_with(&format!("{field} {quoted} is not an effective")),
                "{message}"
            );
            assert!(message.contains(why), "{message}");
        }
    }

    #[test]
    fn an_unchecked_bound_is_read_up_to_its_first_non_hex_digit() {
        // Not the top of the key space (`from_str_radix` failing read as `u128::MAX`).
        let pkd = PartitionKeyDefinition::new("/pk").unwrap();
        assert_eq!(
            cover(&pkd, &EpkRange::new("3FZZ", "FF")),
            cover(&pkd, &EpkRange::new("3F", "FF"))
        );
        // A plain key's coordinate is its EPK shifted two bits left.
        assert_eq!(cover(&pkd, &EpkRange::new("3F", "FF")).0, 0xFC << 56);
    }

    #[test]
    fn ranges() {
        let r = |s: &str, e: &str| EpkRange::new(s, e);
        assert!(r("AB", "AB").contains("AB"));
        assert!(!r("AB", "AB").contains("AC"));
        assert!(r("", "FF").contains("10"));
        assert!(!r("", "20").contains("30"));
        assert!(r("", "FF").is_everything());
    }
}
