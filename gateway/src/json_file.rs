//! The gateway's own small JSON files beside the engine's data (stored script bodies, autoscale
//! settings, client encryption keys): read whole (absent = empty), written so a crash leaves the old file or the new one, never half of one: a
//! temporary file, synced, renamed over the old one, and the directory synced so the rename
//! itself survives a power cut.

use std::io::Write;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// The file at `path` as a `T`; `T::default()` when there is no file yet. Any other failure,
/// unreadable or not valid JSON of that shape, is an error naming the file: a gateway must not
/// start as if a damaged file were empty.
pub fn read_or_default<T: DeserializeOwned + Default>(path: &Path) -> Result<T, String> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(T::default()),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

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

    #[test]
    fn a_missing_file_reads_as_empty_and_a_damaged_one_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let none: Vec<u32> = super::read_or_default(&path).unwrap();
        assert!(none.is_empty());
        std::fs::write(&path, b"[1, 2").unwrap();
        let err = super::read_or_default::<Vec<u32>>(&path).unwrap_err();
        assert!(err.contains("settings.json"), "{err}");
    }
}
