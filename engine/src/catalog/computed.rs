//! A container's computed properties as the catalog keeps them: the definitions, stored with the
//! container, and their compiled form, made once per definition.
//!
//! Compiling is the query language's (`sql::computed`: each definition is a query), and the
//! query language sits above the catalog. So the writer compiles new definitions (refusing bad
//! ones) and hands the result in with them, a definition read from storage is compiled by its
//! first query, and the catalog keeps the compiled form as `Any`, never naming its type.

use std::any::Any;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::ContainerDef;
use crate::error::Result;

/// One definition as the REST API carries it: `{"name": "cp_lower", "query": "SELECT VALUE
/// LOWER(c.name) FROM c"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ComputedProperty {
    pub name: String,
    pub query: String,
}

impl ComputedProperty {
    pub fn new(name: &str, query: &str) -> Self {
        ComputedProperty {
            name: name.into(),
            query: query.into(),
        }
    }
}

/// The slot of the compiled form (empty until compiled).
pub(super) type CompiledSlot = std::sync::OnceLock<Arc<dyn Any + Send + Sync>>;

impl ContainerDef {
    /// This definition with other computed properties, and `compiled`, what the query language
    /// made of them (which checked them as the service does).
    pub(crate) fn with_computed_properties<T: Any + Send + Sync>(
        &self,
        props: Vec<ComputedProperty>,
        compiled: T,
    ) -> ContainerDef {
        let mut next = self.clone();
        next.computed_properties = props;
        next.compiled_computed =
            CompiledSlot::from(Arc::new(compiled) as Arc<dyn Any + Send + Sync>);
        next
    }

    /// The computed properties compiled by `compile`, once per definition (`sql::computed`
    /// names the type and the compiler).
    pub(crate) fn compiled_computed<T: Any + Send + Sync>(
        &self,
        compile: impl FnOnce(&[ComputedProperty]) -> Result<T>,
    ) -> Result<Arc<T>> {
        if let Some(Ok(done)) = self
            .compiled_computed
            .get()
            .cloned()
            .map(Arc::downcast::<T>)
        {
            return Ok(done);
        }
        let made = Arc::new(compile(&self.computed_properties)?);
        // Two threads may compile at once; either result is the same.
        let _ = self.compiled_computed.set(made.clone());
        Ok(made)
    }
}
