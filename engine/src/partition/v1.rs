//! Cosmos DB's effective partition key hash v1, for containers made with
//! `partitionKey.version: 1` (the service's default before large partition keys; the SDKs still
//! create them when asked: azure-cosmos's `PartitionKey(path, kind="Hash", version=1)`).
//!
//! As the SDKs compute it (the Python SDK's `partition_key.py`,
//! `_get_effective_partition_key_for_hash_partitioning` and `_write_for_binary_encoding_v1`;
//! the .NET SDK's `PartitionKeyInternal.GetEffectivePartitionKeyForHashPartitioning`): the
//! value, strings cut to 100 characters, is written for hashing (a type marker, then a double
//! little-endian or the UTF-8 bytes and a zero), hashed with MurmurHash3 x86 32, and the EPK is
//! the service's binary encoding of the hash (as a number) followed by the value, as upper-case
//! hex: `05C1E9194991DE08713400` for `"p3"`. The hash leads, so EPK order is hash order and a
//! physical partition is a range of hashes: the engine places a V1 key at coordinate
//! `hash << 32` (`PartitionKeyDefinition::epk`), and a partition starting at coordinate `c`
//! (aligned to 2^32) starts at the EPK of the number `c >> 32` alone, below every key of that
//! hash.

use super::hash::murmur3_32;
use super::PartitionKey;

/// Characters of a string value that hash v1 keeps.
const MAX_STRING_CHARS: usize = 100;
/// Bytes of a string value the binary encoding writes in full (with a terminating zero);
/// longer ones are cut after one more byte, without it.
const MAX_STRING_BYTES: usize = 100;

const NUMBER: u8 = 0x05;
const STRING: u8 = 0x08;

/// The value as hash v1 sees it: strings cut to their first 100 characters.
fn truncated(s: &str) -> &str {
    s.char_indices()
        .nth(MAX_STRING_CHARS)
        .map_or(s, |(at, _)| &s[..at])
}

/// The components of a key: a plain value, or the values of a one-value array.
fn components(pk: &PartitionKey) -> &[PartitionKey] {
    pk.components()
}

/// The 32-bit hash of a key.
pub(crate) fn hash(pk: &PartitionKey) -> u32 {
    let mut bytes = Vec::new();
    for v in components(pk) {
        match v {
            PartitionKey::None => bytes.push(0x00),
            PartitionKey::Null => bytes.push(0x01),
            PartitionKey::Bool(false) => bytes.push(0x02),
            PartitionKey::Bool(true) => bytes.push(0x03),
            PartitionKey::Number(n) => {
                // `-0.0 = 0`: one value, one logical partition (as hash v2, `key.rs`).
                let n = if *n == 0.0 { 0.0 } else { *n };
                bytes.push(NUMBER);
                bytes.extend_from_slice(&n.to_le_bytes());
            }
            PartitionKey::String(s) => {
                bytes.push(STRING);
                bytes.extend_from_slice(truncated(s).as_bytes());
                bytes.push(0x00);
            }
            PartitionKey::Hierarchical(_) => {}
        }
    }
    murmur3_32(&bytes, 0)
}

/// The order-preserving 64 bits of a double (`_UInt64.encode_double_as_uint64`).
fn ordered_bits(n: f64) -> u64 {
    let bits = n.to_bits();
    const SIGN: u64 = 1 << 63;
    if bits < SIGN {
        bits ^ SIGN
    } else {
        (!bits).wrapping_add(1)
    }
}

/// A number in the binary encoding: its first 8 bits, then 7 bits a byte, each byte but the
/// last with its low bit set.
fn write_number(n: f64, out: &mut Vec<u8>) {
    out.push(NUMBER);
    let mut payload = ordered_bits(n);
    out.push((payload >> 56) as u8);
    payload <<= 8;
    let mut byte = 0u8;
    let mut first = true;
    while payload != 0 {
        if !first {
            out.push(byte);
        }
        first = false;
        byte = ((payload >> 56) as u8) | 0x01;
        payload <<= 7;
    }
    out.push(byte & 0xFE);
}

fn write_value(v: &PartitionKey, out: &mut Vec<u8>) {
    match v {
        PartitionKey::None => out.push(0x00),
        PartitionKey::Null => out.push(0x01),
        PartitionKey::Bool(false) => out.push(0x02),
        PartitionKey::Bool(true) => out.push(0x03),
        PartitionKey::Number(n) => write_number(if *n == 0.0 { 0.0 } else { *n }, out),
        PartitionKey::String(s) => {
            out.push(STRING);
            let utf8 = truncated(s).as_bytes();
            let short = utf8.len() <= MAX_STRING_BYTES;
            let kept = if short {
                utf8
            } else {
                &utf8[..=MAX_STRING_BYTES]
            };
            // Each byte + 1, so the zero that ends a short string sorts below any byte.
            out.extend(kept.iter().map(|b| b.saturating_add(1)));
            if short {
                out.push(0x00);
            }
        }
        PartitionKey::Hierarchical(_) => {}
    }
}

/// EPKs are upper-case hex (the SDKs compare them as strings).
fn hex(bytes: &[u8]) -> String {
    crate::storage::keys::hex(bytes).to_ascii_uppercase()
}

/// The Cosmos EPK (hash v1) of a key.
pub fn epk(pk: &PartitionKey) -> String {
    let mut out = Vec::new();
    write_number(f64::from(hash(pk)), &mut out);
    for v in components(pk) {
        write_value(v, &mut out);
    }
    hex(&out)
}

/// The EPK at which the keys of hash `h` start: the number alone.
pub(crate) fn epk_of_hash(h: u32) -> String {
    let mut out = Vec::new();
    write_number(f64::from(h), &mut out);
    hex(&out)
}

