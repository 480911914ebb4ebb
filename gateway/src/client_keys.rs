//! Client encryption keys (`/dbs/{db}/clientencryptionkeys`): the metadata Always Encrypted
//! clients keep in a database — a data encryption key already wrapped by the client with a key
//! of its own key vault (`wrappedDataEncryptionKey`), the algorithm it encrypts with and how to
//! find the wrapping key (`keyWrapMetadata`). The service stores them and never sees a plain
//! key; neither does the gateway: it keeps what the client sent.
//!
//! Kept in `DATA/gateway-client-encryption-keys.json` by database number (numbers are never
//! given twice, so a database created again under the same name starts with none), written
//! through on every change, as the scripts and autoscale settings are; a deleted database's
//! keys go with it (`forget_deleted`). The client SDKs that use them are the .NET
//! (`Microsoft.Azure.Cosmos.Encryption`), Java (`azure-cosmos-encryption`) and JavaScript ones;
//! azure-cosmos for Python has none.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub const FILE: &str = "gateway-client-encryption-keys.json";

/// One key as stored: the client's settable properties and the system ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredKey {
    /// `encryptionAlgorithm`, `wrappedDataEncryptionKey`, `keyWrapMetadata`, as sent.
    pub properties: Map<String, Value>,
    /// Its own number, for its `_rid` (kept when it is replaced).
    pub number: u64,
    /// Changes with every write (from one counter, never reused): the `_etag`.
    pub version: u64,
    pub ts: u64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Keys {
    /// The last number or version given.
    counter: u64,
    /// By database number, then key id.
    databases: BTreeMap<u32, BTreeMap<String, StoredKey>>,
}

/// Why a write was refused.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("Resource with specified id or name already exists: {0}.")]
    Exists(String),
    #[error("Resource Not Found. No client encryption key '{0}' in this database.")]
    NotFound(String),
    #[error("The client encryption key's etag does not match the request's If-Match.")]
    Stale,
    #[error("saving the client encryption keys: {0}")]
    Io(#[from] std::io::Error),
}

pub struct ClientKeyStore {
    path: PathBuf,
    all: Mutex<Keys>,
}

impl ClientKeyStore {
    pub fn open(engine: &engine::Engine) -> Result<Self, String> {
        let path = engine.path().join(FILE);
        let all = crate::json_file::read_or_default(&path)?;
        let store = ClientKeyStore {
            path,
            all: Mutex::new(all),
        };
        store
            .forget_deleted(engine)
            .map_err(|e| format!("{}: {e}", store.path.display()))?;
        Ok(store)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Keys> {
        self.all.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The keys of database `db` (its number), by id.
    pub fn list(&self, db: u32) -> Vec<(String, StoredKey)> {
        let all = self.lock();
        all.databases
            .get(&db)
            .map(|keys| keys.iter().map(|(id, k)| (id.clone(), k.clone())).collect())
            .unwrap_or_default()
    }

    pub fn read(&self, db: u32, id: &str) -> Option<StoredKey> {
        self.lock().databases.get(&db)?.get(id).cloned()
    }

    /// Creates key `id` (an existing one is refused, as the service answers 409).
    pub fn create(
        &self,
        db: u32,
        id: &str,
        properties: Map<String, Value>,
    ) -> Result<StoredKey, KeyError> {
        let mut all = self.lock();
        if all.databases.get(&db).is_some_and(|k| k.contains_key(id)) {
            return Err(KeyError::Exists(id.to_owned()));
        }
        all.counter += 1;
        let key = StoredKey {
            properties,
            number: all.counter,
            version: all.counter,
            ts: now(),
        };
        all.databases
            .entry(db)
            .or_default()
            .insert(id.to_owned(), key.clone());
        self.save(&all)?;
        Ok(key)
    }

    /// Replaces key `id`'s properties (the SDKs rewrap a key this way, with `If-Match`).
    pub fn replace(
        &self,
        db: u32,
        id: &str,
        if_match: Option<&str>,
        properties: Map<String, Value>,
    ) -> Result<StoredKey, KeyError> {
        let mut all = self.lock();
        all.counter += 1;
        let version = all.counter;
        let key = all
            .databases
            .get_mut(&db)
            .and_then(|k| k.get_mut(id))
            .ok_or_else(|| KeyError::NotFound(id.to_owned()))?;
        if if_match.is_some_and(|m| m != "*" && m != etag(key.version)) {
            return Err(KeyError::Stale);
        }
        key.properties = properties;
        key.version = version;
        key.ts = now();
        let key = key.clone();
        self.save(&all)?;
        Ok(key)
    }

    /// Drops the keys of databases that no longer exist, rewriting the file only when some went.
    pub fn forget_deleted(&self, engine: &engine::Engine) -> std::io::Result<()> {
        let live: std::collections::BTreeSet<u32> =
            engine.databases().iter().map(|d| d.number()).collect();
        let mut all = self.lock();
        let before = all.databases.len();
        all.databases.retain(|db, _| live.contains(db));
        if all.databases.len() == before {
            return Ok(());
        }
        self.save(&all)
    }

    fn save(&self, all: &Keys) -> std::io::Result<()> {
        crate::json_file::write_atomically(&self.path, all)
    }
}

/// After a DELETE answered `segments` (names): a deleted database's keys go with it. The delete
/// has happened; a file that cannot be rewritten is logged (no database is given that number
/// again) and the keys dropped at the next open.
pub(crate) fn after_delete(store: &ClientKeyStore, engine: &engine::Engine, segments: &[&str]) {
    if !matches!(segments, ["dbs", _]) {
        return;
    }
    if let Err(e) = store.forget_deleted(engine) {
        tracing::warn!(target: "gateway", "{FILE}: a deleted database's keys stay: {e}");
    }
}

pub fn etag(version: u64) -> String {
    format!("\"{version:016x}\"")
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
