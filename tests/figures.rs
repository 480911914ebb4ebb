//! The README's measured figures come from one place: `docs/FIGURES.md` holds each between
//! `<!-- figure:NAME -->` markers, the README quotes the same blocks, and this test fails when a
//! README block differs from its source, names a figure that has none, or when a figure no longer
//! says what its measurement does (the feed sentence against `blog/ACCESS_PATTERNS.md`'s Q6 row;
//! the idle figures, embedded and through the gateway, are checked by `tests/idle_cost.rs`, which
//! measures them).

use std::collections::BTreeMap;
use std::path::Path;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

/// Every `<!-- figure:NAME -->TEXT<!-- /figure:NAME -->` block of `text`, by name.
fn blocks(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rest = text;
    while let Some(at) = rest.find("<!-- figure:") {
        let after = &rest[at + "<!-- figure:".len()..];
        let name_end = after
            .find(" -->")
            .expect("a figure marker ends with ' -->'");
        let name = &after[..name_end];
        let body = &after[name_end + " -->".len()..];
        let close = format!("<!-- /figure:{name} -->");
        let end = body
            .find(&close)
            .unwrap_or_else(|| panic!("figure {name} is not closed by {close}"));
        assert!(
            out.insert(name.to_owned(), body[..end].to_owned())
                .is_none(),
            "figure {name} twice"
        );
        rest = &body[end + close.len()..];
    }
    out
}

/// A figure as the tables print it: "1 650.89" → 1650.89.
fn number(cell: &str) -> f64 {
    cell.trim()
        .replace(' ', "")
        .parse()
        .unwrap_or_else(|_| panic!("not a number: {cell:?}"))
}

#[test]
fn the_readmes_figures_are_the_figures_files() {
    let source = blocks(&read("docs/FIGURES.md"));
    let readme = blocks(&read("README.md"));
    assert!(
        source.contains_key("idle") && source.contains_key("feed"),
        "{source:?}"
    );
    for (name, text) in &readme {
        let from = source
            .get(name)
            .unwrap_or_else(|| panic!("README quotes figure {name}, which docs/FIGURES.md lacks"));
        assert_eq!(
            text, from,
            "README's figure {name} differs from docs/FIGURES.md"
        );
    }
    for name in source.keys() {
        assert!(
            readme.contains_key(name),
            "README does not quote figure {name}"
        );
    }
}

#[test]
fn the_feed_figure_is_the_access_patterns_q6_row() {
    let table = read("blog/ACCESS_PATTERNS.md");
    let cells = |l: &str| -> Vec<String> {
        l.trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_owned())
            .collect()
    };
    // The models table's row: | request | V1 | article | V2 | article | V3 | article |
    let row = table
        .lines()
        .find(|l| l.starts_with("| [Q6] feed |") && cells(l).len() == 7)
        .expect("ACCESS_PATTERNS.md's models table has a [Q6] feed row");
    let [_, v1, a1, v2, a2, v3, a3] = &cells(row)[..] else {
        unreachable!()
    };
    let said = blocks(&read("docs/FIGURES.md"))["feed"].clone();
    let expected =
        format!("the feed is {v1} RU on V1, {v2} on V2 and {v3} on V3 (article: {a1}, {a2}, {a3})");
    assert_eq!(said, expected, "docs/FIGURES.md's feed against {row}");
    // The model's point: V3 is the cheapest, V1 the dearest.
    assert!(number(v3) < number(v2) && number(v2) < number(v1), "{row}");
}

#[test]
fn a_differing_block_is_seen() {
    let a = blocks("x <!-- figure:f -->1 RU<!-- /figure:f --> y");
    let b = blocks("<!-- figure:f -->2 RU<!-- /figure:f -->");
    assert_eq!(a["f"], "1 RU");
    assert_ne!(a, b);
}
