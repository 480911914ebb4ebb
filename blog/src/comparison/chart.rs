//! The `/models` chart, drawn by the server as inline SVG (no script, no CDN): for every request
//! one bar per model with the RU measured here, on a log scale (1 RU to 10 000 RU: V1's Q6 and
//! V3's Q1 must both be readable), and a black tick at the article's figure.

use std::fmt::Write;

use super::{article, Measurements, Request, VERSIONS};

const WIDTH: f64 = 760.0;
const LABEL: f64 = 60.0;
const BAR: f64 = 9.0;
const ROW: f64 = 3.0 * BAR + 10.0;
const TOP: f64 = 24.0;
/// Decades labelled on the axis: 10^0 .. 10^4 RU.
const DECADES: f64 = 4.0;
/// Where the axis starts: half a decade below 1 RU, so a 1 RU point read has a visible bar.
const AXIS_MIN: f64 = 0.5;
/// Fill per model: V1 red, V2 amber, V3 green, as the article's ⚠/✅ read.
const COLOURS: [&str; 3] = ["#c0392b", "#d68910", "#1e8449"];

fn x(ru: f64) -> f64 {
    let plot = WIDTH - LABEL - 10.0;
    let span = DECADES - AXIS_MIN.log10();
    LABEL + plot * ((ru.max(AXIS_MIN).log10() - AXIS_MIN.log10()) / span).min(1.0)
}

pub fn svg(measured: &Measurements) -> String {
    let height = TOP + ROW * Request::ALL.len() as f64 + 30.0;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" class="chart" role="img" aria-label="RU per request and model, log scale">"#
    );
    for d in 0..=DECADES as u32 {
        let ru = 10f64.powi(d as i32);
        let gx = x(ru);
        let _ = write!(
            s,
            r##"<line x1="{gx:.1}" y1="{TOP}" x2="{gx:.1}" y2="{:.1}" stroke="#ddd"/><text x="{gx:.1}" y="{:.1}" font-size="10" text-anchor="middle" fill="#555">{ru} RU</text>"##,
            height - 24.0,
            height - 10.0
        );
    }
    for (i, v) in VERSIONS.iter().enumerate() {
        let lx = LABEL + 120.0 * i as f64;
        let _ = write!(
            s,
            r#"<rect x="{lx}" y="4" width="10" height="10" fill="{}"/><text x="{:.0}" y="13" font-size="11">{v} measured here</text>"#,
            COLOURS[i],
            lx + 14.0
        );
    }
    let _ = write!(
        s,
        r#"<line x1="{0}" y1="4" x2="{0}" y2="14" stroke="black" stroke-width="2"/><text x="{1}" y="13" font-size="11">the article's figure</text>"#,
        LABEL + 372.0,
        LABEL + 378.0
    );
    for (row, request) in Request::ALL.iter().enumerate() {
        let y0 = TOP + ROW * row as f64;
        let _ = write!(
            s,
            r#"<text x="0" y="{:.1}" font-size="12" font-weight="bold">{}</text>"#,
            y0 + 1.5 * BAR + 4.0,
            request.code()
        );
        for (i, v) in VERSIONS.iter().enumerate() {
            let y = y0 + BAR * i as f64;
            if let Some(stat) = measured.get(v, *request) {
                let ru = stat.ru_mean();
                let _ = write!(
                    s,
                    r#"<rect x="{LABEL}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{v} {}: {ru:.2} RU measured here</title></rect>"#,
                    (x(ru) - LABEL).max(1.0),
                    BAR - 1.0,
                    COLOURS[i],
                    request.code()
                );
            }
            if let Some((_, ru)) = article::published(v, *request) {
                let ax = x(ru);
                let _ = write!(
                    s,
                    r#"<line x1="{ax:.1}" y1="{y:.1}" x2="{ax:.1}" y2="{:.1}" stroke="black" stroke-width="2"><title>{v} {}: {ru} RU in the article</title></line>"#,
                    y + BAR - 1.0,
                    request.code()
                );
            }
        }
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_one_ru_bar_has_a_width() {
        assert!(super::x(1.0) - super::LABEL > 10.0);
        assert!(super::x(0.1) == super::LABEL);
    }
}
