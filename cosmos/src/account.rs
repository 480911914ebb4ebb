//! Where the data lives: the embedded engine, or a Cosmos DB account named by endpoint and key.

use std::path::Path;

use crate::database::Database;
use crate::remote::RemoteAccount;
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

/// An account: the embedded engine or a remote endpoint. Cheap to clone.
#[derive(Clone)]
pub struct Account(pub(crate) Backend);

#[derive(Clone)]
pub(crate) enum Backend {
    Embedded(engine::Engine),
    Remote(RemoteAccount),
}

impl Account {
    /// The engine in this process.
    pub fn embedded(engine: engine::Engine) -> Self {
        Account(Backend::Embedded(engine))
    }

    /// A Cosmos DB account: reads its database account first, so a wrong key or an
    /// unreachable endpoint is an error here.
    pub async fn connect(settings: &ConnectionSettings) -> Result<Self> {
        Ok(Account(Backend::Remote(
            RemoteAccount::connect(settings).await?,
        )))
    }

    /// The account the environment names (`COSMOS_*`), else an engine over `data_dir`.
    pub fn from_env_or_embedded(data_dir: impl AsRef<Path>) -> Result<Self> {
        match ConnectionSettings::from_env()? {
            Some(_) => Err(Error::bad(
                "COSMOS_ENDPOINT",
                "a remote account is connected with Account::connect (it is async)",
            )),
            None => Ok(Account(Backend::Embedded(engine::Engine::open(
                data_dir,
                engine::EngineOptions::default(),
            )?))),
        }
    }

    /// The embedded engine, for what only it has (the explorer, partition statistics).
    pub fn engine(&self) -> Option<&engine::Engine> {
        match &self.0 {
            Backend::Embedded(e) => Some(e),
            Backend::Remote(_) => None,
        }
    }

    pub fn is_remote(&self) -> bool {
        matches!(self.0, Backend::Remote(_))
    }

    pub async fn create_database_if_not_exists(&self, id: &str) -> Result<Database> {
        match &self.0 {
            Backend::Embedded(e) => {
                e.create_database_if_not_exists(id).await?;
            }
            Backend::Remote(r) => r.create_database_if_not_exists(id).await?,
        }
        Ok(self.database(id))
    }

    pub fn database(&self, id: &str) -> Database {
        Database::new(self.clone(), id)
    }
}
