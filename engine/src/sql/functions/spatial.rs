//! Spatial functions over GeoJSON Point, LineString, Polygon and MultiPolygon in WGS-84
//! (`[longitude, latitude]`), with the `geo` crate: distances and areas on the ellipsoid
//! (Karney's geodesics), containment and intersection on the coordinates. An invalid geometry is
//! undefined to every function but ST_ISVALID and ST_ISVALIDDETAILED, as in Cosmos DB.

use geo::{
    Contains, Distance, Geodesic, GeodesicArea, Geometry, InterpolatePoint, Intersects, LineString,
    Point, Polygon,
};
use serde_json::{Map, Value};

use super::args::boolean;
use crate::geojson::geometry;
use crate::sql::value::{numeric, Val};

/// The area of the WGS-84 ellipsoid (m²): a clockwise polygon covers the rest of the Earth.
const EARTH_AREA: f64 = 510_065_621_724_088.5;

pub(super) fn call(name: &str, a: &[Val]) -> Val {
    match name {
        "ST_ISVALID" => {
            let v = a[0].as_ref()?;
            boolean(v.is_object() && geometry(v).is_ok())
        }
        "ST_ISVALIDDETAILED" => {
            let v = a[0].as_ref()?;
            let mut out = Map::new();
            let verdict = if v.is_object() {
                geometry(v).map(|_| ())
            } else {
                Err("The input is not a GeoJSON object.".into())
            };
            out.insert("valid".into(), Value::Bool(verdict.is_ok()));
            if let Err(reason) = verdict {
                out.insert("reason".into(), Value::String(reason));
            }
            Some(Value::Object(out))
        }
        "ST_DISTANCE" => numeric(distance(&shape(&a[0])?, &shape(&a[1])?)),
        "ST_WITHIN" => boolean(within(&shape(&a[0])?, &shape(&a[1])?)),
        "ST_INTERSECTS" => boolean(shape(&a[0])?.intersects(&shape(&a[1])?)),
        "ST_AREA" => numeric(area(&shape(&a[0])?)),
        _ => None,
    }
}

/// A valid geometry, or nothing.
pub fn shape(v: &Val) -> Option<Geometry<f64>> {
    geometry(v.as_ref()?).ok()
}

/// Geodesic distance in meters: 0 when the geometries meet, else the least distance between a
/// vertex of one and a segment (or point) of the other.
pub fn distance(a: &Geometry<f64>, b: &Geometry<f64>) -> f64 {
    if let (Geometry::Point(p), Geometry::Point(q)) = (a, b) {
        return Geodesic.distance(*p, *q);
    }
    if a.intersects(b) {
        return 0.0;
    }
    let mut best = f64::INFINITY;
    for (x, y) in [(a, b), (b, a)] {
        let targets = segments(y);
        for v in vertices(x) {
            for &(s0, s1) in &targets {
                best = best.min(to_segment(v, s0, s1));
            }
        }
    }
    best
}

fn vertices(g: &Geometry<f64>) -> Vec<Point<f64>> {
    let mut out = Vec::new();
    match g {
        Geometry::Point(p) => out.push(*p),
        Geometry::LineString(l) => out.extend(l.points()),
        Geometry::Polygon(p) => rings(p).for_each(|r| out.extend(r.points())),
        Geometry::MultiPolygon(m) => m
            .iter()
            .flat_map(rings)
            .for_each(|r| out.extend(r.points())),
        _ => {}
    }
    out
}

fn rings(p: &Polygon<f64>) -> impl Iterator<Item = &LineString<f64>> {
    std::iter::once(p.exterior()).chain(p.interiors())
}

/// The segments of a geometry; a point is a segment of no length.
fn segments(g: &Geometry<f64>) -> Vec<(Point<f64>, Point<f64>)> {
    let lines = |l: &LineString<f64>| {
        l.lines()
            .map(|s| (Point(s.start), Point(s.end)))
            .collect::<Vec<_>>()
    };
    match g {
        Geometry::Point(p) => vec![(*p, *p)],
        Geometry::LineString(l) => lines(l),
        Geometry::Polygon(p) => rings(p).flat_map(lines).collect(),
        Geometry::MultiPolygon(m) => m.iter().flat_map(rings).flat_map(lines).collect(),
        _ => Vec::new(),
    }
}

