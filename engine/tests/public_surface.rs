//! The engine's public surface is its client API (`engine::{Engine, ContainerClient, …}`); its
//! modules are private, so the compiler refuses `engine::<module>::` paths elsewhere. The one
//! exception, `engine::testing` (the query language without storage, hidden from the docs), is
//! for the engine's own tests and fuzz targets: no other crate may build on it.
//!
//! The root's exports are a checked-in list (`public_surface.txt`), so a new one is a reviewed
//! change; and the apps and sitekit reach the engine only through `cosmos` (their Cargo.toml).

use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name == "target" || name.to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_crate_but_the_engine_uses_its_hidden_testing_module() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let engine = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(workspace, &mut files);
    assert!(
        files.len() > 100,
        "the workspace was walked: {}",
        files.len()
    );
    let offenders: Vec<_> = files
        .iter()
        .filter(|f| !f.starts_with(engine))
        .filter(|f| {
            std::fs::read_to_string(f)
                .unwrap_or_default()
                .contains("engine::testing")
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "engine::testing used in {offenders:?}"
    );
}

/// The names `engine/src/lib.rs` exports, one a line: `pub use` leaves by the name they are
/// exported as, `mod m` for a public module (whose own `pub use`s follow as `m::name`), `fn f`,
/// `struct S`, … for items written in lib.rs itself. A line parser rather than rustdoc's JSON
/// (nightly only): lib.rs holds only declarations, and a form it does not know fails the test.
fn exported_names(src: &str, prefix: &str, out: &mut Vec<String>) {
    for statement in statements(src) {
        let statement = without_attributes(&statement);
        let Some(rest) = statement.strip_prefix("pub ") else {
            continue;
        };
        let rest = rest.trim();
        if let Some(tree) = rest.strip_prefix("use ") {
            use_leaves(tree.trim_end_matches(';').trim(), prefix, out);
        } else if let Some(module) = rest.strip_prefix("mod ") {
            let name: String = module
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.push(format!("mod {prefix}{name}"));
            if let (Some(open), Some(close)) = (module.find('{'), module.rfind('}')) {
                exported_names(&module[open + 1..close], &format!("{prefix}{name}::"), out);
            }
        } else {
            let mut words = rest.split(|c: char| !(c.is_alphanumeric() || c == '_'));
            let kind = words.next().unwrap_or_default();
            let known = ["fn", "struct", "enum", "trait", "type", "const", "static"];
            assert!(
                known.contains(&kind),
                "a `pub` form the snapshot does not know: {rest}"
            );
            let name = words.find(|w| !w.is_empty()).unwrap_or_default();
            out.push(format!("{kind} {prefix}{name}"));
        }
    }
}

/// Top-level statements: up to a `;` or the `}` closing a block, outside any braces.
fn statements(src: &str) -> Vec<String> {
    let code: String = src
        .lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    let (mut out, mut current, mut depth) = (Vec::new(), String::new(), 0usize);
    for c in code.chars() {
        current.push(c);
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if depth == 0 && (c == ';' || c == '}') {
            out.push(current.split_whitespace().collect::<Vec<_>>().join(" "));
            current.clear();
        }
    }
    out
}

fn without_attributes(statement: &str) -> &str {
    let mut s = statement.trim();
    while s.starts_with('#') {
        let mut depth = 0;
        let end = s
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '[' => depth += 1,
                    ']' => depth -= 1,
                    _ => return false,
                }
                depth == 0
            })
            .map(|(i, _)| i + 1)
            .expect("an attribute closes");
        s = s[end..].trim();
    }
    s
}

/// `a::{B, c::D as E}` → `B`, `E`: the names a `use` tree exports.
fn use_leaves(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let inner = &tree[open + 1..tree.rfind('}').expect("a use group closes")];
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    use_leaves(&inner[start..i], prefix, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        use_leaves(&inner[start..], prefix, out);
    } else if !tree.is_empty() {
        let name = match tree.split_once(" as ") {
            Some((_, alias)) => alias.trim(),
            None if tree.ends_with('*') => tree,
            None => tree.rsplit("::").next().unwrap_or(tree),
        };
        out.push(format!("{prefix}{name}"));
    }
}

#[test]
fn the_engines_exports_are_the_reviewed_list() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = std::fs::read_to_string(manifest.join("src/lib.rs")).unwrap();
    let mut names = Vec::new();
    exported_names(&lib, "", &mut names);
    names.sort();
    assert!(names.len() > 50, "lib.rs was read: {names:?}");
    assert!(names.contains(&"Engine".to_string()) && names.contains(&"check_failed".to_string()));

    let listed_path = manifest.join("tests/public_surface.txt");
    let listed_text = std::fs::read_to_string(&listed_path).unwrap_or_default();
    let listed: Vec<String> = listed_text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    if names != listed && std::env::var_os("UPDATE_PUBLIC_SURFACE").is_some() {
        let header: String = listed_text
            .lines()
            .take_while(|l| l.starts_with('#'))
            .fold(String::new(), |h, l| h + l + "\n");
        std::fs::write(&listed_path, header + &names.join("\n") + "\n").unwrap();
        return;
    }
    let added: Vec<_> = names.iter().filter(|n| !listed.contains(n)).collect();
    let removed: Vec<_> = listed.iter().filter(|n| !names.contains(n)).collect();
    assert!(
        added.is_empty() && removed.is_empty(),
        "engine/src/lib.rs exports changed: added {added:?}, removed {removed:?}. A new export is \
         API the other crates will build on: review it, then update tests/public_surface.txt \
         (UPDATE_PUBLIC_SURFACE=1 cargo test -p engine --test public_surface)"
    );
}

/// The layering Cargo holds (issue 38): the apps and sitekit reach the engine only through
/// `cosmos` (which records every call's RU); the engine is at most a dev-dependency of theirs,
/// or sitekit's behind its `testing` feature (the test helpers open one).
#[test]
fn the_apps_and_sitekit_do_not_depend_on_the_engine() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    for krate in ["webstore", "blog", "sitekit"] {
        let manifest = std::fs::read_to_string(workspace.join(krate).join("Cargo.toml")).unwrap();
        let mut section = "";
        let mut deps = 0;
        for line in manifest.lines().map(str::trim) {
            if line.starts_with('[') {
                section = line;
                continue;
            }
            if section != "[dependencies]" || line.starts_with('#') || line.is_empty() {
                continue;
            }
            deps += 1;
            let name = line.split(['=', '.', ' ']).next().unwrap_or_default();
            assert!(
                name != "engine" || line.contains("optional = true"),
                "{krate}/Cargo.toml lists the engine as a normal dependency: {line}"
            );
        }
        assert!(deps > 3, "{krate}/Cargo.toml's [dependencies] was read");
    }
}
