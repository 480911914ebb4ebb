//! GeoJSON read into `geo` geometries: Point, LineString, Polygon and MultiPolygon in WGS-84
//! (`[longitude, latitude]`), validated as Cosmos DB validates them. Below both its readers: the
//! spatial index (`index/spatial.rs`) and the query language's spatial functions
//! (`sql/functions/spatial.rs`), so the index names nothing of the query language.

use geo::{Coord, Geometry, LineString, MultiPolygon, Point, Polygon, Validation};
use serde_json::Value;

/// Parses and validates GeoJSON; the error is the reason ST_ISVALIDDETAILED gives.
pub fn geometry(v: &Value) -> Result<Geometry<f64>, String> {
    let kind = v
        .get("type")
        .and_then(Value::as_str)
        .ok_or("A GeoJSON object must have a string 'type'.")?;
    let coords = v
        .get("coordinates")
        .ok_or("A GeoJSON object must have 'coordinates'.")?;
    let g = match kind {
        "Point" => Geometry::Point(Point(position(coords)?)),
        "LineString" => {
            let line = positions(coords)?;
            if line.len() < 2 {
                return Err("A LineString must have at least two points.".into());
            }
            Geometry::LineString(LineString(line))
        }
        "Polygon" => Geometry::Polygon(polygon(coords)?),
        "MultiPolygon" => Geometry::MultiPolygon(MultiPolygon(
            coords
                .as_array()
                .ok_or("The coordinates of a MultiPolygon must be an array of polygons.")?
                .iter()
                .map(polygon)
                .collect::<Result<_, _>>()?,
        )),
        other => {
            return Err(format!(
            "'{other}' is not a supported GeoJSON type (Point, LineString, Polygon, MultiPolygon)."
        ))
        }
    };
    if let Err(e) = g.check_validation() {
        return Err(format!("The {kind} input is not valid: {e}."));
    }
    Ok(g)
}

fn position(v: &Value) -> Result<Coord<f64>, String> {
    let p = v
        .as_array()
        .filter(|p| p.len() >= 2)
        .ok_or("A position must be an array of at least two numbers.")?;
    let (Some(x), Some(y)) = (p[0].as_f64(), p[1].as_f64()) else {
        return Err("A position must be an array of at least two numbers.".into());
    };
    if !(-90.0..=90.0).contains(&y) {
        return Err("Latitude values must be between -90 and 90 degrees.".into());
    }
    if !(-180.0..=180.0).contains(&x) {
        return Err("Longitude values must be between -180 and 180 degrees.".into());
    }
    Ok(Coord { x, y })
}

fn positions(v: &Value) -> Result<Vec<Coord<f64>>, String> {
    v.as_array()
        .ok_or("Coordinates must be an array of positions.")?
        .iter()
        .map(position)
        .collect()
}

fn polygon(v: &Value) -> Result<Polygon<f64>, String> {
    let rings = v
        .as_array()
        .filter(|r| !r.is_empty())
        .ok_or("The coordinates of a Polygon must be a non-empty array of rings.")?;
    let mut out = Vec::with_capacity(rings.len());
    for (i, r) in rings.iter().enumerate() {
        let ring = positions(r)?;
        if ring.len() < 4 {
            return Err(format!(
                "The Polygon input is not valid because the ring number {} has fewer than four points. Each ring of a polygon must have at least four points.",
                i + 1
            ));
        }
        if ring.first() != ring.last() {
            return Err(format!(
                "The Polygon input is not valid because the start and end points of the ring number {} are not the same. Each ring of a polygon must have the same start and end points.",
                i + 1
            ));
        }
        out.push(LineString(ring));
    }
    let exterior = out.remove(0);
    Ok(Polygon::new(exterior, out))
}
