//! The engine's public surface is its client API (`engine::{Engine, ContainerClient, …}`); its
//! modules are private, so the compiler refuses `engine::<module>::` paths elsewhere. The one
//! exception, `engine::testing` (the query language without storage, hidden from the docs), is
//! for the engine's own tests and fuzz targets: no other crate may build on it.

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
