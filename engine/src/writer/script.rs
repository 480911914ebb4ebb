//! Work a layer above the writer runs inside the writer's transaction: a stored procedure, a
//! write with its triggers (`scripts::run` implements both).
//!
//! Cosmos DB runs them in the transaction of the write they belong to, so they run on the writer
//! thread; but what they are (user code, JavaScript, their budgets) is the scripts layer's. The
//! writer knows them only as this trait, defined here, below the scripts: it queues them apart
//! from plain writes, runs each alone in a group of its own (its JavaScript holds the writer
//! while it runs, `Writer::run`), and answers what it returns. So the writer names nothing above
//! it, and the scripts layer builds on the writer, never the other way.

use super::apply::Ctx;
use super::ops::{Failure, WriteOutput};
use crate::catalog::ContainerDef;
use crate::error::Result;

pub trait Script: Send + Sync {
    /// Runs on container `def` in the writer's transaction `ctx`. As every write op it may run
    /// again (a group is applied again after the map grew), so it takes `&self` and keeps
    /// nothing of a run. The outer `Err` is a storage failure (the whole group fails); the inner
    /// one work that failed, rolled back and answered with what it cost.
    fn run(&self, ctx: &mut Ctx, def: &mut ContainerDef) -> Result<Result<WriteOutput, Failure>>;
}
