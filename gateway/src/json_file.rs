//! The gateway's own small JSON files beside the engine's data (stored script bodies, autoscale
//! settings), written so a crash leaves the old file or the new one, never half of one: a
//! temporary file, synced, renamed over the old one, and the directory synced so the rename
//! itself survives a power cut.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

/// Replaces the file at `path` with `value` as JSON, atomically and durably.
pub fn write_atomically(path: &Path, value: &impl Serialize) -> std::io::Result<()> {
    let tmp = path.with_extension("json.partial");
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(&serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?)?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_file_is_replaced_whole_and_no_partial_file_stays() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        super::write_atomically(&path, &serde_json::json!({"a": 1})).unwrap();
        super::write_atomically(&path, &serde_json::json!({"a": 2})).unwrap();
        let back: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(back, serde_json::json!({"a": 2}));
        assert!(!path.with_extension("json.partial").exists());
    }
}
