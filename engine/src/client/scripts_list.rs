//! What scripts a container has (names and kinds), for tools that list them.

use super::scripts::ScriptsClient;
use crate::error::Result;
use crate::scripts::{Scripts, Trigger, TriggerOperation};

/// A registered trigger: its name, whether it runs before or after the write, and on what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TriggerInfo {
    pub id: String,
    /// `"pre"` or `"post"`.
    pub kind: &'static str,
    pub operation: TriggerOperation,
}

/// The container's stored procedures and triggers, sorted by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScriptList {
    pub stored_procedures: Vec<String>,
    pub triggers: Vec<TriggerInfo>,
    pub user_defined_functions: Vec<String>,
    /// The JavaScript text of each script that has one, by id (Rust closures have none).
    pub sources: std::collections::BTreeMap<String, String>,
}

impl ScriptList {
    /// The JavaScript text of script `id`, if it is JavaScript.
    pub fn source(&self, id: &str) -> Option<&str> {
        self.sources.get(id).map(String::as_str)
    }
}

impl ScriptsClient {
    pub fn list(&self) -> Result<ScriptList> {
        let shared = self.container.shared()?;
        let registered = Scripts::of(&shared);
        let scripts = registered.read();
        let mut stored_procedures: Vec<String> = scripts.procedures.keys().cloned().collect();
        stored_procedures.sort();
        let mut triggers: Vec<TriggerInfo> = scripts
            .triggers
            .iter()
            .map(|(id, t)| TriggerInfo {
                id: id.clone(),
                kind: match t {
                    Trigger::Pre { .. } => "pre",
                    Trigger::Post { .. } => "post",
                },
                operation: t.operation(),
            })
            .collect();
        triggers.sort_by(|a, b| a.id.cmp(&b.id));
        let sources: std::collections::BTreeMap<String, String> = scripts
            .procedures
            .iter()
            .filter_map(|(id, p)| Some((id.clone(), p.source()?.to_owned())))
            .chain(
                scripts
                    .triggers
                    .iter()
                    .filter_map(|(id, t)| Some((id.clone(), t.source()?.to_owned()))),
            )
            .collect();
        let mut user_defined_functions: Vec<String> = scripts.functions.keys().cloned().collect();
        user_defined_functions.sort();
        let mut sources: std::collections::BTreeMap<String, String> = sources;
        for (id, f) in scripts.functions.iter() {
            sources.insert(id.clone(), f.body().to_owned());
        }
        Ok(ScriptList {
            stored_procedures,
            triggers,
            user_defined_functions,
            sources,
        })
    }
}

impl ScriptsClient {
    /// Unregisters a stored procedure (404 when there is none of that name): for tools that
    /// manage scripts at run time, such as the gateway's REST API.
    pub fn delete_stored_procedure(&self, id: &str) -> Result<()> {
        let shared = self.container.shared()?;
        let removed = Scripts::of(&shared).write().procedures.remove(id);
        removed.map(|_| ()).ok_or_else(|| crate::Error::NotFound {
            what: format!("stored procedure '{id}'"),
        })
    }

    /// Unregisters a trigger (404 when there is none of that name).
    pub fn delete_trigger(&self, id: &str) -> Result<()> {
        let shared = self.container.shared()?;
        let removed = Scripts::of(&shared).write().triggers.remove(id);
        removed.map(|_| ()).ok_or_else(|| crate::Error::NotFound {
            what: format!("trigger '{id}'"),
        })
    }

    /// Unregisters a user-defined function (404 when there is none of that name).
    pub fn delete_user_defined_function(&self, id: &str) -> Result<()> {
        let shared = self.container.shared()?;
        let registered = Scripts::of(&shared);
        let mut scripts = registered.write();
        if !scripts.functions.contains_key(id) {
            return Err(crate::Error::NotFound {
                what: format!("user-defined function '{id}'"),
            });
        }
        // Copied on write: a query page running now keeps the set it started with.
        let mut functions = (*scripts.functions).clone();
        functions.remove(id);
        scripts.functions = std::sync::Arc::new(functions);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use crate::scripts::{Trigger, TriggerOperation};
    use crate::{ContainerProperties, Engine, EngineOptions};

    fn nothing(_: &mut crate::ScriptContext<'_, '_, '_>, _: &[Value]) -> crate::Result<Value> {
        Ok(Value::Null)
    }

    #[tokio::test]
    async fn lists_procedures_and_triggers_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
        let db = engine.create_database("d").await.unwrap();
        let c = db
            .create_container(ContainerProperties::new("c", "/pk"))
            .await
            .unwrap();
        assert!(c.scripts().list().unwrap().stored_procedures.is_empty());
        let s = c.scripts();
        s.upsert_stored_procedure("zeta", nothing).unwrap();
        s.upsert_stored_procedure("alpha", nothing).unwrap();
        s.upsert_trigger("stamp", Trigger::pre(TriggerOperation::Create, |_| Ok(())))
            .unwrap();
        let list = s.list().unwrap();
        assert_eq!(list.stored_procedures, ["alpha", "zeta"]);
        assert_eq!(list.triggers.len(), 1);
        assert_eq!(list.triggers[0].kind, "pre");
        assert_eq!(list.triggers[0].operation, TriggerOperation::Create);
    }
}
