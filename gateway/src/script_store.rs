//! JavaScript stored procedures, triggers and user-defined functions created over the REST API. The engine keeps the
//! scripts registered with it in memory (apps register theirs at every start); Cosmos DB keeps
//! a created script until it is deleted. So the gateway writes the ones created through it to
//! `DATA/gateway-scripts.json` and registers them again when it starts. They are keyed by the
//! container's numeric id, so a container deleted and created again under the same name does
//! not inherit its predecessor's scripts.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use engine::{ContainerClient, Engine, JavaScript, TriggerOperation};
use serde::{Deserialize, Serialize};

pub const FILE: &str = "gateway-scripts.json";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredScript {
    /// The container's numeric id (`ContainerDef::rid`).
    pub container: u32,
    /// `sprocs`, `triggers` or `udfs`.
    pub kind: String,
    pub id: String,
    pub body: String,
    /// Triggers: `Pre` or `Post`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger_type: Option<String>,
    /// Triggers: `All`, `Create`, `Replace`, `Delete` or `Upsert`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger_operation: Option<String>,
    pub ts: u64,
}

/// A trigger operation in any case: the service takes `All` and the Python SDK's constant `all`.
pub fn trigger_operation(s: &str) -> Option<TriggerOperation> {
    Some(match s.to_ascii_lowercase().as_str() {
        "all" => TriggerOperation::All,
        "create" => TriggerOperation::Create,
        "replace" => TriggerOperation::Replace,
        "delete" => TriggerOperation::Delete,
        "upsert" => TriggerOperation::Upsert,
        _ => return None,
    })
}

/// Registers `s` with the engine (compiling it here: a syntax error is the engine's 400).
/// Blocking, bounded (the engine's check stops a text that runs): for the start only.
pub fn register(client: &ContainerClient, s: &StoredScript) -> engine::Result<()> {
    register_compiled(client, s, JavaScript::new(&s.body)?)
}

/// Registers `s`, compiled as `js`.
pub fn register_compiled(
    client: &ContainerClient,
    s: &StoredScript,
    js: JavaScript,
) -> engine::Result<()> {
    match s.kind.as_str() {
        "sprocs" => client.scripts().upsert_stored_procedure(&s.id, js),
        "udfs" => client.scripts().upsert_user_defined_function(&s.id, js),
        _ => {
            let op = s
                .trigger_operation
                .as_deref()
                .and_then(trigger_operation)
                .ok_or_else(|| {
                    engine::Error::bad(
                        "triggerOperation",
                        "triggerOperation must be All, Create, Replace, Delete or Upsert",
                    )
                })?;
            // In any case, as the operation: the Python SDK's constants are `pre` and `post`.
            let kind = s.trigger_type.as_deref().map(str::to_ascii_lowercase);
            let trigger = match kind.as_deref() {
                Some("pre") => js.pre_trigger(op),
                Some("post") => js.post_trigger(op),
                _ => {
                    return Err(engine::Error::bad(
                        "triggerType",
                        "triggerType must be Pre or Post",
                    ))
                }
            };
            client.scripts().upsert_trigger(&s.id, trigger)
        }
    }
}

pub struct ScriptStore {
    path: PathBuf,
    scripts: Mutex<Vec<StoredScript>>,
}

impl ScriptStore {
    /// Loads the file and registers every script whose container still exists.
    pub fn open(engine: &Engine) -> Result<Self, String> {
        let path = engine.path().join(FILE);
        let saved: Vec<StoredScript> = crate::json_file::read_or_default(&path)?;
        let containers: Vec<_> = engine
            .databases()
            .iter()
            .flat_map(|d| engine.database(&d.id).containers())
            .collect();
        let mut kept = Vec::new();
        for s in saved {
            let Some(def) = containers.iter().find(|c| c.rid() == s.container) else {
                continue;
            };
            let client = engine.database(def.database()).container(def.id());
            match register(&client, &s) {
                Ok(()) => kept.push(s),
                Err(e) => {
                    tracing::warn!(target: "gateway", "script {}/{} not registered: {e}", def.id(), s.id)
                }
            }
        }
        let store = ScriptStore {
            path,
            scripts: Mutex::new(kept),
        };
        Ok(store)
    }

    pub fn get(&self, container: u32, kind: &str, id: &str) -> Option<StoredScript> {
        self.lock()
            .iter()
            .find(|s| s.container == container && s.kind == kind && s.id == id)
            .cloned()
    }

    /// Adds or replaces a script, durably (the file is replaced whole, after an fsync).
    pub fn put(&self, script: StoredScript) -> std::io::Result<()> {
        let mut all = self.lock();
        all.retain(|s| {
            !(s.container == script.container && s.kind == script.kind && s.id == script.id)
        });
        all.push(script);
        self.save(&all)
    }

    pub fn remove(&self, container: u32, kind: &str, id: &str) -> std::io::Result<()> {
        let mut all = self.lock();
        all.retain(|s| !(s.container == container && s.kind == kind && s.id == id));
        self.save(&all)
    }

    fn lock(&self) -> MutexGuard<'_, Vec<StoredScript>> {
        self.scripts.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn save(&self, all: &[StoredScript]) -> std::io::Result<()> {
        crate::json_file::write_atomically(&self.path, &all)
    }
}