/// Where a hash v1 EPK (hex) lies among hashes: `Below` every key (EPKs under the number
/// marker), `Above` every key, or at hash `h`, `exact` when the EPK is the number alone (where
/// the keys of `h` start) rather than a key's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Position {
    Below,
    At { hash: u32, exact: bool },
    Above,
}

/// Reads the hash at the front of a hash v1 EPK (hex). Bounds from clients are checked first
/// (`cosmos::check_epk`); one that was not is read up to its first pair that is not a hex
/// byte: skipping that pair would shift the bytes after it and read another hash.
pub(crate) fn position(epk: &str) -> Position {
    let bytes: Vec<u8> = (0..epk.len() / 2)
        .map_while(|i| {
            let pair = epk.get(2 * i..2 * i + 2)?;
            // `from_str_radix` takes a leading sign: "+5" is no byte of an EPK.
            if !pair.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            u8::from_str_radix(pair, 16).ok()
        })
        .collect();
    match bytes.first() {
        None => return Position::Below,
        Some(&m) if m < NUMBER => return Position::Below,
        Some(&m) if m > NUMBER => return Position::Above,
        _ => {}
    }
    let Some(&top) = bytes.get(1) else {
        return Position::Below;
    };
    let mut payload = u64::from(top) << 56;
    let mut at = 2;
    for i in 1..=9u32 {
        let Some(&b) = bytes.get(at) else { break };
        at += 1;
        if let Some(shift) = 56u32.checked_sub(7 * i) {
            payload |= u64::from(b >> 1) << shift;
        }
        if b & 1 == 0 {
            break;
        }
    }
    const SIGN: u64 = 1 << 63;
    let bits = if payload >= SIGN {
        payload ^ SIGN
    } else {
        !(payload.wrapping_sub(1))
    };
    let n = f64::from_bits(bits);
    if !(0.0..=f64::from(u32::MAX)).contains(&n) {
        return if n < 0.0 {
            Position::Below
        } else {
            Position::Above
        };
    }
    Position::At {
        hash: n as u32,
        exact: at >= bytes.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur3_32_matches_the_python_sdk() {
        // azure-cosmos 4.17.1: _cosmos_murmurhash3.murmurhash3_32(bytearray(d), 0)
        for (d, want) in [
            (&b""[..], 0u32),
            (b"a", 1009084850),
            (b"ab", 2613040991),
            (b"abc", 3017643002),
            (b"abcd", 1139631978),
            (b"abcde", 3902511862),
        ] {
            assert_eq!(murmur3_32(d, 0), want, "{d:?}");
        }
    }

    #[test]
    fn epks_match_the_python_sdk() {
        // azure-cosmos 4.17.1: PartitionKey('/pk', kind='Hash', version=1)
        //   ._get_epk_range_for_partition_key(v).min
        let long = "x".repeat(150);
        let mut long_want = "05C1DD45A3938C08".to_owned();
        long_want.push_str(&"79".repeat(100));
        long_want.push_str("00");
        let cases: [(PartitionKey, &str); 11] = [
            ("p3".into(), "05C1E9194991DE08713400"),
            ("".into(), "05C1CF33970FF80800"),
            (
                "hello world".into(),
                "05C1970D43680869666D6D70217870736D6500",
            ),
            ("é中".into(), "05C1D159932BA008C4AAE5B9AE00"),
            (long.as_str().into(), long_want.as_str()),
            (PartitionKey::Number(7.0), "05C1CB7BF3111805C01C"),
            (PartitionKey::Number(1.5), "05C1E9694167A805BFF8"),
            (PartitionKey::Number(-2.25), "05C1E9F9A7D7A2053FFE"),
            (PartitionKey::Bool(true), "05C1D7C5A903D803"),
            (PartitionKey::Bool(false), "05C1DB857D857C02"),
            (PartitionKey::None, "05C1D529E345DC00"),
        ];
        for (pk, want) in cases {
            assert_eq!(epk(&pk), want, "{pk:?}");
        }
        assert_eq!(epk(&PartitionKey::Number(0.0)), "05C1BF6DA11560058000");
    }

    #[test]
    fn positions_read_the_hash_back() {
        for v in ["p3", "", "hello world", "é中"] {
            let pk = PartitionKey::from(v);
            let h = hash(&pk);
            assert_eq!(
                position(&epk(&pk)),
                Position::At {
                    hash: h,
                    exact: false
                }
            );
            let start = epk_of_hash(h);
            assert_eq!(
                position(&start),
                Position::At {
                    hash: h,
                    exact: true
                }
            );
            // The hash's own start sorts below its keys and above the hash before.
            assert!(start < epk(&pk));
            assert!(epk_of_hash(h - 1) < start);
        }
        for h in [0, 1, 1 << 31, u32::MAX] {
            assert_eq!(
                position(&epk_of_hash(h)),
                Position::At {
                    hash: h,
                    exact: true
                }
            );
        }
        assert_eq!(position(""), Position::Below);
        // A pair that is not a hex byte ends the EPK: the bytes after it are not read in its
        // place (which read "p3"'s EPK with `ZZ` in its number as another hash).
        let p3 = epk(&PartitionKey::from("p3"));
        let broken = format!("{}ZZ{}", &p3[..6], &p3[6..]);
        assert_eq!(position(&broken), position(&p3[..6]));
        assert_ne!(position(&broken), position(&p3));
        assert_eq!(position("05+5"), position("05"));
        assert_eq!(position("01"), Position::Below);
        assert_eq!(position("FF"), Position::Above);
    }
}