/// Least geodesic distance from `p` to the geodesic from `s0` to `s1` (golden-section search
/// along it: the distance has a single minimum along a segment shorter than half the Earth).
fn to_segment(p: Point<f64>, s0: Point<f64>, s1: Point<f64>) -> f64 {
    let at = |t: f64| Geodesic.distance(p, Geodesic.point_at_ratio_between(s0, s1, t));
    let ends = Geodesic.distance(p, s0).min(Geodesic.distance(p, s1));
    if s0 == s1 {
        return ends;
    }
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let (mut lo, mut hi) = (0.0, 1.0);
    let (mut x1, mut x2) = (hi - g * (hi - lo), lo + g * (hi - lo));
    let (mut f1, mut f2) = (at(x1), at(x2));
    for _ in 0..60 {
        if f1 < f2 {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - g * (hi - lo);
            f1 = at(x1);
        } else {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + g * (hi - lo);
            f2 = at(x2);
        }
    }
    ends.min(f1).min(f2)
}

/// `a` lies in `b`: every point of `a` is in `b`, and their interiors meet.
pub fn within(a: &Geometry<f64>, b: &Geometry<f64>) -> bool {
    b.contains(a)
}

/// Geodesic area in m²; a polygon whose exterior ring runs clockwise covers the rest of the
/// Earth (GeoJSON's rule, which the reference states); points and lines have none.
fn area(g: &Geometry<f64>) -> f64 {
    let polygon = |p: &Polygon<f64>| {
        let signed = p.geodesic_area_signed();
        let exterior = Polygon::new(p.exterior().clone(), vec![]).geodesic_area_signed();
        if exterior < 0.0 {
            EARTH_AREA - signed.abs()
        } else {
            signed.abs()
        }
    };
    match g {
        Geometry::Polygon(p) => polygon(p),
        Geometry::MultiPolygon(m) => m.iter().map(polygon).sum(),
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn g(v: Value) -> Geometry<f64> {
        geometry(&v).unwrap()
    }

    #[test]
    fn reference_values() {
        let hq =
            g(json!({"type": "Point", "coordinates": [-122.12826822304672, 47.63980239335718]}));
        let rd =
            g(json!({"type": "Point", "coordinates": [-96.84368664765994, 46.81297794314663]}));
        let reference =
            g(json!({"type": "Point", "coordinates": [-122.11758113953535, 47.66901087006131]}));
        // The reference gives 3345.269817267368 m and 1907438.421299902 m; Karney's geodesics
        // on WGS-84 give 3345.269740 m and 1907438.342 m (2.3e-8 and 4.2e-8 apart). Not a
        // sphere (the radii implied differ: 6 371 468 and 6 389 626 m), not Vincenty (equal to
        // Karney's to 1e-9 here), not another ellipsoid (fitting both values needs a = 6378137.19
        // m, 1/f = 298.2553, no datum's): the service's own algorithm, not matched (issue 36).
        assert!((distance(&hq, &reference) - 3345.269817267368).abs() < 0.01);
        assert!((distance(&rd, &reference) - 1_907_438.421_299_902).abs() < 0.1);
        let square = g(
            json!({"type": "Polygon", "coordinates": [[[31.8, -5], [32, -5], [32, -4.7], [31.8, -4.7], [31.8, -5]]]}),
        );
        // The reference gives 735970283.0522614 m² (its geodesic algorithm differs from Karney's
        // in the eighth digit, as its distances do).
        assert!(
            (area(&square) / 735_970_283.052_261_4 - 1.0).abs() < 1e-7,
            "{}",
            area(&square)
        );
        let line = g(json!({"type": "LineString", "coordinates": [[0, 0], [0, 2]]}));
        let p = g(json!({"type": "Point", "coordinates": [1, 1]}));
        let d = distance(&p, &line);
        assert!((d - 111_302.6).abs() < 500.0, "{d}");
        assert_eq!(
            distance(
                &g(json!({"type": "Point", "coordinates": [31.9, -4.8]})),
                &square
            ),
            0.0
        );
    }
}
