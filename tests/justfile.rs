//! `just --list` shows one meaningful line per recipe: `just` takes a recipe's doc from the
//! comment line right above it (only the last line of a longer comment) or from a `[doc("…")]`
//! attribute. This reads the justfile as `just` does and fails on a recipe without a doc, or one
//! whose comment runs over more than a line without a `[doc]` to stand for it; with `just` on
//! the PATH it also checks what `just --list` prints.

use std::path::Path;
use std::process::Command;

/// Each recipe's name and the line `just --list` would show for it.
fn recipe_docs(justfile: &str) -> Vec<(String, Result<String, String>)> {
    let lines: Vec<&str> = justfile.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let starts_recipe = line.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && line.contains(':')
            && !line.contains(":=")
            && !line.starts_with("set ");
        if !starts_recipe {
            continue;
        }
        let name = line.split([' ', ':']).next().unwrap().to_owned();
        let above = |k: usize| i.checked_sub(k).map(|j| lines[j].trim_end());
        let doc = match above(1) {
            Some(l) if l.starts_with("[doc(") => {
                let text = l
                    .trim_start_matches("[doc(")
                    .trim_end_matches(")]")
                    .trim_matches(|c| c == '"' || c == '\'');
                if text.trim().is_empty() {
                    Err("an empty [doc]".to_owned())
                } else {
                    Ok(text.to_owned())
                }
            }
            Some(l) if l.starts_with('#') => {
                let text = l.trim_start_matches('#').trim();
                if above(2).is_some_and(|l| l.starts_with('#') && l.len() > 1) {
                    Err(format!(
                        "a comment of more than one line: `just --list` would show only {text:?}; \
                         give it a [doc(\"…\")]"
                    ))
                } else if text.len() < 12 {
                    Err(format!("{text:?} says too little"))
                } else {
                    Ok(text.to_owned())
                }
            }
            _ => Err("no comment or [doc] above it".to_owned()),
        };
        out.push((name, doc));
    }
    out
}

#[test]
fn every_recipe_has_one_meaningful_line_in_just_list() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("justfile");
    let justfile = std::fs::read_to_string(&path).unwrap();
    let docs = recipe_docs(&justfile);
    assert!(
        docs.len() >= 10,
        "the justfile's recipes were not found: {docs:?}"
    );
    let bad: Vec<_> = docs
        .iter()
        .filter_map(|(name, doc)| doc.as_ref().err().map(|e| format!("{name}: {e}")))
        .collect();
    assert!(
        bad.is_empty(),
        "recipes `just --list` shows badly:\n{}",
        bad.join("\n")
    );

    // With `just` installed (pip install rust-just), what it prints: each recipe with its doc.
    let Ok(listed) = Command::new("just")
        .arg("--list")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
    else {
        eprintln!("`just` is not on the PATH: its own --list not checked");
        return;
    };
    assert!(listed.status.success(), "just --list failed");
    let listed = String::from_utf8(listed.stdout).unwrap();
    for (name, doc) in &docs {
        let doc = doc.as_ref().unwrap();
        assert!(
            listed.contains(&format!("# {doc}")),
            "just --list does not show {name}'s line {doc:?}:\n{listed}"
        );
    }
}

#[test]
fn a_two_line_comment_is_caught() {
    let docs = recipe_docs("# The first line of two.\n# The second line of two.\nrun:\n    true\n");
    assert!(docs[0].1.is_err(), "{docs:?}");
    let docs = recipe_docs("lint:\n    true\n");
    assert!(docs[0].1.is_err(), "{docs:?}");
    let docs = recipe_docs("# Why.\n[doc(\"What it does, in one line.\")]\nrun:\n    true\n");
    assert_eq!(docs[0].1.as_deref(), Ok("What it does, in one line."));
}
