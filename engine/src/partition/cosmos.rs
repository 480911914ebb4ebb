//! Cosmos DB's effective partition key (hash v2), as the SDKs compute it: MurmurHash3 x64 128
//! over each value's binary form, as 32 upper-case hex digits per value (a hierarchical key's
//! values one after the other, so a prefix's EPK is where its range starts and `P‖FF` where it
//! ends). The engine places items by a hash of its own; this is the address space the REST API
//! speaks (`x-ms-start-epk`, partition key ranges), so requests in it can be answered.

use super::PartitionKey;

/// The EPK of a partition key value (upper-case hex, `"271119C968E6C80F..."`).
pub fn epk(pk: &PartitionKey) -> String {
    if let PartitionKey::Hierarchical(parts) = pk {
        return parts.iter().map(epk).collect();
    }
    let mut bytes = Vec::new();
    match pk {
        PartitionKey::Hierarchical(_) => unreachable!("handled above"),
        // A missing property (Undefined) hashes as its own marker, as in the SDKs.
        PartitionKey::None => bytes.push(0x00),
        PartitionKey::Null => bytes.push(0x01),
        PartitionKey::Bool(false) => bytes.push(0x02),
        PartitionKey::Bool(true) => bytes.push(0x03),
        PartitionKey::Number(n) => {
            bytes.push(0x05);
            bytes.extend_from_slice(&n.to_le_bytes());
        }
        PartitionKey::String(s) => {
            bytes.push(0x08);
            bytes.extend_from_slice(s.as_bytes());
            bytes.push(0xFF);
        }
    }
    let (h1, h2) = murmur3_x64_128(&bytes, 0);
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&h2.to_be_bytes());
    out[8..].copy_from_slice(&h1.to_be_bytes());
    // The top two bits are cleared so every EPK sorts below "FF", the end of the key space.
    out[0] &= 0x3F;
    out.iter().map(|b| format!("{b:02X}")).collect()
}

/// A range of Cosmos EPKs, `[start, end)` as the SDKs send it (`x-ms-start-epk`,
/// `x-ms-end-epk`): upper-case hex compared as strings; `start == end` is that one EPK.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EpkRange {
    pub start: String,
    pub end: String,
}

impl EpkRange {
    pub fn new(start: &str, end: &str) -> Self {
        EpkRange {
            start: start.to_ascii_uppercase(),
            end: end.to_ascii_uppercase(),
        }
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
}

fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

fn murmur3_x64_128(data: &[u8], seed: u64) -> (u64, u64) {
    const C1: u64 = 0x87c3_7b91_1142_53d5;
    const C2: u64 = 0x4cf5_ad43_2745_937f;
    let (mut h1, mut h2) = (seed, seed);
    let mut blocks = data.chunks_exact(16);
    for b in &mut blocks {
        let k1 = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
        let k2 = u64::from_le_bytes(b[8..].try_into().expect("8 bytes"));
        h1 ^= k1.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2);
        h1 = h1
            .rotate_left(27)
            .wrapping_add(h2)
            .wrapping_mul(5)
            .wrapping_add(0x52dc_e729);
        h2 ^= k2.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1);
        h2 = h2
            .rotate_left(31)
            .wrapping_add(h1)
            .wrapping_mul(5)
            .wrapping_add(0x3849_5ab5);
    }
    let tail = blocks.remainder();
    let (mut k1, mut k2) = (0u64, 0u64);
    for (i, b) in tail.iter().enumerate() {
        if i < 8 {
            k1 |= (*b as u64) << (8 * i);
        } else {
            k2 |= (*b as u64) << (8 * (i - 8));
        }
    }
    if tail.len() > 8 {
        h2 ^= k2.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1);
    }
    if !tail.is_empty() {
        h1 ^= k1.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2);
    }
    let len = data.len() as u64;
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    (h1, h2)
}

#[cfg(test)]
mod tests {
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
    fn ranges() {
        let r = |s: &str, e: &str| EpkRange::new(s, e);
        assert!(r("AB", "AB").contains("AB"));
        assert!(!r("AB", "AB").contains("AC"));
        assert!(r("", "FF").contains("10"));
        assert!(!r("", "20").contains("30"));
        assert!(r("", "FF").is_everything());
    }
}
