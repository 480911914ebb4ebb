//! Charts drawn on the server as SVG (no script, no CDN): a heat map of RU per second per
//! physical partition over the last minute, and horizontal bars. Only presentation attributes
//! are used, so the site's Content-Security-Policy (no inline styles) holds.

use std::fmt::Write;

/// Text for SVG/HTML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// From pale blue (idle) through amber to red (at or past `max`).
pub fn heat(value: f64, max: f64) -> String {
    if value <= 0.0 || max <= 0.0 {
        return "#eef1f5".into();
    }
    let t = (value / max).clamp(0.0, 1.0);
    let (a, b, u) = if t < 0.5 {
        ((0xcf, 0xe0, 0xf5), (0xf0, 0xb4, 0x29), t * 2.0)
    } else {
        ((0xf0, 0xb4, 0x29), (0xb4, 0x23, 0x18), (t - 0.5) * 2.0)
    };
    let mix = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * u).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(a.0, b.0),
        mix(a.1, b.1),
        mix(a.2, b.2)
    )
}

/// One row of the heat map: a label and a value per second, oldest first.
pub struct HeatRow<'a> {
    pub label: String,
    pub values: &'a [f64],
}

const LABEL_W: usize = 120;
const CELL: usize = 12;
const ROW_H: usize = 22;

/// Below the rows: the time axis, then the colour legend.
const AXIS_H: usize = 18;
const LEGEND_H: usize = 22;
const SWATCH: usize = 26;

/// A heat map: one row per partition, one cell per second; a cell at `max` is full red. Under
/// the rows a time axis (a tick every 15 s, "now" at the right) and a legend of the colours from
/// idle to `max`, saying what `max` is (`scale`: the partition's budget, or the busiest second
/// when the container has no budget).
pub fn heat_map(rows: &[HeatRow], max: f64, scale: &str, title: &str) -> String {
    let cols = rows.iter().map(|r| r.values.len()).max().unwrap_or(0);
    let w = (LABEL_W + cols * CELL + 8).max(LABEL_W + 5 * SWATCH + 300);
    let grid_h = rows.len() * ROW_H;
    let h = grid_h + AXIS_H + LEGEND_H + 4;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="heat" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="{}"><title>{}</title>"#,
        esc(title),
        esc(title)
    );
    for (i, row) in rows.iter().enumerate() {
        let y = i * ROW_H;
        let _ = write!(
            s,
            r##"<text x="0" y="{}" font-size="12" fill="#1d2330">{}</text>"##,
            y + 15,
            esc(&row.label)
        );
        // One rectangle per run of seconds with the same value (an idle partition is one
        // rectangle, not one per second: the page stays small however many partitions).
        let mut j = 0;
        while j < row.values.len() {
            let v = row.values[j];
            let run = row.values[j..].iter().take_while(|x| **x == v).count();
            let (from, to) = (row.values.len() - j, row.values.len() - j - run + 1);
            let when = if run == 1 {
                format!("{from} s ago")
            } else {
                format!("from {from} to {to} s ago")
            };
            let _ = write!(
                s,
                r#"<rect x="{}" y="{y}" width="{}" height="{}" fill="{}"><title>{}: {v:.1} RU per second {when}</title></rect>"#,
                LABEL_W + j * CELL,
                run * CELL - 1,
                ROW_H - 3,
                heat(v, max),
                esc(&row.label),
            );
            j += run;
        }
    }
    // The time axis: the newest second is the last column.
    let axis_y = grid_h + 12;
    let _ = write!(
        s,
        r##"<text x="0" y="{axis_y}" font-size="11" fill="#5d6677">seconds ago</text>"##
    );
    for ago in (0..=cols).step_by(15) {
        let x = LABEL_W + (cols - ago) * CELL;
        let label = if ago == 0 {
            "now".to_owned()
        } else {
            format!("{ago}")
        };
        let anchor = match ago {
            0 => "end",
            _ if ago == cols => "start",
            _ => "middle",
        };
        let _ = write!(
            s,
            r##"<line x1="{x}" y1="{}" x2="{x}" y2="{}" stroke="#5d6677"/><text x="{x}" y="{axis_y}" font-size="11" fill="#5d6677" text-anchor="{anchor}" class="axis">{label}</text>"##,
            grid_h - 2,
            grid_h + 2,
        );
    }
    // The legend: five steps from idle to `max`.
    let legend_y = grid_h + AXIS_H + 2;
    let _ = write!(
        s,
        r##"<text x="0" y="{}" font-size="11" fill="#5d6677">RU per second</text>"##,
        legend_y + 13
    );
    for k in 0..5 {
        let v = max * k as f64 / 4.0;
        let x = LABEL_W + k * SWATCH;
        let _ = write!(
            s,
            r#"<rect x="{x}" y="{legend_y}" width="{}" height="16" fill="{}" class="legend"><title>{v:.0} RU/s</title></rect>"#,
            SWATCH - 1,
            heat(v, max),
        );
    }
    let _ = write!(
        s,
        r##"<text x="{}" y="{}" font-size="11" fill="#5d6677" class="legend-text">0 → {max:.0} RU/s; full red = {}</text></svg>"##,
        LABEL_W + 5 * SWATCH + 6,
        legend_y + 13,
        esc(scale)
    );
    s
}

/// One horizontal bar: a label, a value and the text printed after the bar.
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub note: String,
    /// Drawn red whatever its length (a partition that answered 429s).
    pub alarm: bool,
}

