//! Stored procedures and triggers: server-side logic that runs as one ACID transaction inside one
//! logical partition, on the writer thread, in a nested LMDB transaction.
//!
//! They are written in Rust (closures or types implementing the traits) against a
//! [`ScriptContext`] shaped like Cosmos DB's `getContext().getCollection()`, so the JavaScript of
//! the seeds translates line for line. Everything a script does commits together or not at all.
//! A script is bounded: every context call checks its time and RU budget, and one that overruns
//! it is stopped and rolled back with a 408, as Cosmos DB does.

pub mod context;
pub mod js;
pub(crate) mod run;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::RwLock;
use serde_json::Value;

use crate::error::Result;
pub use context::ScriptContext;

/// A stored procedure: `execute(context, args) -> response body`.
pub trait StoredProcedure: Send + Sync + 'static {
    fn execute(&self, ctx: &mut ScriptContext<'_, '_, '_>, args: &[Value]) -> Result<Value>;

    /// The script's JavaScript text, when it has one (tools show it).
    fn source(&self) -> Option<&str> {
        None
    }
}

impl<F> StoredProcedure for F
where
    F: Fn(&mut ScriptContext<'_, '_, '_>, &[Value]) -> Result<Value> + Send + Sync + 'static,
{
    fn execute(&self, ctx: &mut ScriptContext<'_, '_, '_>, args: &[Value]) -> Result<Value> {
        self(ctx, args)
    }
}

/// Which writes a trigger applies to (Cosmos DB's `triggerOperation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriggerOperation {
    All,
    Create,
    Replace,
    Upsert,
    Delete,
}

/// A pre-trigger sees (and may change) the item about to be written; its error cancels the write.
/// The [`PreTriggerCall`] carries its budget and is charged what its own code used.
pub type PreTriggerFn = dyn Fn(&mut Value, &mut PreTriggerCall) -> Result<()> + Send + Sync;

/// One write's pre-triggers: the budget they run under and the meter their JavaScript's CPU is
/// charged to (a pre-trigger has no collection, so no [`ScriptContext`] to carry it).
pub struct PreTriggerCall {
    pub(crate) budget: ScriptBudget,
    pub(crate) started: std::time::Instant,
    pub(crate) meter: crate::ru::Meter,
    /// The database of the container written (JavaScript realms are kept per database).
    pub(crate) database: String,
}
/// A post-trigger runs after the write, in the same transaction, with the item as written; its
/// error rolls the write back.
pub type PostTriggerFn = dyn Fn(&mut ScriptContext<'_, '_, '_>, &Value) -> Result<()> + Send + Sync;

#[derive(Clone)]
pub enum Trigger {
    Pre {
        operation: TriggerOperation,
        body: Arc<PreTriggerFn>,
        /// Its JavaScript text, for a JavaScript trigger.
        source: Option<Arc<str>>,
    },
    Post {
        operation: TriggerOperation,
        body: Arc<PostTriggerFn>,
        source: Option<Arc<str>>,
    },
}

impl Trigger {
    pub fn pre(
        operation: TriggerOperation,
        f: impl Fn(&mut Value) -> Result<()> + Send + Sync + 'static,
    ) -> Self {
        Trigger::Pre {
            operation,
            body: Arc::new(move |item: &mut Value, _: &mut PreTriggerCall| f(item)),
            source: None,
        }
    }

    pub fn post(
        operation: TriggerOperation,
        f: impl Fn(&mut ScriptContext<'_, '_, '_>, &Value) -> Result<()> + Send + Sync + 'static,
    ) -> Self {
        Trigger::Post {
            operation,
            body: Arc::new(f),
            source: None,
        }
    }

    /// The JavaScript text of a JavaScript trigger.
    pub fn source(&self) -> Option<&str> {
        match self {
            Trigger::Pre { source, .. } | Trigger::Post { source, .. } => source.as_deref(),
        }
    }

    pub(crate) fn with_source(mut self, text: Arc<str>) -> Self {
        match &mut self {
            Trigger::Pre { source, .. } | Trigger::Post { source, .. } => *source = Some(text),
        }
        self
    }

    pub(crate) fn operation(&self) -> TriggerOperation {
        match self {
            Trigger::Pre { operation, .. } | Trigger::Post { operation, .. } => *operation,
        }
    }
}

/// Limits of one script execution.
#[derive(Debug, Clone, Copy)]
pub struct ScriptBudget {
    /// Cosmos DB stops a stored procedure after 5 seconds.
    pub max_duration: Duration,
    /// RU a script may spend before it is stopped.
    pub max_request_units: f64,
    /// Time a JavaScript procedure or trigger may spend in its own code (the interpreter, not
    /// the operations it asks for) while it holds the engine's single writer: every write of
    /// every container waits on it. Cosmos DB runs a partition's scripts on that partition's
    /// replicas, so its 5 s delay no one else; here it would delay everyone (DESIGN.md).
    pub max_javascript: Duration,
}

impl Default for ScriptBudget {
    fn default() -> Self {
        ScriptBudget {
            max_duration: Duration::from_secs(5),
            max_request_units: 10_000.0,
            max_javascript: Duration::from_millis(50),
        }
    }
}

/// The scripts registered on one container. Rust code cannot be stored in the data files, so
/// apps register their scripts at startup (like deploying them with the SDK).
#[derive(Default)]
pub struct Scripts {
    pub(crate) procedures: HashMap<String, Arc<dyn StoredProcedure>>,
    pub(crate) triggers: HashMap<String, Trigger>,
    /// JavaScript user-defined functions, shared with the query threads while a page runs.
    pub(crate) functions: js::udf::Functions,
}

impl Scripts {
    /// The scripts registered on `container`: kept with it by the catalog (`catalog::Attached`),
    /// which, below this layer, does not know their type.
    pub(crate) fn of(container: &crate::catalog::ContainerShared) -> Arc<RwLock<Scripts>> {
        container.attached.get()
    }
}

/// The triggers one write asked for, resolved by name.
#[derive(Clone, Default)]
pub struct RequestedTriggers {
    pub pre: Vec<(String, Arc<PreTriggerFn>)>,
    pub post: Vec<(String, Arc<PostTriggerFn>)>,
}

impl RequestedTriggers {
    pub fn is_empty(&self) -> bool {
        self.pre.is_empty() && self.post.is_empty()
    }
}

impl std::fmt::Debug for RequestedTriggers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pre: Vec<_> = self.pre.iter().map(|p| &p.0).collect();
        let post: Vec<_> = self.post.iter().map(|p| &p.0).collect();
        f.debug_struct("RequestedTriggers")
            .field("pre", &pre)
            .field("post", &post)
            .finish()
    }
}
