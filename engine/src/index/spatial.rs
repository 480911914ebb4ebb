//! Spatial index entries. A valid GeoJSON Point at an indexed path has the term
//! `spatial-hash(8) · 0 · cell(8)`, where the cell is the Z-order (Morton) code of its
//! longitude and latitude quantized to 32 bits each, so every quadtree cell of the globe is one
//! contiguous range of codes. Any other valid geometry has the term `spatial-hash · 1` and is a
//! candidate of every spatial query on its path (the executor decides). Invalid GeoJSON is not
//! indexed, as in Cosmos DB, and no spatial function matches it.
//!
//! A query region is a set of longitude/latitude boxes covered by at most `MAX_CELLS` quadtree
//! cells: candidates are the points in those cells, a superset of the answer.

use geo::{BoundingRect, Geometry};
use serde_json::Value;

/// Cells a query region is covered with, at most (each is one index range).
pub const MAX_CELLS: usize = 32;

pub const TAG_POINT: u8 = 0;
pub const TAG_OTHER: u8 = 1;

/// The hash that starts every spatial entry of `path` (distinct from its range index's).
pub fn hash(path: &[String]) -> [u8; 8] {
    let mut joined = String::from("spatial");
    for s in path {
        joined.push('/');
        joined.push_str(s);
    }
    xxhash_rust::xxh3::xxh3_64(joined.as_bytes()).to_be_bytes()
}

/// The entry of the GeoJSON `v` (after the hash), if it is a valid geometry.
pub fn entry(v: &Value) -> Option<Vec<u8>> {
    if !v.is_object() {
        return None;
    }
    Some(match crate::geojson::geometry(v).ok()? {
        Geometry::Point(p) => {
            let mut t = vec![TAG_POINT];
            t.extend_from_slice(&morton(p.x(), p.y()).to_be_bytes());
            t
        }
        _ => vec![TAG_OTHER],
    })
}

fn quantize(v: f64, min: f64, span: f64) -> u32 {
    (((v - min) / span) * 4_294_967_296.0).clamp(0.0, u32::MAX as f64) as u32
}

fn spread(v: u32) -> u64 {
    let mut x = v as u64;
    x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
    x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF;
    x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    x = (x | (x << 2)) & 0x3333_3333_3333_3333;
    x = (x | (x << 1)) & 0x5555_5555_5555_5555;
    x
}

/// Z-order code: longitude bits in the odd positions, latitude bits in the even ones.
pub fn morton(lon: f64, lat: f64) -> u64 {
    (spread(quantize(lon, -180.0, 360.0)) << 1) | spread(quantize(lat, -90.0, 180.0))
}

/// A longitude/latitude box: `(west, south, east, north)` in degrees, west <= east.
pub type Box2 = (f64, f64, f64, f64);

/// The boxes that hold every point within `meters` (geodesic) of `g`: its bounding box widened
/// by at least that distance in degrees (a degree of latitude is at least 110 574 m, one of
/// longitude at least 111 319.49 m times the cosine of the band's highest latitude), split at
/// the antimeridian, the whole globe's width when the band reaches a pole.
pub fn around(g: &Geometry<f64>, meters: f64) -> Vec<Box2> {
    let Some(r) = g.bounding_rect() else {
        return Vec::new();
    };
    let margin = meters.max(0.0) * 1.000_001 + 1.0;
    let dlat = margin / 110_574.0;
    let (south, north) = (r.min().y - dlat, r.max().y + dlat);
    if south <= -90.0 || north >= 90.0 {
        return vec![(-180.0, south.max(-90.0), 180.0, north.min(90.0))];
    }
    let highest = south.abs().max(north.abs()).to_radians();
    let dlon = margin / (111_319.49 * highest.cos());
    let (west, east) = (r.min().x - dlon, r.max().x + dlon);
    if east - west >= 360.0 {
        return vec![(-180.0, south, 180.0, north)];
    }
    let mut out = vec![(west.max(-180.0), south, east.min(180.0), north)];
    if west < -180.0 {
        out.push((west + 360.0, south, 180.0, north));
    }
    if east > 180.0 {
        out.push((-180.0, south, east - 360.0, north));
    }
    out
}

