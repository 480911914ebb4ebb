//! JavaScript stored procedures, triggers and user-defined functions, run by QuickJS (`rquickjs`)
//! inside the engine's transaction, against the same [`ScriptContext`] the Rust closures use: a
//! JavaScript script is one more implementation of [`StoredProcedure`] / a trigger, so its
//! writes, RU, budget, partition confinement and rollback are the closures' own.
//!
//! A database's calls share a hardened realm (`fresh.rs`, `harden.js`): its built-ins and
//! globals are frozen, and a call that could leave anything behind retires it, so what one call
//! does to its globals or built-ins no other call sees. Scripts reach nothing but
//! `getContext()`: QuickJS has no file, network or process access unless the host adds it, and
//! this host adds none.

mod call;
mod collection;
mod compiled;
mod freeze;
mod fresh;
mod plain;
mod sandbox;
mod shape;
pub mod udf;

use serde_json::Value;

use super::{ScriptContext, StoredProcedure};
use crate::error::Result;

/// A stored procedure or trigger written in JavaScript, as Cosmos DB stores it: the text of one
/// function (`function createComment(postId, comment) { ... }`).
///
/// ```no_run
/// # async fn demo(posts: engine::ContainerClient) -> engine::Result<()> {
/// use engine::JavaScript;
/// posts.scripts().upsert_stored_procedure(
///     "hello",
///     JavaScript::new("function hello(name) { getContext().getResponse().setBody('hi ' + name); }")?,
/// )?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct JavaScript {
    body: std::sync::Arc<str>,
}

impl JavaScript {
    /// Checks that `body` is one JavaScript function expression (a 400 naming the problem if
    /// not). The check compiles the text without running it, then evaluates the expression in
    /// a throw-away realm under a short budget (`shape.rs`): a function expression evaluates in
    /// microseconds, so a body that loops or allocates when evaluated is refused, never run
    /// for long. Blocking: call it off async workers.
    pub fn new(body: &str) -> Result<Self> {
        shape::check(body)?;
        Ok(JavaScript { body: body.into() })
    }

    /// [`JavaScript::new`] on the engine's query threads, for async callers (a server must not
    /// check a stranger's text on its request workers).
    pub async fn compile(body: &str) -> Result<Self> {
        let body = body.to_owned();
        crate::blocking::heavy(move || JavaScript::new(&body)).await
    }

    /// How `database`'s calls used their realms so far in this process, as `(reused,
    /// retired)`: calls that ran in a realm an earlier call of the database left clean, and
    /// realms retired after a call. For tests: that a realm was reused or retired is otherwise
    /// invisible, by design.
    #[doc(hidden)]
    pub fn realm_counts(database: &str) -> (u64, u64) {
        let c = fresh::counts(database);
        (c.reused, c.retired)
    }

    /// How query pages used realms for their user-defined functions so far in this process,
    /// as `(reused, retired)`, over all containers (a page's realm is kept for its container's
    /// function set, `udf.rs`). For tests, as [`JavaScript::realm_counts`].
    #[doc(hidden)]
    pub fn udf_realm_counts() -> (u64, u64) {
        let c = fresh::counts_of_all(udf::OWNERS);
        (c.reused, c.retired)
    }

    /// How many of `database`'s calls so far read their script's code into their realm, the
    /// realm not having kept it from an earlier call (`compiled.rs`). For tests, as
    /// [`JavaScript::realm_counts`].
    #[doc(hidden)]
    pub fn script_reads(database: &str) -> u64 {
        fresh::counts(database).read
    }

    pub fn body(&self) -> &str {
        &self.body
    }

    /// This script as a pre-trigger for `operation`.
    pub fn pre_trigger(self, operation: super::TriggerOperation) -> super::Trigger {
        let source = self.body.clone();
        super::Trigger::Pre {
            operation,
            body: std::sync::Arc::new(move |item: &mut Value, run: &mut super::PreTriggerCall| {
                call::pre_trigger(run, "pre-trigger", &self.body, item)
            }),
            source: Some(source),
        }
    }

    /// This script as a post-trigger for `operation`.
    pub fn post_trigger(self, operation: super::TriggerOperation) -> super::Trigger {
        let source = self.body.clone();
        super::Trigger::post(operation, move |ctx, written| {
            let name = ctx.name.clone();
            call::post_trigger(ctx, &name, &self.body, written)
        })
        .with_source(source)
    }
}

impl StoredProcedure for JavaScript {
    fn execute(&self, ctx: &mut ScriptContext<'_, '_, '_>, args: &[Value]) -> Result<Value> {
        let name = ctx.name.clone();
        call::procedure(ctx, &name, &self.body, args)
    }

    fn source(&self) -> Option<&str> {
        Some(&self.body)
    }
}
