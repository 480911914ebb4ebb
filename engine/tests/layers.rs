//! The engine's modules are layered as DESIGN.md's `layers` block says: a module names (as
//! `crate::<module>`) only its own layer and those below. A new module must be given a layer.
//! Read as text (imports and paths), as a reviewer would, not through the compiler.
//!
//! The block once listed upward uses as `known` lines, to be cut one by one (issue 38); the last
//! three (`catalog -> scripts`, `catalog -> sql`, `writer -> scripts`) are cut, so the list is
//! gone and a `known` line is refused: an upward use cannot come back by being listed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each module's layer number.
fn layers(design: &str) -> BTreeMap<String, usize> {
    let block = design
        .split("```layers\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("DESIGN.md has a ```layers block");
    let mut layer = BTreeMap::new();
    for line in block.lines().map(str::trim).filter(|l| !l.is_empty()) {
        assert!(
            !line.starts_with("known "),
            "DESIGN.md allows an upward use ({line}): none is allowed any more; cut it (a trait \
             at the lower layer, a value the lower layer keeps as Any) or move the module"
        );
        let mut words = line.split_whitespace();
        let n: usize = words.next().unwrap().parse().expect("a layer number");
        for module in words {
            layer.insert(module.to_string(), n);
        }
    }
    layer
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without its comments and its `#[cfg(test)]` module.
fn code(src: &str) -> String {
    let mut out = String::new();
    let mut lines = src.lines().peekable();
    while let Some(line) = lines.next() {
        if line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod "))
        {
            break;
        }
        out.push_str(line.split("//").next().unwrap_or_default());
        out.push('\n');
    }
    out
}

/// `crate::X` paths: the module X, or, for a name lib.rs re-exports, the module it comes from.
fn modules_named(
    code: &str,
    modules: &BTreeMap<String, usize>,
    reexports: &BTreeMap<String, String>,
) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for piece in code.split("crate::").skip(1) {
        let name: String = piece
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let module = match modules.contains_key(&name) {
            true => name,
            false => reexports.get(&name).cloned().unwrap_or(name),
        };
        if !module.is_empty() {
            found.insert(module);
        }
    }
    found
}

/// Each name lib.rs re-exports (`pub use client::engine::Engine;`) → its module (`client`).
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    for statement in lib.split(';') {
        let Some(tree) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let module = tree.split("::").next().unwrap().trim().to_string();
        for name in tree.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if !name.is_empty() && name != module && name != "as" {
                map.entry(name.to_string()).or_insert(module.clone());
            }
        }
    }
    map
}

#[test]
fn every_module_uses_only_its_layer_and_those_below() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let layer = layers(&std::fs::read_to_string(root.join("DESIGN.md")).unwrap());
    let src = root.join("src");
    let reexports = reexports(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut files = Vec::new();
    rust_files(&src, &mut files);

    let mut upward = BTreeMap::<(String, String), BTreeSet<String>>::new();
    let mut unplaced = BTreeSet::new();
    for file in &files {
        let relative = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .to_string();
        if relative == "lib.rs" {
            continue;
        }
        let module = relative
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_string();
        let Some(&own) = layer.get(&module) else {
            unplaced.insert(module);
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        for used in modules_named(&code(&text), &layer, &reexports) {
            if used == module {
                continue;
            }
            match layer.get(&used) {
                Some(&theirs) if theirs > own => {
                    upward
                        .entry((module.clone(), used))
                        .or_default()
                        .insert(relative.clone());
                }
                _ => {}
            }
        }
    }
    assert!(files.len() > 80, "engine/src was walked: {}", files.len());
    assert!(
        unplaced.is_empty(),
        "modules with no layer in DESIGN.md: {unplaced:?}"
    );
    assert!(
        upward.is_empty(),
        "imports against DESIGN.md's layers (module -> module it uses: files): {upward:?}"
    );
}
