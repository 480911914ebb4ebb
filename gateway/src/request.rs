//! A request after authentication, with its body read: what every route handler is given. It
//! also finds the database and container a path names (or Cosmos DB's 404), which the handlers,
//! the router and `session` all need: kept here, below them, so that no handler calls another.

use std::sync::Arc;

use actix_web::HttpRequest;
use engine::DatabaseDef;
use serde_json::Value;

use crate::error::{GatewayError, Result};
use crate::state::State;

/// A request after authentication, with its body read.
pub(crate) struct Ctx<'a> {
    pub req: &'a HttpRequest,
    pub state: &'a State,
    pub body: Vec<u8>,
}

impl Ctx<'_> {
    pub fn headers(&self) -> &actix_web::http::header::HeaderMap {
        self.req.headers()
    }

    /// The body as JSON; a malformed one is a 400 that names the parse error.
    pub fn json(&self) -> Result<Value> {
        if self.body.is_empty() {
            return Err(GatewayError::BadRequest(
                "The request body is empty; a JSON document was expected.".into(),
            ));
        }
        // Cosmos DB's binary JSON starts with 0x80: the Rust SDK sends it unless told not to.
        if self.body.first() == Some(&0x80) {
            return Err(GatewayError::BadRequest(
                "The request body is Cosmos binary JSON, which this gateway does not read: turn \
                 the SDK's binary encoding off (Rust azure_data_cosmos: \
                 BinaryEncodingOptions::new().with_enabled(false) on the client builder, or \
                 AZURE_COSMOS_BINARY_ENCODING_ENABLED=false)."
                    .into(),
            ));
        }
        serde_json::from_slice(&self.body).map_err(|e| {
            GatewayError::BadRequest(format!("The request body is not valid JSON: {e}"))
        })
    }

    pub fn engine(&self) -> &engine::Engine {
        &self.state.engine
    }

    /// The database a path segment names (its id: `links` turns resource ids into names).
    pub fn database(&self, id: &str) -> Result<DatabaseDef> {
        self.engine()
            .databases()
            .into_iter()
            .find(|d| d.id == id)
            .ok_or_else(|| {
                GatewayError::NotFound(format!(
                    "Resource Not Found. Database '{id}' does not exist."
                ))
            })
    }

    /// The database's id for a path segment.
    pub fn database_id(&self, segment: &str) -> Result<String> {
        self.database(segment).map(|d| d.id)
    }

    /// The container's id for a path segment.
    pub fn container_id(&self, db: &str, segment: &str) -> Result<String> {
        let all = self.engine().database(db).containers();
        if all.iter().any(|c| c.id() == segment) {
            return Ok(segment.to_owned());
        }
        Err(GatewayError::NotFound(format!(
            "Resource Not Found. Container '{segment}' does not exist in database '{db}'."
        )))
    }

    /// The engine's container, or Cosmos DB's 404 when it (or its database) does not exist. Its
    /// item, query and procedure calls fail with their charge, which `error.rs` answers in
    /// `x-ms-request-charge`.
    pub fn container(
        &self,
        db: &str,
        id: &str,
    ) -> Result<(engine::ChargedContainer, Arc<engine::ContainerDef>)> {
        let db = self.database_id(db)?;
        let c = self.container_id(&db, id)?;
        let client = self.engine().database(&db).container(&c);
        let def = client.read_container()?;
        Ok((client.charged(), def))
    }
}
