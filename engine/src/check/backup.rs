//! `engine backup`: LMDB's compacting copy, verified as `engine check` verifies a store before
//! it takes its name (issue 34). It lives with the checks it depends on.

use std::path::Path;

use crate::client::engine::Engine;
use crate::client::options::EngineOptions;
use crate::error::{Error, Result};

impl Engine {
    /// Writes a consistent, compacted copy of the store to `out/data.mdb` (LMDB's own copy, in
    /// one read transaction: safe while this or another process writes). Returns its size.
    /// Restore by stopping the app and putting the copy in place of the data directory's
    /// `data.mdb`. The copy is checked as `engine check` checks a store before it takes its name:
    /// a copy holding damage is removed and the backup fails (corrupt data, 500).
    pub fn backup(&self, out: &Path) -> Result<u64> {
        let io = |e: std::io::Error| Error::Storage(heed::Error::Io(e));
        std::fs::create_dir_all(out).map_err(|e| {
            Error::bad(
                "OUT",
                format!(
                    "{}: {e} (give a directory to write data.mdb into)",
                    out.display()
                ),
            )
        })?;
        let target = out.join("data.mdb");
        if target.exists() {
            return Err(Error::bad(
                "OUT",
                format!(
                    "{} exists: back up into an empty directory",
                    target.display()
                ),
            ));
        }
        // Written under another name and renamed when complete and verified: a failed copy never
        // leaves a file that looks like a backup (nor one that blocks the next attempt).
        let staging = Self::backup_staging(out);
        let partial = staging.join("data.mdb");
        let _ = std::fs::remove_file(&partial);
        std::fs::create_dir_all(&staging).map_err(io)?;
        let copied = (|| -> Result<u64> {
            let file = self
                .inner
                .store
                .env
                .copy_to_path(&partial, heed::CompactionOption::Enabled)?;
            file.sync_all().map_err(io)?;
            // The copy keeps the source's permissions (a 0600 store stays 0600).
            let source = std::fs::metadata(self.path().join("data.mdb")).map_err(io)?;
            std::fs::set_permissions(&partial, source.permissions()).map_err(io)?;
            let bytes = file.metadata().map_err(io)?.len();
            drop(file);
            self.verify_copy(&staging)?;
            Ok(bytes)
        })();
        let result = match copied {
            Ok(bytes) => std::fs::rename(&partial, &target)
                .map_err(io)
                .map(|()| bytes),
            Err(e) => {
                let _ = std::fs::remove_file(&partial);
                Err(e)
            }
        };
        let _ = std::fs::remove_dir(&staging);
        result
    }

    /// Where [`Engine::backup`] writes its copy before it is verified: `out/.backup-partial/data.mdb`
    /// (a directory of its own, so the copy can be opened as an engine).
    pub fn backup_staging(out: &Path) -> std::path::PathBuf {
        out.join(".backup-partial")
    }

    /// A backup is verified as `engine check` verifies a store (issue 34): LMDB's compacting copy
    /// walks the B-trees as they are, so a damaged source gives a copy that is a sound file holding
    /// the damage (items missing against the counters, entries pointing nowhere). The copy is
    /// opened read-only without a lock (nobody else has it yet) and checked in full.
    fn verify_copy(&self, staging: &Path) -> Result<()> {
        let copy = Engine::open(
            staging,
            EngineOptions {
                storage: crate::storage::StorageOptions {
                    read_only: true,
                    no_lock: true,
                    ..Default::default()
                },
                ..Default::default()
            },
        )?;
        let reports = copy.check()?;
        drop(copy);
        match super::report::failed(&reports) {
            None => Ok(()),
            Some(Error::Corrupt(why)) => Err(Error::Corrupt(format!(
                "the backup copied damage ({why}); the data file {} is damaged: run `engine check` on it, restore it from an earlier backup",
                self.path().join("data.mdb").display()
            ))),
            Some(other) => Err(other),
        }
    }
}
