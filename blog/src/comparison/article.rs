//! The figures `004_*` published for each request and model (its final table): latency and RU,
//! measured on 100 000 users with 5–50 posts each, up to 25 comments and 100 likes per post.

use super::Request;

/// (latency in ms, RU) for `request` on `version` ("V1", "V2", "V3").
pub fn published(version: &str, request: Request) -> Option<(f64, f64)> {
    use Request::*;
    let v = match version {
        "V1" => 0,
        "V2" => 1,
        "V3" => 2,
        _ => return None,
    };
    let row: [(f64, f64); 3] = match request {
        C1 => [(7.0, 5.71), (7.0, 5.71), (7.0, 5.71)],
        Q1 => [(2.0, 1.0), (2.0, 1.0), (2.0, 1.0)],
        C2 => [(9.0, 8.76), (9.0, 8.76), (9.0, 8.76)],
        Q2 => [(9.0, 19.54), (2.0, 1.0), (2.0, 1.0)],
        Q3 => [(130.0, 619.41), (28.0, 201.54), (4.0, 6.46)],
        C3 => [(7.0, 8.57), (7.0, 15.27), (7.0, 15.27)],
        Q4 => [(23.0, 27.72), (4.0, 7.72), (4.0, 7.72)],
        C4 => [(6.0, 7.05), (7.0, 14.67), (7.0, 14.67)],
        Q5 => [(59.0, 58.92), (4.0, 8.92), (4.0, 8.92)],
        Q6 => [(306.0, 2063.54), (83.0, 532.33), (9.0, 16.97)],
    };
    Some(row[v])
}