/// How bars are scaled and coloured.
#[derive(Debug, Clone, Copy)]
pub enum Scale {
    /// Load against a reference (a partition's RU/s budget, or the busiest second): a bar at
    /// `full` spans the chart and is red, an idle one is short and pale, whatever the others do.
    Heat { full: f64 },
    /// Sizes relative to the largest, in one neutral colour: a big partition is not "hot".
    Largest,
}

const PLAIN: &str = "#4a78b5";
const HOT: &str = "#b42318";

/// Horizontal bars, one per item, with a note after each.
pub fn bars(items: &[Bar], scale: Scale, title: &str) -> String {
    const BAR_W: f64 = 420.0;
    let largest = items.iter().map(|b| b.value).fold(0.0, f64::max);
    let note_w = items
        .iter()
        .map(|b| b.note.chars().count())
        .max()
        .unwrap_or(0)
        * 7;
    let w = LABEL_W * 2 + BAR_W as usize + 8 + note_w;
    let h = items.len() * ROW_H + 4;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg class="bars" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="{}"><title>{}</title>"#,
        esc(title),
        esc(title)
    );
    for (i, b) in items.iter().enumerate() {
        let y = i * ROW_H;
        let (len, fill) = match scale {
            Scale::Heat { full } if full > 0.0 => (
                (b.value / full).clamp(0.0, 1.0) * BAR_W,
                heat(b.value, full),
            ),
            Scale::Heat { .. } => (0.0, heat(0.0, 0.0)),
            Scale::Largest if largest > 0.0 => (b.value / largest * BAR_W, PLAIN.to_owned()),
            Scale::Largest => (0.0, PLAIN.to_owned()),
        };
        let fill = if b.alarm { HOT.to_owned() } else { fill };
        let label: String = b.label.chars().take(32).collect();
        let _ = write!(
            s,
            r##"<text x="0" y="{}" font-size="12" fill="#1d2330">{}</text><rect x="{}" y="{}" width="{len:.1}" height="{}" fill="{}"><title>{}: {}</title></rect><text x="{:.1}" y="{}" font-size="12" fill="#5d6677">{}</text>"##,
            y + 15,
            esc(&label),
            LABEL_W * 2,
            y + 3,
            ROW_H - 6,
            fill,
            esc(&b.label),
            esc(&b.note),
            (LABEL_W * 2) as f64 + len + 6.0,
            y + 15,
            esc(&b.note)
        );
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hot_partition_is_red_and_an_idle_one_pale() {
        assert_eq!(heat(0.0, 100.0), "#eef1f5");
        assert_eq!(heat(100.0, 100.0), "#b42318");
        assert_eq!(heat(500.0, 100.0), "#b42318");
        let svg = heat_map(
            &[
                HeatRow {
                    label: "p0 <hot>".into(),
                    values: &[0.0, 100.0],
                },
                HeatRow {
                    label: "p1".into(),
                    values: &[0.0, 0.0],
                },
            ],
            100.0,
            "the budget, 100 RU/s",
            "RU/s",
        );
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        // Three cells (p1's two idle seconds are one) and the legend's five swatches.
        assert_eq!(svg.matches("<rect").count(), 3 + 5);
        assert!(svg.contains("p1: 0.0 RU per second from 2 to 1 s ago"));
        assert!(svg.contains("p0 &lt;hot&gt;: 100.0 RU per second 1 s ago"));
        assert_eq!(svg.matches("class=\"legend\"").count(), 5);
        assert!(svg.contains("0 → 100 RU/s; full red = the budget, 100 RU/s"));
        // The time axis: two columns, "now" at the right.
        assert!(svg.contains(">now</text>") && svg.contains("seconds ago"));
        assert!(svg.contains("p0 &lt;hot&gt;"));
        assert!(svg.contains(r##"fill="#b42318""##));
    }

    fn two(a: f64, b: f64) -> [Bar; 2] {
        [
            Bar {
                label: "a".into(),
                value: a,
                note: "first".into(),
                alarm: false,
            },
            Bar {
                label: "b".into(),
                value: b,
                note: "second".into(),
                alarm: false,
            },
        ]
    }

    #[test]
    fn sizes_scale_to_the_largest_in_one_colour() {
        let svg = bars(&two(2.0, 1.0), Scale::Largest, "sizes");
        assert!(svg.contains(r#"width="420.0""#) && svg.contains(r#"width="210.0""#));
        assert_eq!(svg.matches(PLAIN).count(), 2);
    }

    #[test]
    fn equal_idle_loads_are_short_and_pale_not_full_and_red() {
        // Two partitions at 0.1 RU/s of a 100 RU/s budget: 0.4 px, pale.
        let svg = bars(&two(0.1, 0.1), Scale::Heat { full: 100.0 }, "load");
        assert!(svg.contains(r#"width="0.4""#), "{svg}");
        assert!(!svg.contains("#b42318"));
        // At the budget: the whole width, red.
        let svg = bars(&two(100.0, 50.0), Scale::Heat { full: 100.0 }, "load");
        assert!(svg.contains(r#"width="420.0""#) && svg.contains("#b42318"));
        assert!(svg.contains(r#"width="210.0""#));
        // A partition that answered 429s is red even when its average is low.
        let mut b = two(5.0, 5.0);
        b[0].alarm = true;
        let svg = bars(&b, Scale::Heat { full: 100.0 }, "load");
        assert_eq!(svg.matches(HOT).count(), 1);
    }
}