/// The bounding box of `g` (exact for containment and intersection, which are computed on the
/// coordinates).
pub fn bounds(g: &Geometry<f64>) -> Vec<Box2> {
    g.bounding_rect()
        .map(|r| vec![(r.min().x, r.min().y, r.max().x, r.max().y)])
        .unwrap_or_default()
}

/// Inclusive code ranges of at most about `MAX_CELLS` quadtree cells covering the boxes.
pub fn cover(boxes: &[Box2]) -> Vec<(u64, u64)> {
    let q: Vec<(u32, u32, u32, u32)> = boxes
        .iter()
        .map(|&(w, s, e, n)| {
            (
                quantize(w, -180.0, 360.0),
                quantize(s, -90.0, 180.0),
                quantize(e, -180.0, 360.0),
                quantize(n, -90.0, 180.0),
            )
        })
        .collect();
    // A cell: level, x and y of its corner at that level.
    let span = |level: u32, c: u32| {
        let shift = 32 - level;
        let lo = (c as u64) << shift;
        (lo, lo + (1u64 << shift) - 1)
    };
    let overlap = |level: u32, x: u32, y: u32| {
        let ((x0, x1), (y0, y1)) = (span(level, x), span(level, y));
        let mut any = false;
        let mut inside = false;
        for &(w, s, e, n) in &q {
            let (w, s, e, n) = (w as u64, s as u64, e as u64, n as u64);
            if x0 <= e && w <= x1 && y0 <= n && s <= y1 {
                any = true;
                inside |= w <= x0 && x1 <= e && s <= y0 && y1 <= n;
            }
        }
        (any, inside)
    };
    let mut done: Vec<(u32, u32, u32)> = Vec::new();
    let mut frontier = vec![(0u32, 0u32, 0u32)];
    while !frontier.is_empty() {
        if frontier[0].0 == 32 {
            done.append(&mut frontier);
            break;
        }
        let (mut full, mut partial) = (Vec::new(), Vec::new());
        for &(level, x, y) in &frontier {
            for (dx, dy) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                let child = (level + 1, x * 2 + dx, y * 2 + dy);
                match overlap(child.0, child.1, child.2) {
                    (true, true) => full.push(child),
                    (true, false) => partial.push(child),
                    _ => {}
                }
            }
        }
        if done.len() + full.len() + partial.len() > MAX_CELLS {
            // Refining would take more ranges than the budget: keep these coarser cells.
            done.append(&mut frontier);
            break;
        }
        done.append(&mut full);
        frontier = partial;
    }
    let mut ranges: Vec<(u64, u64)> = done
        .into_iter()
        .map(|(level, x, y)| {
            let code = (spread(x) << 1) | spread(y);
            let shift = 64 - 2 * level;
            if shift == 64 {
                (0, u64::MAX)
            } else {
                let lo = code << shift;
                (lo, lo | ((1u64 << shift) - 1))
            }
        })
        .collect();
    ranges.sort();
    let mut merged: Vec<(u64, u64)> = Vec::new();
    for (lo, hi) in ranges {
        match merged.last_mut() {
            Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
            _ => merged.push((lo, hi)),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cover_holds_every_point_of_its_boxes() {
        let boxes = [(-122.2, 47.6, -122.1, 47.7), (179.9, -1.0, 180.0, 1.0)];
        let ranges = cover(&boxes);
        assert!(ranges.len() <= MAX_CELLS, "{}", ranges.len());
        for i in 0..=20 {
            for j in 0..=20 {
                for &(w, s, e, n) in &boxes {
                    let lon = w + (e - w) * i as f64 / 20.0;
                    let lat = s + (n - s) * j as f64 / 20.0;
                    let m = morton(lon, lat);
                    assert!(
                        ranges.iter().any(|&(lo, hi)| lo <= m && m <= hi),
                        "{lon} {lat}"
                    );
                }
            }
        }
        // And it is much smaller than the globe.
        let far = morton(10.0, 10.0);
        assert!(!ranges.iter().any(|&(lo, hi)| lo <= far && far <= hi));
    }
}
