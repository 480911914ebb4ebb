//! The endpoint and key of a remote account, from a connection string or the environment.

use crate::{Error, Result};

/// The endpoint and key of a Cosmos DB account (Azure, the emulator, or the gateway).
#[derive(Clone)]
pub struct ConnectionSettings {
    pub endpoint: String,
    pub key: String,
    /// The Azure region nearest the app (`COSMOS_REGION`), for the SDK's routing.
    pub region: Option<String>,
}

impl std::fmt::Debug for ConnectionSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key, not even in a debug log.
        f.debug_struct("ConnectionSettings")
            .field("endpoint", &self.endpoint)
            .field("region", &self.region)
            .finish()
    }
}

impl ConnectionSettings {
    pub fn new(endpoint: impl Into<String>, key: impl Into<String>) -> Self {
        ConnectionSettings {
            endpoint: endpoint.into(),
            key: key.into(),
            region: None,
        }
    }

    /// The portal's connection string: `AccountEndpoint=https://…;AccountKey=…;`.
    pub fn from_connection_string(s: &str) -> Result<Self> {
        let mut endpoint = None;
        let mut key = None;
        for part in s.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            // The key is base64 and may end in '=': split at the first '=' only.
            let (name, value) = part.split_once('=').ok_or_else(|| {
                Error::bad("connection string", format!("'{part}' is not Name=value"))
            })?;
            match name.to_ascii_lowercase().as_str() {
                "accountendpoint" => endpoint = Some(value.to_owned()),
                "accountkey" => key = Some(value.to_owned()),
                _ => {}
            }
        }
        match (endpoint, key) {
            (Some(e), Some(k)) => Ok(ConnectionSettings::new(e, k)),
            _ => Err(Error::bad(
                "connection string",
                "it needs AccountEndpoint=…;AccountKey=…;",
            )),
        }
    }

    /// `COSMOS_CONNECTION_STRING`, or `COSMOS_ENDPOINT` with `COSMOS_KEY`; `None` when neither
    /// is set (then the embedded engine is the backend).
    pub fn from_env() -> Result<Option<Self>> {
        let var = |n: &str| std::env::var(n).ok().filter(|v| !v.trim().is_empty());
        let mut settings = match (
            var("COSMOS_CONNECTION_STRING"),
            var("COSMOS_ENDPOINT"),
            var("COSMOS_KEY"),
        ) {
            (Some(cs), _, _) => Self::from_connection_string(&cs)?,
            (None, Some(e), Some(k)) => ConnectionSettings::new(e, k),
            (None, Some(_), None) => {
                return Err(Error::bad(
                    "COSMOS_KEY",
                    "COSMOS_ENDPOINT is set without a key",
                ))
            }
            (None, None, _) => return Ok(None),
        };
        settings.region = var("COSMOS_REGION");
        Ok(Some(settings))
    }

    /// Whether the endpoint is this machine (the emulator or the gateway, whose certificates
    /// are self-signed).
    pub fn is_loopback(&self) -> bool {
        let rest = self
            .endpoint
            .split_once("://")
            .map_or(self.endpoint.as_str(), |(_, r)| r);
        let host = rest.split(['/', ':']).next().unwrap_or_default();
        matches!(host, "localhost" | "127.0.0.1" | "[") || rest.starts_with("[::1]")
    }
}
